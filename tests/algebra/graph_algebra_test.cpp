// Q_G laws of SPEC §1 over random quivers (loops, parallel arrows), over Q and GF(p).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "qalg/algebra/associativity.hpp"
#include "qalg/algebra/graph_algebra.hpp"
#include "qalg/algebra/graph_structure.hpp"
#include "qalg/algebra/quiver_input.hpp"
#include "qalg/algebra/unit.hpp"
#include "qalg/verify/generators.hpp"

using namespace qalg;

RC_GTEST_PROP(GraphAlgebra, DimensionAndNonzeros, ()) {
  Quiver q = *verify::gen_quiver();
  StructureTensor t = graph_algebra(q, *verify::gen_field());
  RC_ASSERT(t.dim() == q.vertex_count() + q.arrow_count());
  RC_ASSERT(t.nnz() == q.vertex_count() + 2 * q.arrow_count());
}

RC_GTEST_PROP(GraphAlgebra, IsAssociative, ()) {
  StructureTensor t = graph_algebra(*verify::gen_quiver(), *verify::gen_field());
  RC_ASSERT(check_associativity(t).associative);
}

RC_GTEST_PROP(GraphAlgebra, UnitIsSumOfVertexIdempotents, ()) {
  Quiver q = *verify::gen_quiver();
  StructureTensor t = graph_algebra(q, *verify::gen_field());
  UnitResult u = find_unit(t);
  RC_ASSERT(u.unit.has_value());
  RC_ASSERT(u.unit->size() == q.vertex_count());
  for (size_t v = 0; v < q.vertex_count(); ++v) {
    RC_ASSERT((*u.unit)[v].first == v);
    RC_ASSERT((*u.unit)[v].second.is_one());
  }
}

RC_GTEST_PROP(GraphAlgebra, RadicalIsArrowSpanSquaringToZeroAndTIsVertexCount, ()) {
  Quiver q = *verify::gen_quiver();
  StructureTensor t = graph_algebra(q, *verify::gen_field());
  GraphStructure g = check_graph_structure(t, find_unit(t));
  RC_ASSERT(g.radical_is_ideal);
  RC_ASSERT(g.radical_squared_zero);
  RC_ASSERT(g.quotient_split);
  RC_ASSERT(g.radical_dim == q.arrow_count());
  RC_ASSERT(g.t == q.vertex_count());
}

// An independent check of J² = 0 and the ideal property by direct multiplication of basis elements.
RC_GTEST_PROP(GraphAlgebra, ArrowProductsVanishByDirectMultiplication, ()) {
  Quiver q = *verify::gen_quiver();
  StructureTensor t = graph_algebra(q, Field::rationals());
  const uint32_t nv = uint32_t(q.vertex_count());
  for (uint32_t a = nv; a < t.dim(); ++a)
    for (uint32_t b = nv; b < t.dim(); ++b) RC_ASSERT(multiply_basis(t, a, b).empty());
  for (uint32_t a = nv; a < t.dim(); ++a)
    for (uint32_t v = 0; v < nv; ++v) {
      for (const auto& [k, c] : multiply_basis(t, a, v)) RC_ASSERT(k >= nv);
      for (const auto& [k, c] : multiply_basis(t, v, a)) RC_ASSERT(k >= nv);
    }
}

RC_GTEST_PROP(GraphAlgebra, RationalAndPrimeTablesAgree, ()) {
  Quiver q = *verify::gen_quiver();
  const ulong p = *rc::gen::element<ulong>(2, 3, 5, 65521);
  StructureTensor a = graph_algebra(q, Field::rationals()), b = graph_algebra(q, Field::prime(p));
  RC_ASSERT(a.nnz() == b.nnz());
  for (size_t n = 0; n < a.nnz(); ++n) {
    const auto &x = a.entries()[n], &y = b.entries()[n];
    RC_ASSERT(x.i == y.i && x.j == y.j && x.k == y.k);
    Rational reduced = x.c;
    Field::prime(p).reduce(reduced);
    RC_ASSERT(reduced == y.c);
  }
  RC_ASSERT(check_graph_structure(a, find_unit(a)).t == check_graph_structure(b, find_unit(b)).t);
}

TEST(GraphAlgebra, PaperQ2Table) {
  // Q_2: e_1, e_2, 1->2, 2->1 (SPEC §3 table: dim 4).
  StructureTensor t = graph_algebra(quiver_family("complete:2"), Field::rationals());
  EXPECT_EQ(t.basis_names(), (std::vector<std::string>{"e_1", "e_2", "1->2", "2->1"}));
  EXPECT_EQ(t.nnz(), 6u);
  EXPECT_TRUE(t.coefficient(0, 2, 2).is_one());  // e_1 (1->2) = 1->2
  EXPECT_TRUE(t.coefficient(2, 1, 2).is_one());  // (1->2) e_2 = 1->2
  EXPECT_TRUE(t.coefficient(2, 3, 0).is_zero()); // arrow·arrow = 0 (paths of length 2 vanish)
  EXPECT_TRUE(t.coefficient(1, 2, 2).is_zero()); // e_2 (1->2) = 0
}

TEST(GraphAlgebra, CompleteGraphDimensionIsQSquared) {
  for (unsigned q = 1; q <= 12; ++q) {
    StructureTensor t = graph_algebra(quiver_family("complete:" + std::to_string(q)), Field::prime(7));
    EXPECT_EQ(t.dim(), q * q);
    EXPECT_EQ(t.nnz(), 2 * q * q - q);
  }
}
