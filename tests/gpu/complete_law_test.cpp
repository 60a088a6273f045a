// The complete-graph law's closed forms (every B(i, j) = {i, j}, coefficients 1, equal widths, rows
// in closed form), checked on the CPU against the dense reference (which reads the table, never the
// plan), exactly on integer inputs:
// - the strided-batched backward (gpu/cuda/batched_law.hpp), through an emulator of
//   cublasGemmStridedBatchedEx's column-major definition;
// - the forward's work items computed from their index (gpu/cuda/work_list.hpp LawGrid): every
//   item's terms are the plan's B(i, j), the items cover each output element exactly once, and a
//   run of them equals the reference forward, in both orders, for any tile shape.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <random>
#include <string>
#include <vector>

#include "cuda/batched_law.hpp"
#include "cuda/work_list.hpp"
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
using qalg::gpu::TableData;
using qalg::gpu::detail::batched_backward;
using qalg::gpu::detail::diagonal_plus_row_law;
using qalg::gpu::detail::Operand;
using qalg::gpu::detail::row_formula;
using qalg::gpu::detail::StridedGemm;

// cuBLAS's definition, element by element: C_b(i, j) = Σ_l op(A_b)(i, l) op(B_b)(l, j), column-major
// storage at x_off + b·sx + row + col·ldx. Every index is bounds-checked against its operand, so a
// wrong stride fails here rather than reading a neighbour.
struct Operands {
  std::vector<double>* buf[5];
  std::vector<double>& operator[](Operand o) { return *buf[int(o)]; }
};
double& at(std::vector<double>& v, uint64_t e) {
  if (e >= v.size()) throw std::out_of_range("element " + std::to_string(e) + " of " + std::to_string(v.size()));
  return v[e];
}
void run(const StridedGemm& g, Operands ops) {
  for (uint32_t b = 0; b < g.batch; ++b)
    for (uint32_t j = 0; j < g.n; ++j)
      for (uint32_t i = 0; i < g.m; ++i) {
        double v = 0;
        for (uint32_t l = 0; l < g.k; ++l) {
          const uint64_t ea = g.a_off + b * g.sa + (g.ta ? l + uint64_t(i) * g.lda : i + uint64_t(l) * g.lda);
          const uint64_t eb = g.b_off + b * g.sb + (g.tb ? j + uint64_t(l) * g.ldb : l + uint64_t(j) * g.ldb);
          v += at(ops[g.a], ea) * at(ops[g.b], eb);
        }
        at(ops[g.c], g.c_off + b * g.sc + i + uint64_t(j) * g.ldc) = v;
      }
}

std::vector<double> flat(const RowMatrix<double>& m) { return std::vector<double>(m.data(), m.data() + m.size()); }

// dX and dW of one case through the descriptors and the emulator; "" when both equal the reference.
std::string check(const TableData& t, uint32_t s, uint32_t r, const std::vector<uint32_t>& types, std::mt19937_64& rng) {
  const uint32_t q = *t.slot_grid;
  const KernelPlan p = lower_table(t, std::vector<uint32_t>(q, s), std::vector<uint32_t>(q, r));
  DenseReference ref(t, std::vector<uint32_t>(q, s), std::vector<uint32_t>(q, r));
  std::vector<uint32_t> type_begin, rows;
  qalg::gpu::test::grouped_rows(types, q, type_begin, rows);
  const auto f = row_formula(rows, type_begin);
  const uint64_t M = types.size();
  const auto gx = batched_backward(p, f, M, true), gw = batched_backward(p, f, M, false);
  if (gx.size() != 2 || gw.size() != 2) return "no batched form";
  const auto X = qalg::gpu::test::integer_matrix<double>(rng, Eigen::Index(M), ref.K());
  const auto W = qalg::gpu::test::integer_matrix<double>(rng, ref.K(), ref.N());
  const auto dY = qalg::gpu::test::integer_matrix<double>(rng, Eigen::Index(M), ref.N());
  std::vector<double> x = flat(X), w = flat(W), dy = flat(dY);
  std::vector<double> dx(M * ref.K(), 1e300), dw(ref.K() * ref.N(), 1e300);  // unwritten elements show
  Operands ops{{&x, &w, &dy, &dx, &dw}};
  try {
    for (const StridedGemm& g : gx) run(g, ops);
    for (const StridedGemm& g : gw) run(g, ops);
  } catch (const std::out_of_range& e) {
    return std::string("out of bounds: ") + e.what();
  }
  if (dx != flat(ref.backward_input(dY, W, types))) return "dX differs";
  if (dw != flat(ref.backward_weight(X, dY, types))) return "dW differs";
  return "";
}

