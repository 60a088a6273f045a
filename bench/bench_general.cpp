// Radical + t(A) of general (non-graph) tables (issue 3): tensor powers Q_2^{⊗L} (dims 64, 256,
// 1024) and the modular group algebra GF(2)[C_2^k] (pure Cohen–Ivanyos–Wales, no square-zero
// basis elements), over Q, GF(2) and GF(101). "radical_t" is the radical plus the splitting of the
// centre of A/rad (the numbers GAP and PARI are timed on by bench/general_vs_gap_pari.sh);
// "certified" is analyze_general_structure with every certificate.
// Run: ./build/bench_general --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "qalg/algebra/general_structure.hpp"
#include "qalg/algebra/graph_algebra.hpp"
#include "qalg/algebra/known_algebras.hpp"
#include "qalg/algebra/quiver_input.hpp"
#include "qalg/algebra/tensor_product.hpp"

namespace {

using namespace qalg;

Field field_of(long p) { return p == 0 ? Field::rationals() : Field::prime(static_cast<ulong>(p)); }

StructureTensor complete2_power(long p, unsigned l) {
  return tensor_power(graph_algebra(quiver_family("complete:2"), field_of(p)), l);
}

void radical_t(benchmark::State& state, const StructureTensor& t) {
  for (auto _ : state) {
    RadicalResult r = radical(t);
    StructureTensor b = r.basis.rows() > 0 ? quotient_table(t, r.basis) : t;
    size_t count = primitive_central_idempotents(b).size();
    benchmark::DoNotOptimize(count);
    state.counters["dim_rad"] = double(r.basis.rows());
    state.counters["t"] = double(count);
  }
  state.counters["dim"] = double(t.dim());
}

void certified(benchmark::State& state, const StructureTensor& t) {
  for (auto _ : state) {
    GeneralStructure s = analyze_general_structure(t);
    benchmark::DoNotOptimize(s.t);
    state.counters["certificates"] = double(s.certificates.size());
  }
}

void q2_power_radical_t(benchmark::State& state) {
  radical_t(state, complete2_power(state.range(0), static_cast<unsigned>(state.range(1))));
}
void q2_power_certified(benchmark::State& state) {
  certified(state, complete2_power(state.range(0), static_cast<unsigned>(state.range(1))));
}
void elementary_abelian_radical_t(benchmark::State& state) {
  StructureTensor c2 = cyclic_group_algebra(2, field_of(state.range(0)));
  radical_t(state, tensor_power(c2, static_cast<unsigned>(state.range(1))));
}

// Arguments: {p (0 = Q), L}: dim 4^L.
BENCHMARK(q2_power_radical_t)
    ->ArgsProduct({{0, 2, 101}, {3, 4, 5}})
    ->ArgNames({"p", "L"})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(q2_power_certified)
    ->ArgsProduct({{0, 2, 101}, {3, 4, 5}})
    ->ArgNames({"p", "L"})
    ->Unit(benchmark::kMillisecond);
// GF(2)[C_2^k], dim 2^k: the chain of all ⌊log_2 n⌋ trace rounds on a local algebra.
BENCHMARK(elementary_abelian_radical_t)->Args({2, 6})->Args({2, 8})->ArgNames({"p", "k"})->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
