// Explicit algorithms verify exactly; corruption is caught at the right coordinate (SPEC §3).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "qalg/algebra/tensor_product.hpp"
#include "qalg/rank/algorithms.hpp"
#include "rank_test_support.hpp"

namespace qalg {
namespace {

using testing::coefficient_of;
using testing::graph_table;

TEST(CanonicalAlgorithm, CompleteGraphOnTwoVerticesHasSixVerifiedTerms) {
  StructureTensor t = graph_table("complete:2");
  BilinearAlgorithm alg = canonical_graph_algorithm(t);
  EXPECT_EQ(alg.length(), 6u);
  EXPECT_TRUE(verify_algorithm(alg, t).verified);
}

RC_GTEST_PROP(CanonicalAlgorithm, VerifiesOnRandomQuiversWithLoopsAndParallelArrows, ()) {
  Quiver q = *verify::gen_quiver();
  for (const Field& f : {Field::rationals(), Field::prime(2), Field::prime(7)}) {
    StructureTensor t = graph_algebra(q, f);
    BilinearAlgorithm from_quiver = canonical_graph_algorithm(q, f);
    RC_ASSERT(from_quiver.length() == q.vertex_count() + 2 * q.arrow_count());
    RC_ASSERT(verify_algorithm(from_quiver, t).verified);
    // The table's own description yields the same algorithm.
    BilinearAlgorithm from_table = canonical_graph_algorithm(t);
    RC_ASSERT(from_table.length() == from_quiver.length());
    RC_ASSERT(verify_algorithm(from_table, t).verified);
  }
}

RC_GTEST_PROP(ProductAlgorithm, VerifiesOnRandomTablesWithOneTermPerNonzeroProduct, ()) {
  StructureTensor t = *testing::random_table();
  BilinearAlgorithm alg = product_algorithm(t);
  RC_ASSERT(verify_algorithm(alg, t).verified);
  size_t nonzero_products = 0;
  for (uint32_t i = 0; i < t.dim(); ++i)
    for (uint32_t j = 0; j < t.dim(); ++j) nonzero_products += !t.product(i, j).empty();
  RC_ASSERT(alg.length() == nonzero_products);
}

RC_GTEST_PROP(ProductAlgorithm, CoincidesInLengthWithCanonicalOnGraphAlgebras, ()) {
  Quiver q = *verify::gen_quiver();
  StructureTensor t = graph_algebra(q, Field::rationals());
  RC_ASSERT(product_algorithm(t).length() == canonical_graph_algorithm(q, t.field()).length());
}

RC_GTEST_PROP(TensorProductAlgorithm, OfVerifiedAlgorithmsVerifiesAgainstTheTensorProduct, ()) {
  StructureTensor a = graph_algebra(*verify::gen_quiver({.max_vertices = 3, .max_arrows = 4}), Field::rationals());
  StructureTensor b = *testing::random_table(3, 8);
  BilinearAlgorithm alg_a = canonical_graph_algorithm(a), alg_b = product_algorithm(b);
  BilinearAlgorithm alg = tensor_product_algorithm(alg_a, alg_b);
  RC_ASSERT(alg.length() == alg_a.length() * alg_b.length());
  RC_ASSERT(verify_algorithm(alg, tensor_product(a, b)).verified);
  RC_ASSERT(verify_algorithm(tensor_product_algorithm(alg_b, alg_a), tensor_product(b, a)).verified);
}

TEST(TensorProductAlgorithm, SquareOfCompleteTwoHasThirtySixTerms) {
  StructureTensor q2 = graph_table("complete:2");
  BilinearAlgorithm alg = tensor_product_algorithm(canonical_graph_algorithm(q2),
                                                   canonical_graph_algorithm(q2));
  EXPECT_EQ(alg.length(), 36u);
  EXPECT_TRUE(verify_algorithm(alg, tensor_power(q2, 2)).verified);
}

// Every term of the canonical algorithm has nonzero α, β, γ, so changing one coefficient by
// δ ≠ 0 changes Σ α⊗β⊗γ by δ·(b_x* ⊗ β ⊗ γ) (or the analogue) ≠ 0.
RC_GTEST_PROP(Verification, CorruptingOneCoefficientFailsAtARealFirstDifference, ()) {
  Quiver q = *verify::gen_quiver({.max_vertices = 4, .max_arrows = 6});
  const bool over_q = *rc::gen::arbitrary<bool>();
  Field f = over_q ? Field::rationals() : Field::prime(5);
  StructureTensor t = graph_algebra(q, f);
  BilinearAlgorithm alg = canonical_graph_algorithm(q, f);
  size_t l = *rc::gen::inRange<size_t>(0, alg.length());
  int part = *rc::gen::inRange(0, 3);
  SparseVector& v = part == 0 ? alg.terms[l].alpha : part == 1 ? alg.terms[l].beta : alg.terms[l].gamma;
  uint32_t index = *rc::gen::inRange<uint32_t>(0, static_cast<uint32_t>(t.dim()));
  Rational delta = over_q ? *verify::gen_scalar(f) : Rational(*rc::gen::inRange(1, 5));
  RC_PRE(!delta.is_zero());
  v.emplace_back(index, delta);
  normalize(alg);

  VerificationResult r = verify_algorithm(alg, t);
  RC_ASSERT(!r.verified);
  RC_ASSERT(r.mismatch.has_value());
  const auto& m = *r.mismatch;
  RC_ASSERT(m.table_value == t.coefficient(m.i, m.j, m.k));
  RC_ASSERT(m.algorithm_value == coefficient_of(alg, m.i, m.j, m.k));
  RC_ASSERT(m.algorithm_value != m.table_value);
  // First in (i, j, k) order: every earlier coordinate agrees.
  for (uint32_t i = 0; i <= m.i; ++i)
    for (uint32_t j = 0; j < t.dim(); ++j)
      for (uint32_t k = 0; k < t.dim(); ++k) {
        if (std::tuple(i, j, k) >= std::tuple(m.i, m.j, m.k)) break;
        RC_ASSERT(coefficient_of(alg, i, j, k) == t.coefficient(i, j, k));
      }
}

TEST(Verification, EmptyAlgorithmFailsAtTheFirstTableEntry) {
  StructureTensor t = graph_table("complete:2");
  BilinearAlgorithm alg;
  alg.dim = t.dim();
  VerificationResult r = verify_algorithm(alg, t);
  ASSERT_FALSE(r.verified);
  const TensorEntry& first = t.entries().front();
  EXPECT_EQ(std::tuple(r.mismatch->i, r.mismatch->j, r.mismatch->k),
            std::tuple(first.i, first.j, first.k));
  EXPECT_TRUE(r.mismatch->algorithm_value.is_zero());
  EXPECT_EQ(r.mismatch->table_value, first.c);
}

TEST(Verification, OverGF2TwoEqualTermsCancel) {
  StructureTensor t = graph_table("complete:2", Field::prime(2));
  BilinearAlgorithm alg = canonical_graph_algorithm(t);
  alg.terms.push_back(alg.terms[0]);
  alg.terms.push_back(alg.terms[0]);  // 1 + 1 + 1 = 1 in GF(2)
  EXPECT_TRUE(verify_algorithm(alg, t).verified);
  alg.terms.pop_back();  // 1 + 1 = 0: e_1 e_1 is lost
  EXPECT_FALSE(verify_algorithm(alg, t).verified);
}

}  // namespace
}  // namespace qalg