std::vector<uint32_t> cyclic(uint32_t M, uint32_t q) {
  std::vector<uint32_t> t(M);
  for (uint32_t p = 0; p < M; ++p) t[p] = p % q;
  return t;
}
std::vector<uint32_t> intervals(uint32_t M, uint32_t q) {
  std::vector<uint32_t> t(M);
  for (uint32_t p = 0; p < M; ++p) t[p] = p / (M / q);
  return t;
}

TEST(BatchedLaw, CompleteGraphLawIsRecognised) {
  for (uint32_t q : {1u, 2u, 3u, 8u}) {
    EXPECT_TRUE(diagonal_plus_row_law(lower_table(qalg::gpu::test::complete_table(q), std::vector<uint32_t>(q, 8),
                                                  std::vector<uint32_t>(q, 24))))
        << q;
  }
  // unequal widths, another law (Q_2 ⊗ Q_2), rescaled coefficients: not this form
  EXPECT_FALSE(diagonal_plus_row_law(lower_table(qalg::gpu::test::complete_table(3), {8, 8, 16}, {8, 8, 8})));
  const TableData q2 = qalg::gpu::test::complete_table(2);
  EXPECT_FALSE(diagonal_plus_row_law(lower_table(qalg::gpu::test::tensor_table(q2, q2), std::vector<uint32_t>(4, 8),
                                                 std::vector<uint32_t>(4, 8))));
  const TableData c3 = qalg::gpu::test::complete_table(3);
  std::vector<qalg::gpu::Fraction> lambda(c3.dim, {1, 1});
  lambda[0] = {2, 1};  // e_0 scaled: e_0 e_0 = 2 e_0 in the new basis, coefficient 2
  EXPECT_FALSE(diagonal_plus_row_law(lower_table(qalg::gpu::test::rescaled_table(c3, lambda),
                                                 std::vector<uint32_t>(3, 8), std::vector<uint32_t>(3, 8))));
}

// Cyclic and interval types, one row per type included, widths 1..24: dX and dW exact.
QALG_PROPERTY(BatchedLaw, EmulatedGemmsAreTheReferenceGradients) {
  std::mt19937_64 rng(seed);
  auto pick = [&](uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); };
  const uint32_t q = pick(1, 5), c = pick(1, 4), s = pick(1, 24), r = pick(1, 24);
  const auto types = rng() % 2 ? cyclic(q * c, q) : intervals(q * c, q);
  PROP_ASSERT_EQ(check(qalg::gpu::test::complete_table(q), s, r, types, rng), std::string());
}

// The Qwen3-30B expert's widths at q = 32 (s = 64, r = 24), cyclic types, 4 rows each.
TEST(BatchedLaw, ExpertShape) {
  std::mt19937_64 rng(5);
  EXPECT_EQ(check(qalg::gpu::test::complete_table(32), 64, 24, cyclic(128, 32), rng), "");
  EXPECT_EQ(check(qalg::gpu::test::complete_table(32), 24, 64, intervals(128, 32), rng), "");
}

// No closed form for the rows (uneven counts, or a shuffled order), or M not q·c: no batched form.
TEST(BatchedLaw, RowsWithoutClosedFormAreRefused) {
  const uint32_t q = 4;
  const KernelPlan p = lower_table(qalg::gpu::test::complete_table(q), std::vector<uint32_t>(q, 8),
                                   std::vector<uint32_t>(q, 8));
  std::vector<uint32_t> type_begin, rows;
  auto types = cyclic(12, q);
  std::swap(types[0], types[5]);  // row 0 becomes type 1: the grouped list no longer starts at 0
  qalg::gpu::test::grouped_rows(types, q, type_begin, rows);
  EXPECT_TRUE(batched_backward(p, row_formula(rows, type_begin), 12, true).empty());
  qalg::gpu::test::grouped_rows(cyclic(13, q), q, type_begin, rows);  // 4, 3, 3, 3 rows
  EXPECT_TRUE(batched_backward(p, row_formula(rows, type_begin), 13, false).empty());
  qalg::gpu::test::grouped_rows(cyclic(12, q), q, type_begin, rows);
  EXPECT_EQ(batched_backward(p, row_formula(rows, type_begin), 12, false).size(), 2u);
  EXPECT_TRUE(batched_backward(p, row_formula(rows, type_begin), 16, false).empty());  // M ≠ q·c
}

