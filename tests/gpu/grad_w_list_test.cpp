// dW's work list (gpu/cuda/grad_w_list.hpp), run through a CPU emulator of what every dW kernel does
// with a list (each item stores Σ_terms coef · Σ_kk X[row(a + kk)][m] · dY[row(a + kk)][n] into its
// tile; split-K chunks add into their slot, which is stored once), against the dense reference.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "cuda/grad_w_list.hpp"
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

std::vector<uint64_t> offsets(const std::vector<uint32_t>& widths) {
  std::vector<uint64_t> o(widths.size() + 1, 0);
  for (size_t g = 0; g < widths.size(); ++g) o[g + 1] = o[g] + widths[g];
  return o;
}

// The list's dW; `covered` counts how often each element was stored (must be exactly once).
RowMatrix<double> emulate(const std::vector<WorkItem>& items, const std::vector<Term>& terms,
                          const std::vector<WorkItem>& slots, const std::vector<uint32_t>& rows,
                          const RowMatrix<double>& X, const RowMatrix<double>& dY, RowMatrix<int>& covered) {
  RowMatrix<double> dW = RowMatrix<double>::Constant(X.cols(), dY.cols(), std::nan(""));
  std::vector<RowMatrix<double>> partial(slots.size(), RowMatrix<double>::Zero(X.cols(), dY.cols()));
  covered = RowMatrix<int>::Zero(X.cols(), dY.cols());
  auto tile = [&](const WorkItem& w, auto&& put) {
    for (uint32_t m = 0; m < w.m_count; ++m)
      for (uint32_t n = 0; n < w.n_count; ++n) {
        double v = 0;
        for (uint32_t t = w.term_begin; t < w.term_begin + w.term_count; ++t)
          for (uint32_t kk = 0; kk < terms[t].len; ++kk) {
            const uint32_t row = rows[terms[t].a + kk];
            v += double(terms[t].coef) * X(row, w.m_begin + m) * dY(row, w.n_begin + n);
          }
        put(w.m_begin + m, w.n_begin + n, v);
      }
  };
  for (const WorkItem& w : items) {
    if (w.slot) {
      tile(w, [&](uint32_t r, uint32_t c, double v) { partial[w.slot - 1](r, c) += v; });
    } else {
      tile(w, [&](uint32_t r, uint32_t c, double v) { dW(r, c) = v, ++covered(r, c); });
    }
  }
  for (size_t s = 0; s < slots.size(); ++s)
    for (uint32_t m = 0; m < slots[s].m_count; ++m)
      for (uint32_t n = 0; n < slots[s].n_count; ++n) {
        const uint32_t r = slots[s].m_begin + m, c = slots[s].n_begin + n;
        dW(r, c) = partial[s](r, c), ++covered(r, c);
      }
  return dW;
}

// Every element of W̄ stored exactly once, equal to the dense reference's W̄ on integer inputs, for
// random tables, widths, row types, tile shapes and split depths (column runs included: groups with
// equal terms share tiles).
QALG_PROPERTY(GradWList, EmulatedListIsTheReferenceGradient) {
  qalg::gpu::test::RandomCase c = qalg::gpu::test::random_case(seed);
  const KernelPlan p = lower_table(c.table, c.s, c.r);
  DenseReference ref(c.table, c.s, c.r);
  std::mt19937_64 rng(seed ^ 0x9E3779B9);
  const uint32_t q = p.q;
  std::vector<uint32_t> type_begin(q + 1, 0), rows(c.types.size());
  for (uint32_t t : c.types) ++type_begin[t + 1];
  for (uint32_t i = 0; i < q; ++i) type_begin[i + 1] += type_begin[i];
  std::vector<uint32_t> fill(type_begin.begin(), type_begin.end() - 1);
  for (size_t r = 0; r < c.types.size(); ++r) rows[fill[c.types[r]]++] = uint32_t(r);
  const uint32_t bm = 1 + uint32_t(rng() % 8), bn = 1 + uint32_t(rng() % 8);
  std::vector<WorkItem> items, slots;
  std::vector<Term> terms;
  build_grad_w_list(p, type_begin, offsets(c.s), offsets(c.r), bm, bn, items, terms);
  if (rng() % 2) split_long_items(items, terms, 1 + rng() % 6, slots);
  const auto X = qalg::gpu::test::integer_matrix<double>(rng, Eigen::Index(c.types.size()), ref.K());
  const auto dY = qalg::gpu::test::integer_matrix<double>(rng, Eigen::Index(c.types.size()), ref.N());
  RowMatrix<int> covered;
  const RowMatrix<double> got = emulate(items, terms, slots, rows, X, dY, covered);
  PROP_ASSERT(covered.size() == 0 || (covered.minCoeff() == 1 && covered.maxCoeff() == 1));
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
