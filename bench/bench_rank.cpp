// Exact verification of bilinear algorithms (SPEC §3): the sparse verifier against a dense peer
// that materialises Σ α⊗β⊗γ and c as dim³ arrays, in the same run. Also the full rank report.
// Run: ./build/bench/bench_rank --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "qalg/algebra/graph_algebra.hpp"
#include "qalg/algebra/quiver_input.hpp"
#include "qalg/algebra/report.hpp"
#include "qalg/rank/algorithms.hpp"
#include "qalg/rank/rank_report.hpp"

namespace {

using namespace qalg;

StructureTensor complete(int64_t q) {
  return graph_algebra(read_quiver("complete:" + std::to_string(q)), Field::rationals());
}

// The peer: the textbook check, every coordinate of both dim³ tensors.
bool verify_dense(const BilinearAlgorithm& alg, const StructureTensor& t) {
  const size_t n = t.dim();
  std::vector<Rational> lhs(n * n * n), rhs(n * n * n);
  for (const auto& term : alg.terms)
    for (const auto& [i, a] : term.alpha)
      for (const auto& [j, b] : term.beta)
        for (const auto& [k, g] : term.gamma) lhs[(i * n + j) * n + k] += a * b * g;
  for (const auto& e : t.entries()) rhs[(size_t{e.i} * n + e.j) * n + e.k] = e.c;
  for (size_t x = 0; x < lhs.size(); ++x)
    if (lhs[x] != rhs[x]) return false;
  return true;
}

void BM_VerifySparse(benchmark::State& state) {
  StructureTensor t = complete(state.range(0));
  BilinearAlgorithm alg = canonical_graph_algorithm(t);
  for (auto _ : state) benchmark::DoNotOptimize(verify_algorithm(alg, t).verified);
  state.counters["dim"] = static_cast<double>(t.dim());
}

void BM_VerifyDensePeer(benchmark::State& state) {
  StructureTensor t = complete(state.range(0));
  BilinearAlgorithm alg = canonical_graph_algorithm(t);
  for (auto _ : state) benchmark::DoNotOptimize(verify_dense(alg, t));
  state.counters["dim"] = static_cast<double>(t.dim());
}

void BM_RankReport(benchmark::State& state) {
  StructureTensor t = complete(state.range(0));
  AlgebraReport a = inspect_algebra(t);
  for (auto _ : state) benchmark::DoNotOptimize(compute_rank_report(t, a).best_lower_bound);
  state.counters["dim"] = static_cast<double>(t.dim());
}

BENCHMARK(BM_VerifySparse)->Arg(4)->Arg(8)->Arg(12)->Arg(256)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_VerifyDensePeer)->Arg(4)->Arg(8)->Arg(12)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RankReport)->Arg(32)->Arg(256)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