// ---- the forward items in closed form (LawGrid) ----
using qalg::gpu::detail::law_grid;
using qalg::gpu::detail::law_item;
using qalg::gpu::detail::law_term;
using qalg::gpu::detail::LawGrid;
using qalg::gpu::detail::Term;
using qalg::gpu::detail::WorkItem;

// "" when the items of L reproduce the reference forward of cyclic or interval rows.
std::string check_law_grid(uint32_t q, uint32_t s, uint32_t r, uint32_t c, uint32_t bm, uint32_t bn, bool by_rows, bool cyclic,
                  std::mt19937_64& rng) {
  const auto table = qalg::gpu::test::complete_table(q);
  const KernelPlan p = lower_table(table, std::vector<uint32_t>(q, s), std::vector<uint32_t>(q, r));
  if (!qalg::gpu::detail::diagonal_plus_row_law(p)) return "not the law";
  DenseReference ref(table, std::vector<uint32_t>(q, s), std::vector<uint32_t>(q, r));
  const uint32_t M = q * c;
  std::vector<uint32_t> types(M), type_begin, rows;
  for (uint32_t t = 0; t < M; ++t) types[t] = cyclic ? t % q : t / c;
  qalg::gpu::test::grouped_rows(types, q, type_begin, rows);
  const auto f = row_formula(rows, type_begin);
  if (f.c != c) return "no closed form";
  const LawGrid L = law_grid(q, s, r, c, bm, bn, by_rows);
  const auto X = qalg::gpu::test::integer_matrix<double>(rng, M, ref.K());
  const auto W = qalg::gpu::test::integer_matrix<double>(rng, ref.K(), ref.N());
  RowMatrix<double> Y = RowMatrix<double>::Constant(M, ref.N(), 1e300);
  RowMatrix<int> covered = RowMatrix<int>::Zero(M, ref.N());
  for (uint32_t idx = 0; idx < L.count(); ++idx) {
    const WorkItem w = law_item(L, idx, bm, bn);
    const uint32_t i = w.m_begin / c, j = w.n_begin / r;
    // the item's terms are the plan's B(i, j): input offsets, lengths, coefficients
    std::vector<std::pair<uint32_t, uint32_t>> got, want;
    for (uint32_t ti = 0; ti < w.term_count; ++ti) {
      const Term t = law_term(L, w, ti);
      if (t.coef != 1.0f) return "coefficient";
      got.emplace_back(t.a, t.len);
    }
    for (const auto& pt : p.B(i, j)) want.emplace_back(uint32_t(p.input_offset(pt.input_group)), s);
    std::sort(got.begin(), got.end());
    if (got != want) return "terms of item " + std::to_string(idx);
    for (uint32_t m = 0; m < w.m_count; ++m) {
      if (w.m_begin + m >= (i + 1) * c) return "rows past the type";
      const uint32_t row = (w.m_begin + m) / f.c * f.a + (w.m_begin + m) % f.c * f.b;
      for (uint32_t n = 0; n < w.n_count; ++n) {
        const uint32_t col = w.n_begin + n;
        if (col >= (j + 1) * r) return "columns past the group";
        double v = 0;
        for (uint32_t ti = 0; ti < w.term_count; ++ti) {
          const Term t = law_term(L, w, ti);
          for (uint32_t kk = 0; kk < t.len; ++kk) v += X(row, t.a + kk) * W(t.a + kk, col);
        }
        Y(row, col) = v;
        ++covered(row, col);
      }
    }
  }
  if (const std::string once = qalg::gpu::test::stored_once(covered); !once.empty()) return once;
  return qalg::gpu::test::exact_difference(Y, ref.forward(X, W, types));
}

