// Laws of the general route (SPEC §2) over random tables: it agrees with the graph route on graph
// algebras (rad = span(arrows), t = |V|), is invariant under change of basis, and on tensor
// products of graph algebras gives dim rad(A⊗B) = dim A dim B − |V_A||V_B| and t = |V_A||V_B|
// (A/rad ⊗ B/rad = F^{|V_A|} ⊗ F^{|V_B|} is split semisimple).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <random>

#include "qalg/algebra/change_of_basis.hpp"
#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/general_structure.hpp"
#include "qalg/algebra/graph_structure.hpp"
#include "qalg/algebra/unit.hpp"
#include "qalg/verify/generators.hpp"

using namespace qalg;

namespace {

verify::QuiverShape small_shape{4, 6, true, true};

rc::Gen<Field> gen_small_field() {
  return rc::gen::map(rc::gen::element<ulong>(0, 2, 3, 5, 101),
                      [](ulong p) { return p == 0 ? Field::rationals() : Field::prime(p); });
}

// A random invertible matrix from a generated seed: entries in [-3, 3], retried until nonsingular.
FieldMatrix gen_invertible(const Field& f, slong n) {
  std::mt19937_64 rng(*rc::gen::arbitrary<uint64_t>());
  for (;;) {
    FieldMatrix m(f, n, n);
    for (slong i = 0; i < n; ++i)
      for (slong j = 0; j < n; ++j) m.set(i, j, Rational(static_cast<slong>(rng() % 7) - 3));
    if (rank(m) == static_cast<size_t>(n)) return m;
  }
}

}  // namespace

RC_GTEST_PROP(GeneralStructure, AgreesWithTheGraphRouteOnGraphAlgebras, ()) {
  Quiver q = *verify::gen_quiver(small_shape);
  Field f = *gen_small_field();
  StructureTensor t = graph_algebra(q, f);
  GeneralStructure s = analyze_general_structure(t);
  GraphStructure g = check_graph_structure(t, find_unit(t));
  RC_ASSERT(g.radical_dim.has_value() && g.t.has_value());
  RC_ASSERT(s.radical_basis.size() == *g.radical_dim);
  RC_ASSERT(s.radical_basis.size() == q.arrow_count());
  RC_ASSERT(s.t == q.vertex_count());
  RC_ASSERT(s.t == *g.t);
  // rad = span(arrows): every radical vector lives on arrow coordinates only.
  for (const auto& v : s.radical_basis)
    for (const auto& [k, c] : v) RC_ASSERT(k >= q.vertex_count());
  RC_ASSERT(s.radical_power_dims.size() >= 1);
  RC_ASSERT(s.certificates.size() == 4u);
}

RC_GTEST_PROP(GeneralStructure, InvariantUnderChangeOfBasis, ()) {
  Quiver q = *verify::gen_quiver(verify::QuiverShape{3, 4, true, true});
  Field f = *gen_small_field();
  StructureTensor t = graph_algebra(q, f);
  StructureTensor u = change_basis(t, gen_invertible(f, static_cast<slong>(t.dim())));
  GeneralStructure a = analyze_general_structure(t), b = analyze_general_structure(u);
  RC_ASSERT(a.radical_basis.size() == b.radical_basis.size());
  RC_ASSERT(a.radical_power_dims == b.radical_power_dims);
  RC_ASSERT(a.t == b.t);
  RC_ASSERT(a.centre_dim == b.centre_dim);
  RC_ASSERT(b.certificates.size() == 4u);
}

RC_GTEST_PROP(GeneralStructure, TensorProductsOfGraphAlgebras, ()) {
  verify::QuiverShape tiny{3, 3, true, true};
  Quiver qa = *verify::gen_quiver(tiny), qb = *verify::gen_quiver(tiny);
  Field f = *gen_small_field();
  StructureTensor t = tensor_product(graph_algebra(qa, f), graph_algebra(qb, f));
  GeneralStructure s = analyze_general_structure(t);
  size_t v = qa.vertex_count() * qb.vertex_count();
  RC_ASSERT(s.radical_basis.size() == t.dim() - v);
  RC_ASSERT(s.t == v);
  RC_ASSERT(s.certificates.size() == 4u);
}

TEST(ChangeOfBasis, IdentityKeepsTheTable) {
  StructureTensor t = graph_algebra(quiver_family("complete:2"), Field::rationals());
  StructureTensor u = change_basis(t, identity_matrix(t.field(), 4));
  EXPECT_EQ(u.entries().size(), t.entries().size());
  for (size_t i = 0; i < t.entries().size(); ++i) {
    EXPECT_EQ(u.entries()[i].i, t.entries()[i].i);
    EXPECT_EQ(u.entries()[i].k, t.entries()[i].k);
    EXPECT_EQ(u.entries()[i].c, t.entries()[i].c);
  }
}

