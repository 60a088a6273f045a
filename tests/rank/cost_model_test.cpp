// SPEC §4 cost numbers, computed from the block support and checked against the closed formulas.
#include <numeric>
#include <set>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/tensor_product.hpp"
#include "qalg/rank/cost_model.hpp"
#include "rank_test_support.hpp"

namespace qalg {
namespace {

BlockSupport complete(uint32_t q) {
  return block_support(testing::graph_table("complete:" + std::to_string(q)));
}
BlockSupport recursive(unsigned L) {
  return block_support(tensor_power(testing::graph_table("complete:2"), L));
}

TEST(BlockSupport, CompleteGraphRowActionIsDiagonalPlusSource) {
  // SPEC §4: y_i = x_i W_ii, y_j = x_i W_ij + x_j W_jj.
  BlockSupport s = complete(4);
  for (uint32_t i = 0; i < 4; ++i)
    for (uint32_t j = 0; j < 4; ++j) {
      std::set<uint32_t> ks;
      for (const auto& term : s.B(i, j)) {
        ks.insert(term.k);
        EXPECT_TRUE(term.coefficient.is_one());
      }
      EXPECT_EQ(ks, (i == j ? std::set<uint32_t>{i} : std::set<uint32_t>{i, j}));
    }
}

TEST(CostModel, RhoOfCompleteGraphsIsTwoQMinusOneOverQSquared) {
  EXPECT_EQ(equal_width_fraction(complete(2)), Rational(3, 4));
  EXPECT_EQ(equal_width_fraction(complete(4)), Rational(7, 16));
  for (uint32_t q = 2; q <= 32; ++q)
    EXPECT_EQ(equal_width_fraction(complete(q)), Rational(2 * q - 1, q * q)) << q;
}

TEST(CostModel, RecursiveTensorPowersFollowTheThreeQuartersLaw) {
  EXPECT_EQ(equal_width_fraction(recursive(2)), Rational(9, 16));
  for (unsigned L = 1; L <= 4; ++L) {
    SCOPED_TRACE(L);
    BlockSupport s = recursive(L);
    uint64_t six = 1, three = 1, four = 1;
    for (unsigned k = 0; k < L; ++k) six *= 6, three *= 3, four *= 4;
    EXPECT_EQ(s.q, 1u << L);
    EXPECT_EQ(s.block_products(), six);  // 36 at L = 2
    for (uint32_t alpha = 0; alpha < s.q; ++alpha) {
      EXPECT_EQ(s.block_products_of_type(alpha), three);
      EXPECT_EQ(type_block_fraction(s, alpha), ratio(three, four));
    }
    EXPECT_EQ(equal_width_fraction(s), ratio(three, four));
  }
}

rc::Gen<std::vector<uint64_t>> widths(uint32_t q) {
  return rc::gen::container<std::vector<uint64_t>>(q, rc::gen::inRange<uint64_t>(1, 50));
}
uint64_t total(const std::vector<uint64_t>& v) { return std::accumulate(v.begin(), v.end(), uint64_t{0}); }

RC_GTEST_PROP(CostModel, UnequalWidthsGiveDiagonalPlusSourceRow, ()) {
  uint32_t q = *rc::gen::inRange<uint32_t>(1, 9);
  auto s_w = *widths(q), r_w = *widths(q);
  BlockSupport s = complete(q);
  GroupWidths w = group_widths(q, total(s_w), total(r_w), s_w, r_w);
  uint64_t d_diag = 0;
  for (uint32_t j = 0; j < q; ++j) d_diag += s_w[j] * r_w[j];
  for (uint32_t i = 0; i < q; ++i)
    RC_ASSERT(type_macs(s, w, i) == d_diag + s_w[i] * (total(r_w) - r_w[i]));
}

RC_GTEST_PROP(CostModel, RecursiveRowCountsMatchTheBitStringFormula, ()) {
  // Paper App. C: C_α = Σ_δ Σ_{β: β_k ∈ {α_k, δ_k}} s_β r_δ.
  unsigned L = *rc::gen::inRange(1u, 4u);
  uint32_t q = 1u << L;
  auto s_w = *widths(q), r_w = *widths(q);
  BlockSupport s = recursive(L);
  GroupWidths w = group_widths(q, total(s_w), total(r_w), s_w, r_w);
  for (uint32_t alpha = 0; alpha < q; ++alpha) {
    uint64_t expect = 0;
    for (uint32_t delta = 0; delta < q; ++delta)
      for (uint32_t beta = 0; beta < q; ++beta) {
        // β_k ∈ {α_k, δ_k} for every bit k: β agrees with α wherever α and δ agree.
        uint32_t agree = ~(alpha ^ delta) & (q - 1);
        if ((beta & agree) == (alpha & agree)) expect += s_w[beta] * r_w[delta];
      }
    RC_ASSERT(type_macs(s, w, alpha) == expect);
  }
}

TEST(CostModel, EqualWidthProjectionIsRhoMKNAndTrainingThreeTimes) {
  for (uint32_t q : {2u, 4u, 8u}) {
    BlockSupport s = complete(q);
    const uint64_t M = 96, K = 64, N = 128;  // q divides all three
    ProjectionCost c = projection_cost(s, group_widths(q, K, N, {}, {}), cyclic_type_rows(M, q));
    EXPECT_EQ(c.dense, M * K * N);
    EXPECT_EQ(c.fraction, Rational(2 * q - 1, q * q));
    EXPECT_EQ(c.forward * q * q, (2 * q - 1) * M * K * N);
    EXPECT_EQ(c.training, 3 * c.forward);
    EXPECT_EQ(c.dense_training, 3 * M * K * N);
  }
}

TEST(CostModel, GatedFfnTrainingIsNineRhoBDF) {
  for (BlockSupport s : {complete(4), recursive(2)}) {
    const uint64_t B = 64, D = 128, F = 256;
    FfnCost c = gated_ffn_training(s, B, D, F);
    EXPECT_EQ(c.dense_training, 9 * B * D * F);
    EXPECT_EQ(ratio(c.training, c.dense_training), equal_width_fraction(s));
  }
}

TEST(CostModel, PilotProjectionFractionIsFiftyNineEightieths) {
  // H_q = H_kv = D, F = 2D, g = 2, ρ = 9/16 (Q_2^{⊗2}): (4D² + (9/16)·6D²) / 10D² = 59/80.
  for (uint64_t D : {64u, 512u, 768u})
    EXPECT_EQ(decode_projection_fraction(recursive(2), D, D, D, 2 * D, 2), Rational(59, 80));
}

TEST(CostModel, AttentionScoreCeilings) {
  AttentionCeilings q4 = attention_ceilings(complete(4));
  EXPECT_EQ(q4.score_fraction, Rational(7, 16));
  EXPECT_EQ(q4.forward, Rational(32, 23));
  EXPECT_EQ(q4.training, Rational(28, 19));
  EXPECT_NEAR(fmpq_get_d(q4.forward.get()), 1.391, 5e-4);
  EXPECT_NEAR(fmpq_get_d(q4.training.get()), 1.474, 5e-4);
  AttentionCeilings r2 = attention_ceilings(recursive(2));
  EXPECT_NEAR(fmpq_get_d(r2.forward.get()), 1.280, 5e-4);
  EXPECT_NEAR(fmpq_get_d(r2.training.get()), 1.333, 5e-4);
  // Closed forms 2/(1+ρ) and 7/(3+4ρ) for every complete graph.
  for (slong q = 2; q <= 16; ++q) {
    AttentionCeilings a = attention_ceilings(complete(static_cast<uint32_t>(q)));
    EXPECT_EQ(a.forward, Rational(2 * q * q, static_cast<ulong>(q * q + 2 * q - 1)));
    EXPECT_EQ(a.training, Rational(7 * q * q, static_cast<ulong>(3 * q * q + 8 * q - 4)));
  }
}

TEST(CostModel, SquareProductsAreQuadraticAtFixedBlockSize) {
  // C(n, q) = (2q² − q)(n/q)³ = 2bn² − b²n, n = q·b.
  for (uint32_t q : {2u, 4u, 8u, 16u})
    for (uint64_t b : {1u, 7u, 128u}) {
      uint64_t n = q * b;
      EXPECT_EQ(square_product_macs(complete(q), b), 2 * b * n * n - b * b * n);
    }
}

TEST(CostModel, CrossoverNeedsRhoOverEtaPlusDeltaBelowOne) {
  EXPECT_TRUE(crossover_wins(7.0 / 16, 0.8, 0.2));    // 0.547 + 0.2 < 1
  EXPECT_FALSE(crossover_wins(7.0 / 16, 0.5, 0.2));   // 0.875 + 0.2 > 1
  EXPECT_DOUBLE_EQ(crossover_margin(0.5, 1.0, 0.25), 0.25);
  EXPECT_THROW(crossover_margin(0.5, 0.0, 0.1), InputError);
}

TEST(CostModel, SchedulesCountRowsPerType) {
  EXPECT_EQ(cyclic_type_rows(10, 4), (std::vector<uint64_t>{3, 3, 2, 2}));
  // The pilot: q = 4, L = 192, period 768.
  EXPECT_EQ(interval_type_rows(1536, 4, 192), (std::vector<uint64_t>{384, 384, 384, 384}));
  EXPECT_EQ(interval_type_rows(768 + 200, 4, 192), (std::vector<uint64_t>{384, 200, 192, 192}));
}

TEST(CostModel, NonCompleteGraphsLeaveMissingOutputSlotsEmpty) {
  // path:3 = 0→1→2: slots (0,1), (1,2) exist, (0,2) does not, so a type-0 row has no y_2.
  BlockSupport s = block_support(testing::graph_table("path:3"));
  EXPECT_TRUE(s.B(0, 2).empty());
  GroupWidths w = group_widths(3, 3, 3, {}, {});
  EXPECT_EQ(type_macs(s, w, 0), 1u + 2u);  // y_0 = x_0 W_00, y_1 = x_0 W_01 + x_1 W_11
  EXPECT_EQ(type_macs(s, w, 2), 1u);       // y_2 = x_2 W_22
}

TEST(CostModel, BadInputIsRejected) {
  EXPECT_THROW(group_widths(4, 10, 8, {}, {}), InputError);            // 4 ∤ 10
  EXPECT_THROW(group_widths(2, 10, 8, {3, 6}, {}), InputError);        // adds up to 9
  EXPECT_THROW(group_widths(2, 10, 8, {4, 4, 2}, {}), InputError);     // three widths for q = 2
  EXPECT_THROW(group_widths(2, 10, 8, {}, {0, 8}), InputError);        // zero width
  // Loops and parallel arrows put two basis elements in one slot.
  try {
    block_support(graph_algebra(parse_edge_list("1 1\n", "loop"), Field::rationals()));
    ADD_FAILURE() << "loop accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("share slot"), std::string::npos) << e.what();
  }
  StructureTensor no_slots(Field::rationals(), {"b"});
  no_slots.add(0, 0, 0, Rational(1));
  no_slots.finalize();
  EXPECT_THROW(block_support(no_slots), InputError);
}

}  // namespace
}  // namespace qalg