QALG_PROPERTY(LawGrid, ItemsAreTheReferenceForward) {
  std::mt19937_64 rng(seed);
  auto pick = [&](uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); };
  const uint32_t q = pick(1, 5), s = pick(1, 12), r = pick(1, 12), c = pick(1, 9);
  const uint32_t bm = pick(1, 4), bn = pick(1, 5);
  PROP_ASSERT_EQ(check_law_grid(q, s, r, c, bm, bn, rng() % 2, rng() % 2, rng), std::string());
}

// The kernels' tiles on a Qwen3-like shape (q = 8): 64-row tiles over 80 rows per type (a partial
// one), 64/128/192-column tiles over 192-wide groups, both orders.
TEST(LawGrid, KernelTileShapes) {
  std::mt19937_64 rng(3);
  for (uint32_t bn : {64u, 128u, 192u})
    for (bool by_rows : {false, true}) EXPECT_EQ(check_law_grid(8, 16, 192, 80, 64, bn, by_rows, true, rng), "") << bn;
}

// ---- law_list_order: a built list recognised as the law's closed form (wgs_gemm.cuh kLawFirst) ----
using qalg::gpu::detail::law_list_order;
using qalg::gpu::detail::law_term_sorted;

// The forward list as DeviceBatch builds it (device_plan.cpp build_forward, then the forward_by_types
// stable sort and the descending reversal), written here from the plan: (j, column tile) outer, type
// inner, each item's terms the plan's B(i, j) in its order, coefficients from the table.
struct BuiltList {
  std::vector<WorkItem> items;
  std::vector<Term> terms;
};
BuiltList build_like_device(const KernelPlan& p, uint32_t c, uint32_t bm, uint32_t bn, bool by_types, bool descending) {
  BuiltList l;
  std::vector<uint32_t> in(p.q + 1, 0), out(p.q + 1, 0);
  for (uint32_t g = 0; g < p.q; ++g) in[g + 1] = in[g] + p.input_widths[g], out[g + 1] = out[g] + p.output_widths[g];
  for (uint32_t j = 0; j < p.q; ++j)
    for (uint32_t n0 = 0; n0 < p.output_widths[j]; n0 += bn)
      for (uint32_t i = 0; i < p.q; ++i) {
        const uint32_t t0 = uint32_t(l.terms.size());
        for (const auto& t : p.B(i, j))
          l.terms.push_back(Term{in[t.input_group], p.input_widths[t.input_group], float(t.coefficient()),
                                 t.input_group == j ? 1u : 0u});
        const uint32_t tc = uint32_t(l.terms.size()) - t0;
        for (uint32_t m0 = 0; m0 < c; m0 += bm)
          l.items.push_back(WorkItem{i * c + m0, std::min(bm, c - m0), out[j] + n0, std::min(bn, p.output_widths[j] - n0), t0,
                                     tc, 0.f, 0});
      }
  if (by_types)
    std::stable_sort(l.items.begin(), l.items.end(), [&](const WorkItem& x, const WorkItem& y) { return x.m_begin / c < y.m_begin / c; });
  if (descending) std::reverse(l.items.begin(), l.items.end());
  return l;
}
// The order law_list_order finds for the list of (q, s, r, c) in tiles bm x bn, trying both grids
// (as device_plan.cpp does); -1 where a grid other than the list's own order matched.
int recognised(const BuiltList& l, uint32_t q, uint32_t s, uint32_t r, uint32_t c, uint32_t bm, uint32_t bn, bool by_types) {
  int found = 0;
  for (bool by_rows : {false, true})
    if (const uint32_t o = law_list_order(law_grid(q, s, r, c, bm, bn, by_rows), l.items, l.terms, bm, bn)) {
      if (by_rows != by_types && found == 0) return -1;
      found = found ? found : int(o);
    }
  return found;
}

