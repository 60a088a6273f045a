// NaN and Inf: a non-finite weight reaches exactly the outputs whose blocks use it, in the plan
// executor and in the dense reference alike; a non-finite x_k reaches the output groups j with
// k ∈ B(i, j) (absent blocks are structural zeros), while the dense GEMM also spreads it through
// stored zeros (0·NaN) — the rule below states both exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "property.hpp"
#include "qalg/gpu/dense_reference.hpp"
#include "qalg/gpu/lowering.hpp"
#include "qalg/gpu/plan_executor.hpp"
#include "random_cases.hpp"

namespace qalg::gpu {
namespace {

uint32_t group_of(const std::vector<uint32_t>& widths, Eigen::Index col) {
  uint32_t g = 0;
  for (Eigen::Index end = widths[0]; col >= end; end += widths[++g]) {
  }
  return g;
}

QALG_PROPERTY(NonFinite, WeightsPropagateLikeTheReference) {
  test::RandomCase c = test::random_case(seed);
  if (c.types.empty()) return;
  KernelPlan plan = lower_table(c.table, c.s, c.r);
  DenseReference ref(c.table, c.s, c.r);
  std::mt19937_64 rng(seed ^ 0xC2B2AE35);
  RowMatrix<double> X = test::integer_matrix<double>(rng, Eigen::Index(c.types.size()), ref.K());
  RowMatrix<double> W = test::integer_matrix<double>(rng, ref.K(), ref.N());
  const double specials[] = {std::numeric_limits<double>::quiet_NaN(),
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity()};
  for (int n = 0; n < 2; ++n) W(rng() % W.rows(), rng() % W.cols()) = specials[rng() % 3];
  PROP_ASSERT_EQ(test::exact_difference(plan_forward(plan, X, W, c.types), ref.forward(X, W, c.types)), "");
  RowMatrix<double> dY = test::integer_matrix<double>(rng, X.rows(), ref.N());
  PROP_ASSERT_EQ(test::exact_difference(plan_backward_input(plan, dY, W, c.types),
                                        ref.backward_input(dY, W, c.types)), "");
}

QALG_PROPERTY(NonFinite, InputsReachExactlyTheStructuralOutputs) {
  test::RandomCase c = test::random_case(seed);
  if (c.types.empty()) return;
  KernelPlan plan = lower_table(c.table, c.s, c.r);
  DenseReference ref(c.table, c.s, c.r);
  std::mt19937_64 rng(seed ^ 0x27D4EB2F);
  // Nonzero weights, so a NaN can only vanish through a structural zero.
  RowMatrix<double> X = test::integer_matrix<double>(rng, Eigen::Index(c.types.size()), ref.K());
  RowMatrix<double> W = (test::integer_matrix<double>(rng, ref.K(), ref.N()).cwiseAbs().array() + 1.0).matrix();
  const Eigen::Index row = Eigen::Index(rng() % X.rows()), col = Eigen::Index(rng() % X.cols());
  X(row, col) = std::numeric_limits<double>::quiet_NaN();
  const uint32_t k = group_of(c.s, col), type = c.types[row];
  auto pattern = ref.block_pattern(type);
  RowMatrix<double> got = plan_forward(plan, X, W, c.types);
  RowMatrix<double> dense = ref.forward(X, W, c.types);
  RowMatrix<double> X0 = X;
  X0(row, col) = 0.0;
  RowMatrix<double> clean = ref.forward(X0, W, c.types);
  for (Eigen::Index r = 0; r < got.rows(); ++r)
    for (Eigen::Index j = 0; j < got.cols(); ++j) {
      bool structural = r == row && pattern(k, group_of(c.r, j)) != 0;
      PROP_ASSERT_EQ(bool(std::isnan(got(r, j))), structural);
      if (structural) PROP_ASSERT(std::isnan(dense(r, j)));
      else PROP_ASSERT_EQ(got(r, j), clean(r, j));
      if (r == row) PROP_ASSERT(std::isnan(dense(r, j)));  // the dense GEMM: 0·NaN = NaN
    }
}

TEST(NonFinite, InfinityTimesAnAbsentBlockStaysOutOfTheExecutor) {
  // complete:2, type 0: y_1 = x_0 W_01 + x_1 W_11, y_0 = x_0 W_00 — an Inf in x_1 never reaches y_0.
  KernelPlan plan = lower_table(test::complete_table(2), {1, 1}, {1, 1});
  RowMatrix<double> X(1, 2), W(2, 2);
  X << 1.0, std::numeric_limits<double>::infinity();
  W << 2.0, 3.0, 5.0, 7.0;
  RowMatrix<double> y = plan_forward(plan, X, W, {0});
  EXPECT_EQ(y(0, 0), 2.0);
  EXPECT_EQ(y(0, 1), std::numeric_limits<double>::infinity());
}

}  // namespace
}  // namespace qalg::gpu
