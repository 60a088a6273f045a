// Lower bounds: each applies only under its hypotheses; flattening ranks against independent
// oracles (SPEC §3).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "qalg/algebra/report.hpp"
#include "qalg/algebra/tensor_product.hpp"
#include "qalg/rank/lower_bounds.hpp"
#include "rank_test_support.hpp"

namespace qalg {
namespace {

// The matrix-unit table of M_n(F): E_ab E_bd = E_ad, slots (a, b).
StructureTensor matrix_units(uint32_t n, const Field& f = Field::rationals()) {
  std::vector<std::string> names;
  std::vector<Slot> slots;
  for (uint32_t a = 0; a < n; ++a)
    for (uint32_t b = 0; b < n; ++b) {
      names.push_back("E" + std::to_string(a) + "_" + std::to_string(b));
      slots.push_back({a, b});
    }
  StructureTensor t(f, names);
  for (uint32_t a = 0; a < n; ++a)
    for (uint32_t b = 0; b < n; ++b)
      for (uint32_t d = 0; d < n; ++d) t.add(a * n + b, b * n + d, a * n + d, Rational(1));
  t.set_slots(slots, n);
  t.finalize();
  return t;
}

std::optional<size_t> bound_named(const RankReport& r, const std::string& name) {
  for (const auto& b : r.bounds)
    if (b.name == name) return b.value;
  return std::nullopt;
}

TEST(AlderStrassen, NotReportedWithoutAssociativityOrUnit) {
  // b0 b0 = b1 only: associative (all triple products vanish) but without a unit.
  StructureTensor t(Field::rationals(), {"b0", "b1"});
  t.add(0, 0, 1, Rational(1));
  t.finalize();
  AlgebraReport a = inspect_algebra(t);
  ASSERT_FALSE(a.unit.has_value());
  BoundOutcome o = alder_strassen_bound(a);
  EXPECT_FALSE(o.bound);
  EXPECT_NE(o.note.find("unit"), std::string::npos);
  AlgebraReport not_associative = a;
  not_associative.associativity.associative = false;
  EXPECT_FALSE(alder_strassen_bound(not_associative).bound);
}

TEST(Blaser, MatrixAlgebrasGetTheSemisimpleBound) {
  for (uint32_t n = 2; n <= 6; ++n) {
    SCOPED_TRACE(n);
    StructureTensor t = matrix_units(n);
    ASSERT_EQ(matrix_algebra_degree(t), n);
    AlgebraReport a = inspect_algebra(t);
    RankReport r = compute_rank_report(t, a);
    // ⌈5/2 n² − 3n⌉ and 2n² − 1 (t(M_n) = 1), computed independently.
    size_t blaser = (5 * n * n - 6 * n + 1) / 2;
    EXPECT_EQ(bound_named(r, "Bläser (semisimple)"), blaser);
    EXPECT_EQ(bound_named(r, "Alder–Strassen"), 2 * n * n - 1);
    EXPECT_EQ(r.best_lower_bound, std::max<size_t>(blaser, 2 * n * n - 1));
    EXPECT_EQ(r.explicit_length, n * n * n);  // the schoolbook algorithm
  }
  // From n = 6 on, Bläser's bound is the best one: 5/2·36 − 18 = 72 > 71.
  StructureTensor m6 = matrix_units(6);
  EXPECT_EQ(compute_rank_report(m6, inspect_algebra(m6)).best_bound_name, "Bläser (semisimple)");
}

TEST(Blaser, NotReportedWhenTheDecompositionIsUnknownOrHasRadical) {
  StructureTensor q2 = testing::graph_table("complete:2");  // rad ≠ 0
  EXPECT_FALSE(blaser_bound(q2, inspect_algebra(q2)).bound);
  // F × F (the quiver with two vertices and no arrow) is semisimple, but n_τ = 1.
  Quiver two;
  two.vertices = {"x", "y"};
  StructureTensor split = graph_algebra(two, Field::rationals());
  AlgebraReport a = inspect_algebra(split);
  BoundOutcome o = blaser_bound(split, a);
  EXPECT_FALSE(o.bound);
  EXPECT_FALSE(o.note.empty());
  // A matrix-unit table with one entry changed is no longer recognised.
  StructureTensor m2 = matrix_units(2);
  StructureTensor bent(Field::rationals(), m2.basis_names());
  for (const auto& e : m2.entries()) bent.add(e.i, e.j, e.k, e.c + e.c);
  bent.set_slots(*m2.slots(), 2);
  bent.finalize();
  EXPECT_FALSE(matrix_algebra_degree(bent));
}

// Independent oracle: the rank of flattening f built densely as a dim × dim² matrix.
size_t dense_flattening_rank(const StructureTensor& t, int f) {
  const slong n = static_cast<slong>(t.dim());
  QMatrix m(n, n * n);
  for (const auto& e : t.entries()) {
    slong idx[3] = {e.i, e.j, e.k};
    fmpq_set(m.at(idx[f], idx[(f + 1) % 3] * n + idx[(f + 2) % 3]), e.c.get());
  }
  // A different route from the library's: integer rows, FLINT's multimodular fmpz_mat_rank.
  ZMatrix z(m.rows(), m.cols());
  for (slong r = 0; r < m.rows(); ++r)
    for (slong c = 0; c < m.cols(); ++c) {
      // Entries of these tests have denominators dividing 6: scale every row by 6.
      Rational x;
      fmpq_mul_si(x.get(), m.at(r, c), 6);
      EXPECT_TRUE(fmpz_is_one(fmpq_denref(x.get())));
      fmpz_set(z.at(r, c), fmpq_numref(x.get()));
    }
  return static_cast<size_t>(fmpz_mat_rank(z.get()));
}

RC_GTEST_PROP(Flattening, MatchesDenseRanksOnRandomTables, ()) {
  StructureTensor t = *testing::random_table(5, 20);
  FlatteningOutcome o = flattening_bound(t);
  size_t best = 0;
  for (int f = 0; f < 3; ++f) {
    RC_ASSERT(o.ranks[f].has_value());
    RC_ASSERT(o.ranks[f]->exact);
    RC_ASSERT(o.ranks[f]->rank == dense_flattening_rank(t, f));
    best = std::max(best, o.ranks[f]->rank);
  }
  RC_ASSERT(o.outcome.bound.has_value());
  RC_ASSERT(o.outcome.bound->value == best);
}

RC_GTEST_PROP(Flattening, GraphAlgebrasHaveFullRankFlattenings, ()) {
  // With a unit every flattening has rank dim A (A² = A, and x ↦ L_x, x ↦ R_x are injective).
  StructureTensor t = graph_algebra(*verify::gen_quiver(), Field::rationals());
  FlatteningOutcome o = flattening_bound(t);
  for (int f = 0; f < 3; ++f) RC_ASSERT(o.ranks[f] && o.ranks[f]->rank == t.dim());
}

TEST(Flattening, ProjectionRouteIsMultiplicativeUnderTensorSquares) {
  // A flattening of A ⊗ A is the Kronecker square of A's flattening, so its rank is the square.
  // dim 169 with overlapping supports forces the certified random-projection route.
  StructureTensor a(Field::rationals(), [] {
    std::vector<std::string> names;
    for (int b = 0; b < 13; ++b) names.push_back("b" + std::to_string(b));
    return names;
  }());
  for (uint32_t i = 0; i < 13; ++i)
    for (uint32_t j = 0; j < 13; ++j)
      if ((i * 7 + j * 3) % 5 < 3) {
        a.add(i, j, (i + j) % 13, Rational((i * j) % 5 + 1, 1 + i % 3));
        a.add(i, j, (2 * i + 5 * j + 1) % 13, Rational(-1 - static_cast<slong>(j % 2)));
      }
  a.finalize();
  StructureTensor square = tensor_product(a, a);
  FlatteningOutcome o = flattening_bound(square);
  for (int f = 0; f < 3; ++f) {
    SCOPED_TRACE(f);
    size_t r = dense_flattening_rank(a, f);
    ASSERT_TRUE(o.ranks[f].has_value());
    EXPECT_NE(o.ranks[f]->method.find("projection"), std::string::npos) << o.ranks[f]->method;
    EXPECT_EQ(o.ranks[f]->rank, r * r);
  }
}

TEST(Flattening, OverGF2UsesExactModularRanks) {
  StructureTensor t = tensor_power(graph_algebra(parse_edge_list("1 1\n", "loop"), Field::prime(2)), 2);
  FlatteningOutcome o = flattening_bound(t);
  for (int f = 0; f < 3; ++f) EXPECT_EQ(o.ranks[f]->rank, 4u);
}

}  // namespace
}  // namespace qalg