// The Qwen3-30B expert's list (q = 16, s = 128, r = 48, 128 rows per type, ws128x64) and DeepSeek-V3's
// (s = 448, r = 128, ws128x128) in each order the kernels walk: recognised, in order (1) or reversed (2);
// and each item the matcher accepts has exactly the closed form's terms (the kernel's first item).
TEST(LawListOrder, TheExpertListsAreRecognised) {
  for (auto [s, r, bn] : {std::array<uint32_t, 3>{128, 48, 64}, std::array<uint32_t, 3>{448, 128, 128}}) {
    const KernelPlan p = lower_table(qalg::gpu::test::complete_table(16), std::vector<uint32_t>(16, s), std::vector<uint32_t>(16, r));
    for (bool by_types : {false, true})
      for (bool descending : {false, true}) {
        const BuiltList l = build_like_device(p, 128, 128, bn, by_types, descending);
        EXPECT_EQ(recognised(l, 16, s, r, 128, 128, bn, by_types), descending ? 2 : 1) << s << " " << by_types << descending;
        const LawGrid L = law_grid(16, s, r, 128, 128, bn, by_types);
        for (uint32_t k = 0; k < l.items.size(); ++k) {  // independently: the item's terms are B(i, j) in the list's order
          const WorkItem c = law_item(L, descending ? uint32_t(l.items.size()) - 1 - k : k, 128, bn);
          ASSERT_EQ(c.term_count, l.items[k].term_count);
          for (uint32_t t = 0; t < c.term_count; ++t) ASSERT_EQ(law_term_sorted(L, c, t).a, l.terms[l.items[k].term_begin + t].a);
        }
      }
  }
}

// Any change to one item or term, a list of another shape, rows per type in two row tiles walked type
// outer (the sort keeps row tiles inside (j, column tile): not the grid's order), and a table other
// than the complete graph's are refused (0): a list is trusted only as it is.
TEST(LawListOrder, AnyOtherListIsRefused) {
  const KernelPlan p = lower_table(qalg::gpu::test::complete_table(4), std::vector<uint32_t>(4, 64), std::vector<uint32_t>(4, 48));
  const BuiltList base = build_like_device(p, 128, 128, 64, false, false);
  ASSERT_EQ(recognised(base, 4, 64, 48, 128, 128, 64, false), 1);
  const size_t n = base.items.size();
  for (size_t k : {size_t(0), n / 2, n - 1}) {
    for (int field = 0; field < 6; ++field) {
      BuiltList l = base;
      WorkItem& w = l.items[k];
      uint32_t* f[] = {&w.m_begin, &w.m_count, &w.n_begin, &w.n_count, &w.term_count, &w.slot};
      *f[field] += 1;
      EXPECT_EQ(recognised(l, 4, 64, 48, 128, 128, 64, false), 0) << k << " field " << field;
    }
    BuiltList l = base;
    l.items[k].diag = 1.0f;
    EXPECT_EQ(recognised(l, 4, 64, 48, 128, 128, 64, false), 0);
  }
  for (int field = 0; field < 4; ++field) {
    BuiltList l = base;
    Term& t = l.terms[l.items[n - 1].term_begin];
    if (field == 0) t.a += 64;
    if (field == 1) t.len -= 1;
    if (field == 2) t.coef = 2.0f;
    if (field == 3) t.diagonal ^= 1u;
    EXPECT_EQ(recognised(l, 4, 64, 48, 128, 128, 64, false), 0) << "term field " << field;
  }
  BuiltList swapped = base;  // two items exchanged: every item is some law item, not in the grid's order
  std::swap(swapped.items[0], swapped.items[1]);
  EXPECT_EQ(recognised(swapped, 4, 64, 48, 128, 128, 64, false), 0);
  BuiltList shorter = base;
  shorter.items.pop_back();
  EXPECT_EQ(recognised(shorter, 4, 64, 48, 128, 128, 64, false), 0);
  EXPECT_EQ(recognised(base, 4, 64, 48, 128, 64, 64, false), 0);  // other tiles, other widths
  EXPECT_EQ(recognised(base, 4, 64, 64, 128, 128, 64, false), 0);
  // 256 rows per type in 128-row tiles, type outer: the list keeps (j, tile, row tile), the grid (type, row tile, j)
  EXPECT_EQ(recognised(build_like_device(p, 256, 128, 64, true, false), 4, 64, 48, 256, 128, 64, true), 0);
  EXPECT_EQ(recognised(build_like_device(p, 256, 128, 64, false, false), 4, 64, 48, 256, 128, 64, false), 1);
  // the path quiver's table (B(i, j) not {i, j}): its list is not the law's
  const KernelPlan path = lower_table(qalg::gpu::test::quiver_table(4, {{0, 1}, {1, 2}, {2, 3}}), std::vector<uint32_t>(4, 64), std::vector<uint32_t>(4, 48));
  EXPECT_EQ(recognised(build_like_device(path, 128, 128, 64, false, false), 4, 64, 48, 128, 128, 64, false), 0);
}
}  // namespace