TEST(ChangeOfBasis, RejectsSingularAndMisshapenMatrices) {
  StructureTensor t = graph_algebra(quiver_family("complete:2"), Field::prime(5));
  FieldMatrix singular(t.field(), 4, 4);
  singular.set(0, 0, Rational(1));
  EXPECT_THROW(change_basis(t, singular), InputError);
  EXPECT_THROW(change_basis(t, identity_matrix(t.field(), 3)), InputError);
  EXPECT_THROW(change_basis(t, identity_matrix(Field::rationals(), 4)), InputError);
  try {
    change_basis(t, singular);
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("singular"), std::string::npos);
  }
}

RC_GTEST_PROP(LinearAlgebra, KernelTimesMatrixIsZeroAndRankNullity, ()) {
  Field f = *gen_small_field();
  slong r = *rc::gen::inRange<slong>(1, 7), c = *rc::gen::inRange<slong>(1, 7);
  FieldMatrix m(f, r, c);
  for (slong i = 0; i < r; ++i)
    for (slong j = 0; j < c; ++j) m.set(i, j, Rational(*rc::gen::inRange<slong>(-2, 3)));
  FieldMatrix k = left_kernel(m);
  RC_ASSERT(multiply(k, m).is_zero());
  RC_ASSERT(rank(m) + static_cast<size_t>(k.rows()) == static_cast<size_t>(r));
  FieldMatrix basis = row_basis(m);
  RC_ASSERT(rows_in_span(m, basis));
  RC_ASSERT(rank(basis) == rank(m));
  // U ∩ V ⊆ U and ⊆ V, and dim(U ∩ V) = dim U + dim V − dim(U + V).
  FieldMatrix u = row_basis(m), v = row_basis(transpose(multiply(transpose(m), m)));
  if (v.cols() == u.cols()) {
    FieldMatrix w = intersection(u, v);
    RC_ASSERT(rows_in_span(w, u) && rows_in_span(w, v));
    RC_ASSERT(static_cast<size_t>(w.rows()) == rank(u) + rank(v) - rank(vstack(u, v)));
  }
  if (r == c)
    if (auto inv = inverse(m)) RC_ASSERT(multiply(*inv, m) == identity_matrix(f, r));
}

// The sparse engine (SparseSpan, power_dims, sparse ideal check) against the dense one
// (subspace_product, dense is_two_sided_ideal) on tables made dense by a change of basis.
RC_GTEST_PROP(GeneralStructure, SparseAndDenseSubspaceRoutinesAgree, ()) {
  Field f = *gen_small_field();
  StructureTensor t0 = graph_algebra(*verify::gen_quiver(verify::QuiverShape{3, 4, true, true}), f);
  StructureTensor t = change_basis(t0, gen_invertible(f, static_cast<slong>(t0.dim())));
  FieldMatrix rad = radical(t).basis;
  SparseSpan span(f, t.dim());
  for (slong r = 0; r < rad.rows(); ++r) {
    SparseVector v;
    for (slong j = 0; j < rad.cols(); ++j)
      if (!rad.get(r, j).is_zero()) v.emplace_back(static_cast<uint32_t>(j), rad.get(r, j));
    span.insert(v);
  }
  RC_ASSERT(span.to_rref() == rad);
  RC_ASSERT(is_two_sided_ideal(t, span) == is_two_sided_ideal(t, rad));
  bool nilpotent = false;
  std::vector<size_t> sparse_dims = power_dims(t, span, nilpotent), dense_dims;
  for (FieldMatrix cur = rad; cur.rows() > 0; cur = subspace_product(t, cur, rad))
    dense_dims.push_back(static_cast<size_t>(cur.rows()));
  dense_dims.push_back(0);
  RC_ASSERT(nilpotent);
  RC_ASSERT(sparse_dims == dense_dims);
  // A single random element usually does not span an ideal; both checks must say the same.
  SparseSpan line(f, t.dim());
  FieldMatrix x = row_of(gen_invertible(f, static_cast<slong>(t.dim())), 0);
  SparseVector xv;
  for (slong j = 0; j < x.cols(); ++j)
    if (!x.get(0, j).is_zero()) xv.emplace_back(static_cast<uint32_t>(j), x.get(0, j));
  line.insert(xv);
  RC_ASSERT(is_two_sided_ideal(t, line) == is_two_sided_ideal(t, line.to_rref()));
}
