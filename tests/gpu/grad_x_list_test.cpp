// dX's work list (gpu/cuda/grad_x_list.hpp), run through a CPU emulator of what every dX kernel does
// with a list (each item stores Σ_terms coef · Σ_kk dY[row][a + kk] · W[n][a + kk] into its tile;
// split-K chunks add into their slot, which is stored once), against the dense reference.
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
using qalg::gpu::detail::build_grad_x_list;
using qalg::gpu::detail::split_long_items;
using qalg::gpu::detail::Term;
using qalg::gpu::detail::WorkItem;

using qalg::gpu::test::emulate_list;
using qalg::gpu::test::offsets;

// The list's dX: tile element (m, n) of item w is row rows[w.m_begin + m], column w.n_begin + n,
// Σ_terms coef · Σ_kk dY[row][a + kk] · W[col][a + kk].
RowMatrix<double> emulate_grad_x(const std::vector<WorkItem>& items, const std::vector<Term>& terms,
                                 const std::vector<WorkItem>& slots, const std::vector<uint32_t>& rows,
                                 const RowMatrix<double>& dY, const RowMatrix<double>& W,
                                 RowMatrix<int>& covered) {
  auto at = [&](const WorkItem& w, uint32_t m, uint32_t n) { return std::make_pair(rows[w.m_begin + m], w.n_begin + n); };
  auto value = [&](const WorkItem& w, uint32_t m, uint32_t n) {
    const auto [row, col] = at(w, m, n);
    double v = 0;
    for (uint32_t t = w.term_begin; t < w.term_begin + w.term_count; ++t)
      for (uint32_t kk = 0; kk < terms[t].len; ++kk) {
        const uint32_t k = terms[t].a + kk;
        v += double(terms[t].coef) * dY(row, k) * W(col, k);
      }
    return v;
  };
  return emulate_list(items, slots, dY.rows(), W.rows(), value, at, covered);
}

// One case through the list builder (random tiles and split depths) and the emulator.
std::string check_case(const qalg::gpu::test::RandomCase& c, std::mt19937_64& rng) {
  const KernelPlan p = lower_table(c.table, c.s, c.r);
  DenseReference ref(c.table, c.s, c.r);
  std::vector<uint32_t> type_begin, rows;
  qalg::gpu::test::grouped_rows(c.types, p.q, type_begin, rows);
  const uint32_t bm = 1 + uint32_t(rng() % 8), bn = 1 + uint32_t(rng() % 40);
  std::vector<WorkItem> items, slots;
  std::vector<Term> terms;
  build_grad_x_list(p, type_begin, offsets(c.s), offsets(c.r), bm, bn, items, terms);
  if (rng() % 2) split_long_items(items, terms, 1 + rng() % 6, slots);
  const auto dY = qalg::gpu::test::integer_matrix<double>(rng, Eigen::Index(c.types.size()), ref.N());
  const auto W = qalg::gpu::test::integer_matrix<double>(rng, ref.K(), ref.N());
  RowMatrix<int> covered;
  const RowMatrix<double> got = emulate_grad_x(items, terms, slots, rows, dY, W, covered);
  if (const std::string once = qalg::gpu::test::stored_once(covered); !once.empty()) return once + " " + c.what;
  return qalg::gpu::test::exact_difference(got, ref.backward_input(dY, W, c.types));
}

// Every element of X̄ stored exactly once, equal to the dense reference's X̄ on integer inputs, for
// random tables, widths, row types, tile shapes and split depths.
QALG_PROPERTY(GradXList, EmulatedListIsTheReferenceGradient) {
  const qalg::gpu::test::RandomCase c = qalg::gpu::test::random_case(seed);
  std::mt19937_64 rng(seed ^ 0x51ED27);
  PROP_ASSERT_EQ(check_case(c, rng) + " " + c.what, " " + c.what);
}

// The Qwen3-30B expert's up projection at q = 32 (s = 64, r = 24): x̄_i sums ȳ_j W_ijᵀ over all 32
// output groups, adjacent in ȳ, so its 32 terms are one 768-deep reduction; every x̄_k (k ≠ i) is
// the one 24-deep term ȳ_k W_kkᵀ.
TEST(GradXList, OwnGroupIsOneReduction) {
  const uint32_t q = 32;
  const KernelPlan p = lower_table(qalg::gpu::test::complete_table(q), std::vector<uint32_t>(q, 64),
                                   std::vector<uint32_t>(q, 24));
  std::vector<uint32_t> type_begin(q + 1);
  for (uint32_t i = 0; i <= q; ++i) type_begin[i] = 64 * i;
  std::vector<WorkItem> items;
  std::vector<Term> terms;
  build_grad_x_list(p, type_begin, offsets(std::vector<uint32_t>(q, 64)), offsets(std::vector<uint32_t>(q, 24)), 64,
                    64, items, terms);
  ASSERT_EQ(items.size(), size_t(q) * q);
  size_t deep = 0;
  for (const WorkItem& w : items) {
    ASSERT_EQ(w.term_count, 1u);
    const Term& t = terms[w.term_begin];
    const uint32_t i = w.m_begin / 64, k = w.n_begin / 64;
    if (i == k) {
      ++deep;
      EXPECT_EQ(t.a, 0u);
      EXPECT_EQ(t.len, 24u * q);
    } else {
      EXPECT_EQ(t.a, 24u * k);
      EXPECT_EQ(t.len, 24u);
    }
  }
  EXPECT_EQ(deep, size_t(q));
}
}  // namespace
