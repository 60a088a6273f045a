// dW's work list (gpu/cuda/grad_w_list.hpp), run through a CPU emulator of what every dW kernel does
// with a list (each item stores Σ_terms coef · Σ_kk X[row(a + kk)][m] · dY[row(a + kk)][n] into its
// tile; split-K chunks add into their slot, which is stored once), against the dense reference.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "cuda/grad_w_list.hpp"
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
using qalg::gpu::detail::build_grad_w_list;
using qalg::gpu::detail::split_long_items;
using qalg::gpu::detail::Term;
using qalg::gpu::detail::WorkItem;

using qalg::gpu::test::emulate_list;
using qalg::gpu::test::offsets;

// The list's dW: tile element (m, n) of item w is W̄[w.m_begin + m][w.n_begin + n],
// Σ_terms coef · Σ_kk X[row(a + kk)][m] · dY[row(a + kk)][n].
RowMatrix<double> emulate(const std::vector<WorkItem>& items, const std::vector<Term>& terms,
                          const std::vector<WorkItem>& slots, const std::vector<uint32_t>& rows,
                          const RowMatrix<double>& X, const RowMatrix<double>& dY, RowMatrix<int>& covered) {
  auto at = [](const WorkItem& w, uint32_t m, uint32_t n) { return std::make_pair(w.m_begin + m, w.n_begin + n); };
  auto value = [&](const WorkItem& w, uint32_t m, uint32_t n) {
    double v = 0;
    for (uint32_t t = w.term_begin; t < w.term_begin + w.term_count; ++t)
      for (uint32_t kk = 0; kk < terms[t].len; ++kk) {
        const uint32_t row = rows[terms[t].a + kk];
        v += double(terms[t].coef) * X(row, w.m_begin + m) * dY(row, w.n_begin + n);
      }
    return v;
  };
  return emulate_list(items, slots, X.cols(), dY.cols(), value, at, covered);
}

// Every element of W̄ stored exactly once, equal to the dense reference's W̄ on integer inputs, for
// random tables, widths, row types, tile shapes and split depths (column runs included: groups with
// equal terms share tiles).
QALG_PROPERTY(GradWList, EmulatedListIsTheReferenceGradient) {
  qalg::gpu::test::RandomCase c = qalg::gpu::test::random_case(seed);
  const KernelPlan p = lower_table(c.table, c.s, c.r);
  DenseReference ref(c.table, c.s, c.r);
  std::mt19937_64 rng(seed ^ 0x9E3779B9);
  std::vector<uint32_t> type_begin, rows;
  qalg::gpu::test::grouped_rows(c.types, p.q, type_begin, rows);
  const uint32_t bm = 1 + uint32_t(rng() % 8), bn = 1 + uint32_t(rng() % 8);
  std::vector<WorkItem> items, slots;
  std::vector<Term> terms;
  build_grad_w_list(p, type_begin, offsets(c.s), offsets(c.r), bm, bn, items, terms);
  if (rng() % 2) split_long_items(items, terms, 1 + rng() % 6, slots);
  const auto X = qalg::gpu::test::integer_matrix<double>(rng, Eigen::Index(c.types.size()), ref.K());
  const auto dY = qalg::gpu::test::integer_matrix<double>(rng, Eigen::Index(c.types.size()), ref.N());
  RowMatrix<int> covered;
  const RowMatrix<double> got = emulate(items, terms, slots, rows, X, dY, covered);
  PROP_ASSERT_EQ(qalg::gpu::test::stored_once(covered), "");
  PROP_ASSERT_EQ(qalg::gpu::test::exact_difference(got, ref.backward_weight(X, dY, c.types)) + " " + c.what,
                 " " + c.what);
}

// The Qwen3-30B expert's up projection at q = 32 (s = 64, r = 24), 64x64 tiles: block row k has
// three runs (groups before k, group k, groups after k) instead of 32 blocks, so 1024 tiles of
// which 63 % were zero-filled columns become full ones.
TEST(GradWList, CompleteGraphBlockRowsBecomeThreeRuns) {
  const uint32_t q = 32;
  const KernelPlan p = lower_table(qalg::gpu::test::complete_table(q), std::vector<uint32_t>(q, 64),
                                   std::vector<uint32_t>(q, 24));
  std::vector<uint32_t> type_begin(q + 1);
  for (uint32_t i = 0; i <= q; ++i) type_begin[i] = 64 * i;
  std::vector<uint64_t> in(q + 1), out(q + 1);
  for (uint32_t g = 0; g <= q; ++g) in[g] = 64 * g, out[g] = 24 * g;
  std::vector<WorkItem> items;
  std::vector<Term> terms;
  build_grad_w_list(p, type_begin, in, out, 64, 64, items, terms);
  size_t full = 0;
  for (const WorkItem& w : items) full += w.n_count == 64;
  // per k: ceil(24k / 64) + 1 + ceil(24(31 - k) / 64) tiles; the first and last k have two runs
  size_t expect = 0;
  for (uint32_t k = 0; k < q; ++k) expect += (24 * k + 63) / 64 + 1 + (24 * (q - 1 - k) + 63) / 64;
  EXPECT_EQ(items.size(), expect);
  EXPECT_LT(items.size(), 500u);
  EXPECT_GT(full, items.size() / 2);
  EXPECT_EQ(terms.size(), size_t(3 * q - 2));  // one term per run: the rows of type k, or all rows
}
}  // namespace
