// dX's work list (gpu/cuda/grad_x_list.hpp), run through a CPU emulator of what every dX kernel does
// with a list (each item stores Σ_terms coef · Σ_kk dY[row][a + kk] · W[n][a + kk] into its tile, a
// block-diagonal term only where n and a + kk lie in the same group; split-K chunks add into their
// slot, which is stored once), against the dense reference.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "cuda/grad_x_list.hpp"
#include "list_emulator.hpp"
#include "property.hpp"
#include "qalg/gpu/dense_reference.hpp"
#include "qalg/gpu/lowering.hpp"
#include "random_cases.hpp"
#include "table_builders.hpp"

namespace {
using qalg::gpu::DenseReference;
using qalg::gpu::KernelPlan;
using qalg::gpu::lower_table;
using qalg::gpu::RowMatrix;
using qalg::gpu::detail::BlockDiagonal;
using qalg::gpu::detail::build_grad_x_list;
using qalg::gpu::detail::split_long_items;
using qalg::gpu::detail::Term;
using qalg::gpu::detail::WorkItem;

using qalg::gpu::test::emulate_list;
using qalg::gpu::test::offsets;

// The list's dX: tile element (m, n) of item w is row rows[w.m_begin + m], column w.n_begin + n,
// Σ_terms coef · Σ_kk dY[row][a + kk] · W[col][a + kk], a block-diagonal term only where col and
// a + kk lie in the same group (the kernel's zero fill).
RowMatrix<double> emulate(const std::vector<WorkItem>& items, const std::vector<Term>& terms,
                          const std::vector<WorkItem>& slots, const std::vector<uint32_t>& rows, BlockDiagonal bd,
                          const RowMatrix<double>& dY, const RowMatrix<double>& W, RowMatrix<int>& covered) {
  auto at = [&](const WorkItem& w, uint32_t m, uint32_t n) { return std::make_pair(rows[w.m_begin + m], w.n_begin + n); };
  auto value = [&](const WorkItem& w, uint32_t m, uint32_t n) {
    const auto [row, col] = at(w, m, n);
    double v = 0;
    for (uint32_t t = w.term_begin; t < w.term_begin + w.term_count; ++t)
      for (uint32_t kk = 0; kk < terms[t].len; ++kk) {
        const uint32_t k = terms[t].a + kk;
        if (terms[t].diagonal && col / bd.s != k / bd.r) continue;
        v += double(terms[t].coef) * dY(row, k) * W(col, k);
      }
    return v;
  };
  return emulate_list(items, slots, dY.rows(), W.rows(), value, at, covered);
}

// One case through the list builder (runs on or off, random tiles and split depths) and the emulator.
std::string check_case(const qalg::gpu::test::RandomCase& c, std::mt19937_64& rng, bool runs, bool* had_runs) {
  const KernelPlan p = lower_table(c.table, c.s, c.r);
  DenseReference ref(c.table, c.s, c.r);
  std::vector<uint32_t> type_begin, rows;
  qalg::gpu::test::grouped_rows(c.types, p.q, type_begin, rows);
  const uint32_t bm = 1 + uint32_t(rng() % 8), bn = 1 + uint32_t(rng() % 40);
  std::vector<WorkItem> items, slots;
  std::vector<Term> terms;
  const BlockDiagonal bd = build_grad_x_list(p, type_begin, offsets(c.s), offsets(c.r), bm, bn, runs, items, terms);
  if (had_runs) *had_runs = bd.s != 0;
  if (rng() % 2) split_long_items(items, terms, 1 + rng() % 6, slots);
  const auto dY = qalg::gpu::test::integer_matrix<double>(rng, Eigen::Index(c.types.size()), ref.N());
  const auto W = qalg::gpu::test::integer_matrix<double>(rng, ref.K(), ref.N());
  RowMatrix<int> covered;
  const RowMatrix<double> got = emulate(items, terms, slots, rows, bd, dY, W, covered);
  if (covered.size() != 0 && (covered.minCoeff() != 1 || covered.maxCoeff() != 1))
    return "an element stored " + std::to_string(covered.minCoeff()) + " to " + std::to_string(covered.maxCoeff()) +
           " times " + c.what;
  return qalg::gpu::test::exact_difference(got, ref.backward_input(dY, W, c.types));
}

// Every element of X̄ stored exactly once, equal to the dense reference's X̄ on integer inputs, for
// random tables, widths, row types, tile shapes and split depths, with and without runs (random
// widths: runs only where they happen to be uniform).
QALG_PROPERTY(GradXList, EmulatedListIsTheReferenceGradient) {
  const qalg::gpu::test::RandomCase c = qalg::gpu::test::random_case(seed);
  std::mt19937_64 rng(seed ^ 0x51ED27);
  for (bool runs : {false, true}) PROP_ASSERT_EQ(check_case(c, rng, runs, nullptr) + " " + c.what, " " + c.what);
}

// Uniform widths, where the runs happen: the complete graph (every group k ≠ i is ȳ_k W_kkᵀ), also
// in a rescaled basis (unequal coefficients end runs), Q_2^{⊗2} (some groups sum several
// products: not runs) and a random quiver, random s and r.
QALG_PROPERTY(GradXList, BlockDiagonalRunsAreTheReferenceGradient) {
  std::mt19937_64 rng(seed ^ 0xB10C);
  namespace t = qalg::gpu::test;
  const uint32_t kind = uint32_t(rng() % 4), q = kind == 1 ? 4 : 2 + uint32_t(rng() % 7);
  t::RandomCase c;
  c.table = kind == 0   ? t::complete_table(q)
            : kind == 1 ? t::tensor_table(t::complete_table(2), t::complete_table(2))
            : kind == 2 ? t::random_case(seed).table
                        : t::complete_table(q);
  if (kind == 3) {  // a rescaled basis: the coefficient of ȳ_k W_kkᵀ differs between groups k
    const qalg::gpu::Fraction choices[] = {{1, 2}, {1, 1}, {2, 1}, {-1, 1}};
    std::vector<qalg::gpu::Fraction> lambda;
    for (uint32_t b = 0; b < c.table.dim; ++b) lambda.push_back(choices[rng() % 4]);
    c.table = t::rescaled_table(c.table, lambda);
  }
  const uint32_t qq = *c.table.slot_grid;
  const uint32_t s = 1 + uint32_t(rng() % 9), r = 1 + uint32_t(rng() % 9);
  c.s.assign(qq, s), c.r.assign(qq, r);
  c.types.resize(1 + rng() % 40);
  for (uint32_t& t : c.types) t = uint32_t(rng() % qq);
  c.what = "(kind " + std::to_string(kind) + ", q " + std::to_string(qq) + ", s " + std::to_string(s) + ", r " +
           std::to_string(r) + ")";
  PROP_ASSERT_EQ(check_case(c, rng, true, nullptr) + " " + c.what, " " + c.what);
}

// The Qwen3-30B expert's up projection at q = 32 (s = 64, r = 24) with 128-column tiles: the
// groups k ≠ i pair up (G = 2), so 992 one-group tiles become runs of two groups (one of one group
// next to each type's own group), one 48-deep term each.
TEST(GradXList, CompleteGraphGroupsPairUp) {
  const uint32_t q = 32;
  const KernelPlan p = lower_table(qalg::gpu::test::complete_table(q), std::vector<uint32_t>(q, 64),
                                   std::vector<uint32_t>(q, 24));
  std::vector<uint32_t> type_begin(q + 1);
  for (uint32_t i = 0; i <= q; ++i) type_begin[i] = 64 * i;
  std::vector<uint64_t> in(q + 1), out(q + 1);
  for (uint32_t g = 0; g <= q; ++g) in[g] = 64 * g, out[g] = 24 * g;
  std::vector<WorkItem> items;
  std::vector<Term> terms;
  const BlockDiagonal bd = build_grad_x_list(p, type_begin, in, out, 64, 128, true, items, terms);
  EXPECT_EQ(bd.s, 64u);
  EXPECT_EQ(bd.r, 24u);
  size_t runs = 0, singles = 0;
  for (const WorkItem& w : items) {
    ASSERT_EQ(w.term_count, 1u);
    const Term& t = terms[w.term_begin];
    if (t.diagonal) {
      ++runs;
      EXPECT_EQ(w.n_count, 128u);
      EXPECT_EQ(t.len, 48u);
    } else {
      ++singles;
    }
  }
  // per type i: 15 pairs without group i, plus group i's partner alone, plus group i itself
  EXPECT_EQ(runs, size_t(q) * 15);
  EXPECT_EQ(singles, size_t(q) * 2);
}
}  // namespace
