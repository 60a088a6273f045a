// Benchmark of the exact core behind `qalg inspect` (issue 2): build Q_G and run every check
// (associativity, unit, graph-route radical and t). Run: ./build/bench_inspect
// --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "qalg/algebra/graph_algebra.hpp"
#include "qalg/algebra/quiver_input.hpp"
#include "qalg/algebra/report.hpp"

namespace {

void inspect_family(benchmark::State& state, const std::string& spec) {
  qalg::Quiver q = qalg::read_quiver(spec);
  for (auto _ : state) {
    qalg::StructureTensor t = qalg::graph_algebra(q, qalg::Field::rationals());
    qalg::AlgebraReport r = qalg::inspect_algebra(t);
    benchmark::DoNotOptimize(r.t);
  }
  state.counters["arrows"] = double(q.arrow_count());
}

}  // namespace

BENCHMARK_CAPTURE(inspect_family, complete8, std::string("complete:8"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(inspect_family, complete16, std::string("complete:16"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(inspect_family, complete64, std::string("complete:64"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(inspect_family, complete256, std::string("complete:256"))->Unit(benchmark::kMillisecond)->Iterations(1);
// ≈ 10^6 arrows: n(n-1)p with n = 1415, p = 0.5.
BENCHMARK_CAPTURE(inspect_family, random1e6, std::string("random:1415,0.5,1"))->Unit(benchmark::kMillisecond)->Iterations(1);

BENCHMARK_MAIN();
