// Flip-graph search speed (issue 11): flips per second per thread on the structure tensor of
// Q_2 ⊗ Q_2 (dim 16, start length 36), one thread, for each coefficient mode. The published
// target for small tensors is 10^7 flips/s/thread; the counter `flips_per_s` is the number to
// compare with it. The walk runs with reductions and plus transitions, as in a real search.
// `final_length` (mean length at the end of the walks) shows the walks stay in the same regime
// when the walk code changes; compare versions by running both binaries in one session
// (results/search/README.md, "Speed").
//   build-x/bench/bench_search --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <atomic>

#include "qalg/algebra/graph_algebra.hpp"
#include "qalg/algebra/quiver_input.hpp"
#include "qalg/algebra/tensor_product.hpp"
#include "qalg/rank/search/flip_walk.hpp"

namespace {

using qalg::search::Mode;

const qalg::StructureTensor& q2_squared() {
  static const qalg::StructureTensor t = qalg::tensor_power(
      qalg::graph_algebra(qalg::read_quiver("complete:2"), qalg::Field::rationals()), 2);
  return t;
}

// One walk of 10^6 flips per iteration that never stops on a reduction (level 0); plus
// transitions after 20000 flips without a reduction, as in the search.
void BM_FlipWalkQ2Squared(benchmark::State& state) {
  const Mode mode = static_cast<Mode>(state.range(0));
  const qalg::search::Scheme start = qalg::search::initial_scheme(q2_squared(), mode);
  qalg::search::WalkLimits limits;
  limits.max_flips = 1'000'000;
  limits.plateau = 20'000;
  limits.max_excess = 64;  // level 0: allow plus transitions at any length below 64
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> counter{0};
  uint64_t seed = 1, flips = 0, walks = 0, lengths = 0;
  for (auto _ : state) {
    auto r = qalg::search::run_walk(start, 0, limits, seed++, stop, counter);
    flips += r.flips;
    lengths += r.scheme.length();
    ++walks;
    benchmark::DoNotOptimize(r.scheme.terms.data());
  }
  state.counters["flips_per_s"] = benchmark::Counter(double(flips), benchmark::Counter::kIsRate);
  state.counters["final_length"] = double(lengths) / double(walks ? walks : 1);
  state.counters["target_fraction"] =
      benchmark::Counter(double(flips) / 1e7, benchmark::Counter::kIsRate);
  state.SetLabel(qalg::search::mode_name(mode));
}

BENCHMARK(BM_FlipWalkQ2Squared)
    ->Arg(static_cast<int>(Mode::GF2))
    ->Arg(static_cast<int>(Mode::GF3))
    ->Arg(static_cast<int>(Mode::Z3))
    ->Unit(benchmark::kMillisecond);  // rates per CPU second: the machine is shared

}  // namespace

BENCHMARK_MAIN();
