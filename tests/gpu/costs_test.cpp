// MAC counts (SPEC §4): the plan's C_i and the MACs the executor actually performs, against the
// closed forms ρ_q = (2q−1)/q², (3/4)^L for Q_2^{⊗L}, C_i = D_diag + s_i(N − r_i), the square
// product (2q² − q) b³ = 2bn² − b²n, training = 3 × forward and the FFN's 3ρ·B·D·F.
#include <gtest/gtest.h>

#include "property.hpp"
#include "qalg/gpu/lowering.hpp"
#include "qalg/gpu/plan_costs.hpp"
#include "qalg/gpu/plan_executor.hpp"
#include "random_cases.hpp"

namespace qalg::gpu {
namespace {

uint64_t ipow(uint64_t b, unsigned e) {
  uint64_t r = 1;
  while (e--) r *= b;
  return r;
}

TEST(Costs, CompleteGraphDensityIsRhoQ) {
  for (uint32_t q : {1u, 2u, 3u, 4u, 7u, 8u, 16u, 32u}) {
    const uint32_t b = 3;
    KernelPlan p = lower_table(test::complete_table(q), std::vector<uint32_t>(q, b), std::vector<uint32_t>(q, b));
    uint64_t sum = 0;
    for (uint32_t i = 0; i < q; ++i) {
      EXPECT_EQ(p.macs_per_row(i), uint64_t(b) * b * (2 * q - 1)) << "q=" << q;
      sum += p.macs_per_row(i);
    }
    // Σ_i C_i / (q K N) = (2q − 1)/q², compared as integers.
    EXPECT_EQ(sum * q * q, uint64_t(2 * q - 1) * q * p.K() * p.N()) << "q=" << q;
    EXPECT_DOUBLE_EQ(balanced_density(p), double(2 * q - 1) / double(q * q));
  }
  EXPECT_DOUBLE_EQ(balanced_density(lower_table(test::complete_table(2), {8, 8}, {8, 8})), 0.75);
  EXPECT_DOUBLE_EQ(balanced_density(lower_table(test::complete_table(4), {8, 8, 8, 8}, {8, 8, 8, 8})), 7.0 / 16);
}

TEST(Costs, TensorPowersOfQ2AreThreeQuartersToTheL) {
  TableData t = test::complete_table(2);
  for (unsigned L = 1; L <= 4; ++L) {
    const uint32_t q = uint32_t(ipow(2, L));
    KernelPlan p = lower_table(t, std::vector<uint32_t>(q, 2), std::vector<uint32_t>(q, 5));
    uint64_t sum = 0;
    for (uint32_t i = 0; i < q; ++i) {
      // per token: 3^L of the 4^L blocks (SPEC §4 recursive law)
      EXPECT_EQ(p.macs_per_row(i), ipow(3, L) * 2 * 5) << "L=" << L;
      sum += p.macs_per_row(i);
    }
    EXPECT_EQ(sum * ipow(4, L), ipow(3, L) * q * p.K() * p.N()) << "L=" << L;
    // the full table: 6^L nonzero block products (36 at L = 2)
    uint64_t products = 0;
    for (const auto& terms : p.terms) products += terms.size();
    EXPECT_EQ(products, ipow(6, L)) << "L=" << L;
    t = test::tensor_table(t, test::complete_table(2));
  }
}

QALG_PROPERTY(Costs, UnequalWidthsFollowTheClosedForm) {
  std::mt19937_64 rng(seed);
  const uint32_t q = 1 + uint32_t(rng() % 6);
  std::vector<uint32_t> s(q), r(q);
  for (uint32_t g = 0; g < q; ++g) {
    s[g] = 1 + uint32_t(rng() % 50);
    r[g] = 1 + uint32_t(rng() % 50);
  }
  KernelPlan p = lower_table(test::complete_table(q), s, r);
  uint64_t d_diag = 0;
  for (uint32_t j = 0; j < q; ++j) d_diag += uint64_t(s[j]) * r[j];
  for (uint32_t i = 0; i < q; ++i) PROP_ASSERT_EQ(p.macs_per_row(i), d_diag + s[i] * (p.N() - r[i]));
}

// The executor's own count of multiply-accumulates equals the plan's, for forward, dX and dW
// (training = 3 × forward) and for the square product.
QALG_PROPERTY(Costs, ExecutorPerformsExactlyThePlannedMacs) {
  test::RandomCase c = test::random_case(seed);
  KernelPlan p = lower_table(c.table, c.s, c.r);
  std::mt19937_64 rng(seed);
  const Eigen::Index M = Eigen::Index(c.types.size());
  RowMatrix<double> X = test::integer_matrix<double>(rng, M, p.K());
  RowMatrix<double> W = test::integer_matrix<double>(rng, p.K(), p.N());
  RowMatrix<double> dY = test::integer_matrix<double>(rng, M, p.N());
  uint64_t fwd = 0, dx = 0, dw = 0, sq = 0;
  plan_forward(p, X, W, c.types, &fwd);
  plan_backward_input(p, dY, W, c.types, &dx);
  plan_backward_weight(p, X, dY, c.types, &dw);
  PROP_ASSERT_EQ(fwd, forward_macs(p, c.types));
  PROP_ASSERT_EQ(fwd + dx + dw, 3 * forward_macs(p, c.types));
  RowMatrix<double> A = test::integer_matrix<double>(rng, p.K(), p.K());
  plan_square_product(p, A, W, &sq);
  PROP_ASSERT_EQ(sq, square_product_macs(p));
}

TEST(Costs, SquareProductsAreQuadraticAtFixedBlockSize) {
  for (uint32_t q : {1u, 2u, 4u, 8u, 16u}) {
    const uint64_t b = 4, n = q * b;
    KernelPlan p = lower_table(test::complete_table(q), std::vector<uint32_t>(q, b), std::vector<uint32_t>(q, b));
    EXPECT_EQ(square_product_macs(p), (2 * q * q - q) * b * b * b) << "q=" << q;
    EXPECT_EQ(square_product_macs(p), 2 * b * n * n - b * b * n) << "q=" << q;
  }
  // and the executor agrees at q = 4
  KernelPlan p = lower_table(test::complete_table(4), {4, 4, 4, 4}, {4, 4, 4, 4});
  RowMatrix<double> A = RowMatrix<double>::Ones(16, 16);
  uint64_t macs = 0;
  plan_square_product(p, A, A, &macs);
  EXPECT_EQ(macs, 28u * 64u);
}

TEST(Costs, GatedFfnIsThreeRhoBDF) {
  for (uint32_t q : {2u, 4u, 8u}) {
    const uint64_t D = 8 * q, F = 24 * q, B = 5 * q;  // cyclic types, B a multiple of q
    KernelPlan up = lower_table(test::complete_table(q), std::vector<uint32_t>(q, D / q),
                                std::vector<uint32_t>(q, F / q));
    KernelPlan down = lower_table(test::complete_table(q), std::vector<uint32_t>(q, F / q),
                                  std::vector<uint32_t>(q, D / q));
    std::vector<uint32_t> types = TypeSchedule::cyclic(q).row_types(B);
    RowMatrix<double> X = RowMatrix<double>::Ones(B, D), Wup = RowMatrix<double>::Ones(D, F);
    RowMatrix<double> Wd = RowMatrix<double>::Ones(F, D);
    uint64_t macs = 0;
    plan_gated_ffn(up, down, X, Wup, Wup, Wd, types, &macs);
    EXPECT_EQ(macs * q * q, 3 * (2 * q - 1) * B * D * F) << "q=" << q;  // 3ρ·B·D·F
  }
}

}  // namespace
}  // namespace qalg::gpu
