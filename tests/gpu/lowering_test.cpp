// Lowering (SPEC §4): the plan's B(i, j) for graph algebras and tensor products, and the
// rejection of tables that are not slot-compatible or of bad widths.
#include <gtest/gtest.h>

#include <set>

#include "property.hpp"
#include "qalg/gpu/lowering.hpp"
#include "random_cases.hpp"

namespace qalg::gpu {
namespace {

using test::Arrow;
using test::quiver_table;

std::vector<uint32_t> groups_of(const std::vector<PlanTerm>& terms) {
  std::vector<uint32_t> k;
  for (const PlanTerm& t : terms) k.push_back(t.input_group);
  return k;
}

std::vector<uint32_t> ones(uint32_t q) { return std::vector<uint32_t>(q, 1); }

TEST(Lowering, CompleteGraphHasTheSpecSupport) {
  // Q_q: y_i = x_i W_ii; y_j = x_i W_ij + x_j W_jj (j != i), all coefficients 1.
  for (uint32_t q : {1u, 2u, 3u, 5u, 8u}) {
    KernelPlan p = lower_table(test::complete_table(q), ones(q), ones(q));
    ASSERT_EQ(p.q, q);
    for (uint32_t i = 0; i < q; ++i)
      for (uint32_t j = 0; j < q; ++j) {
        std::vector<uint32_t> expected = i == j ? std::vector<uint32_t>{i}
                                                : std::vector<uint32_t>{std::min(i, j), std::max(i, j)};
        EXPECT_EQ(groups_of(p.B(i, j)), expected) << "q=" << q << " i=" << i << " j=" << j;
        for (const PlanTerm& t : p.B(i, j)) EXPECT_TRUE(t.num == 1 && t.den == 1);
      }
    for (size_t b = 0; b < p.block_used.size(); ++b) EXPECT_EQ(p.block_used[b], 1);
  }
}

TEST(Lowering, MissingArrowsGiveEmptyOutputGroupsAndUnusedBlocks) {
  // path 0 -> 1 -> 2: slot (0,2) has no basis element, so type 0 writes nothing to y_2.
  KernelPlan p = lower_table(quiver_table(3, {{0, 1}, {1, 2}}), ones(3), ones(3));
  EXPECT_TRUE(p.B(0, 2).empty());
  EXPECT_EQ(groups_of(p.B(0, 1)), (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(groups_of(p.B(2, 2)), (std::vector<uint32_t>{2}));
  EXPECT_TRUE(p.B(2, 0).empty() && p.B(2, 1).empty());
  EXPECT_EQ(p.block_used[0 * 3 + 2], 0);  // W_02 does not exist
  EXPECT_EQ(p.block_used[1 * 3 + 0], 0);  // no arrow 1 -> 0
  EXPECT_EQ(p.block_used[1 * 3 + 2], 1);
}

// SPEC §4 for Q_2^{⊗L}: B(α, δ) = { β : β_k ∈ {α_k, δ_k} for every bit k }, groups as L-bit strings.
TEST(Lowering, TensorPowersOfQ2HaveTheBitwiseSupport) {
  TableData t = test::complete_table(2);
  for (uint32_t L = 1; L <= 4; ++L) {
    const uint32_t q = 1u << L;
    KernelPlan p = lower_table(t, ones(q), ones(q));
    for (uint32_t alpha = 0; alpha < q; ++alpha)
      for (uint32_t delta = 0; delta < q; ++delta) {
        std::vector<uint32_t> expected;
        for (uint32_t beta = 0; beta < q; ++beta) {
          bool ok = true;
          for (uint32_t k = 0; k < L; ++k) {
            uint32_t b = (beta >> k) & 1, a = (alpha >> k) & 1, d = (delta >> k) & 1;
            ok = ok && (b == a || b == d);
          }
          if (ok) expected.push_back(beta);
        }
        EXPECT_EQ(groups_of(p.B(alpha, delta)), expected) << "L=" << L << " α=" << alpha << " δ=" << delta;
      }
    t = test::tensor_table(t, test::complete_table(2));
  }
}

// Law: lowering commutes with ⊗: B_{A⊗B}((a,a'),(d,d')) = B_A(a,d) × B_B(a',d'), coefficients
// multiplied, input group (b, b') -> b q' + b'.
QALG_PROPERTY(Lowering, TensorProductOfPlansIsPlanOfTensorProduct) {
  std::mt19937_64 rng(seed);
  std::string what;
  TableData A = test::random_slot_table(rng, what), B = test::random_slot_table(rng, what);
  if (A.dim * B.dim > 400) return;
  const uint32_t qa = *A.slot_grid, qb = *B.slot_grid;
  KernelPlan pa = lower_table(A, ones(qa), ones(qa)), pb = lower_table(B, ones(qb), ones(qb));
  KernelPlan pt = lower_table(test::tensor_table(A, B), ones(qa * qb), ones(qa * qb));
  for (uint32_t a = 0; a < qa; ++a)
    for (uint32_t a2 = 0; a2 < qb; ++a2)
      for (uint32_t d = 0; d < qa; ++d)
        for (uint32_t d2 = 0; d2 < qb; ++d2) {
          std::set<std::tuple<uint32_t, int64_t, int64_t>> expected, got;
          for (const PlanTerm& x : pa.B(a, d))
            for (const PlanTerm& y : pb.B(a2, d2)) {
              Fraction c = multiply({x.num, x.den}, {y.num, y.den});
              expected.insert({x.input_group * qb + y.input_group, c.num, c.den});
            }
          for (const PlanTerm& t : pt.B(a * qb + a2, d * qb + d2)) got.insert({t.input_group, t.num, t.den});
          PROP_ASSERT(got == expected);
        }
}

TEST(Lowering, RejectsALoop) {
  try {
    lower_table(quiver_table(2, {{0, 1}, {1, 1}}), ones(2), ones(2));
    FAIL() << "a loop was lowered";
  } catch (const std::invalid_argument& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("slot (1,1) holds two basis elements"), std::string::npos) << m;
    EXPECT_NE(m.find("'e1'"), std::string::npos) << m;
  }
}

TEST(Lowering, RejectsParallelArrows) {
  try {
    lower_table(quiver_table(2, {{0, 1}, {0, 1}}), ones(2), ones(2));
    FAIL() << "parallel arrows were lowered";
  } catch (const std::invalid_argument& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("slot (0,1) holds two basis elements, 'a0_0_1' and 'a1_0_1'"), std::string::npos) << m;
  }
}

TEST(Lowering, RejectsAProductInTheWrongSlot) {
  TableData t = quiver_table(2, {{0, 1}, {1, 0}});  // e0 e1 a01 a10
  t.entries.push_back({2, 3, 2, 1, 1});              // a01 · a10 := a01, but (0,1)(1,0) -> (0,0)
  try {
    lower_table(t, ones(2), ones(2));
    FAIL() << "a corrupted product was lowered";
  } catch (const std::invalid_argument& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("'a0_0_1'·'a1_1_0' has a component on 'a0_0_1' in slot (0,1), expected slot (0,0)"),
              std::string::npos) << m;
  }
}

TEST(Lowering, RejectsAProductOfSlotsThatDoNotChain) {
  TableData t = quiver_table(2, {{0, 1}});  // e0 e1 a
  t.entries.push_back({2, 2, 2, 1, 1});     // a · a := a, but (0,1)(0,1) does not chain
  try {
    lower_table(t, ones(2), ones(2));
    FAIL() << "a non-chaining product was lowered";
  } catch (const std::invalid_argument& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("slots (0,1) and (0,1) do not chain"), std::string::npos) << m;
  }
}

TEST(Lowering, RejectsMissingSlotsWrongFieldAndBadWidths) {
  TableData t = test::complete_table(2);
  TableData no_slots = t;
  no_slots.slot_grid.reset();
  no_slots.slots.clear();
  EXPECT_THROW(lower_table(no_slots, ones(2), ones(2)), std::invalid_argument);
  TableData gf = t;
  gf.field = "GF(3)";
  EXPECT_THROW(lower_table(gf, ones(2), ones(2)), std::invalid_argument);
  EXPECT_THROW(lower_table(t, ones(3), ones(2)), std::invalid_argument);
  EXPECT_THROW(lower_table(t, ones(2), ones(1)), std::invalid_argument);
  EXPECT_THROW(lower_table(t, {1, 0}, ones(2)), std::invalid_argument);
  EXPECT_THROW(lower_table(t, ones(2), {0, 4}), std::invalid_argument);
  TableData outside = t;
  outside.slots[3] = {1, 2};
  EXPECT_THROW(lower_table(outside, ones(2), ones(2)), std::invalid_argument);
}

TEST(Widths, ParsesListsRepeatsAndSingleNumbers) {
  EXPECT_EQ(parse_widths("64,64", 2, "--widths"), (std::vector<uint32_t>{64, 64}));
  EXPECT_EQ(parse_widths("64x2", 2, "--widths"), (std::vector<uint32_t>{64, 64}));
  EXPECT_EQ(parse_widths("48", 3, "--widths"), (std::vector<uint32_t>{48, 48, 48}));
  EXPECT_EQ(parse_widths("8x2,16,4", 4, "--widths"), (std::vector<uint32_t>{8, 8, 16, 4}));
  EXPECT_EQ(parse_widths("7", 1, "--widths"), (std::vector<uint32_t>{7}));
}

TEST(Widths, RejectsMalformedText) {
  for (const char* bad : {"", "64,", ",64", "64,0", "0", "-1", "64x", "x2", "64x0", "64,64,64",
                          "64x3", "a,b", "64 ,64", "99999999999", "64x99999999999", "1.5,2"}) {
    try {
      parse_widths(bad, 2, "--widths");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).rfind("--widths '", 0), 0u) << e.what();
    }
  }
  EXPECT_THROW(parse_widths("64x1", 2, "--widths"), std::invalid_argument);
}

}  // namespace
}  // namespace qalg::gpu
