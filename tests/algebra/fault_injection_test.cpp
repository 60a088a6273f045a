// Fault injection (issue 2): one constant changed, or one arrow·arrow product made nonzero, in a
// graph algebra's table must be caught by the checks, and any associativity witness must re-verify.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "qalg/algebra/associativity.hpp"
#include "qalg/algebra/graph_algebra.hpp"
#include "qalg/algebra/graph_structure.hpp"
#include "qalg/algebra/unit.hpp"
#include "qalg/verify/generators.hpp"

using namespace qalg;

namespace {

// A copy of t with c_ij^k replaced by `value`, keeping the graph hint (so the fast route is tried).
StructureTensor with_constant(const StructureTensor& t, uint32_t i, uint32_t j, uint32_t k, const Rational& value) {
  StructureTensor out(t.field(), t.basis_names());
  for (const auto& e : t.entries())
    if (!(e.i == i && e.j == j && e.k == k)) out.add(e.i, e.j, e.k, e.c);
  out.add(i, j, k, value);
  out.finalize();
  out.set_graph_basis(*t.graph_basis());
  return out;
}

// Everything a graph algebra must satisfy; false means the fault was caught.
bool passes_all_checks(const StructureTensor& t) {
  auto assoc = check_associativity(t);
  if (!assoc.associative) {
    const auto& w = *assoc.witness;
    Rational l, r;
    for (const auto& [k, c] : left_bracketing(t, w.i, w.j, w.l)) if (k == w.coordinate) l = c;
    for (const auto& [k, c] : right_bracketing(t, w.i, w.j, w.l)) if (k == w.coordinate) r = c;
    RC_ASSERT(l != r);               // the witness really violates associativity
    RC_ASSERT(l == w.left && r == w.right);
    return false;
  }
  UnitResult u = find_unit(t);
  const size_t nv = t.graph_basis()->vertex_count;
  if (!u.unit || u.unit->size() != nv) return false;
  for (size_t v = 0; v < nv; ++v)
    if ((*u.unit)[v].first != v || !(*u.unit)[v].second.is_one()) return false;
  GraphStructure g = check_graph_structure(t, u);
  return g.radical_is_ideal && g.radical_squared_zero && g.quotient_split;
}

}  // namespace

RC_GTEST_PROP(FaultInjection, ChangedConstantIsCaught, ()) {
  Quiver q = *verify::gen_quiver();
  Field f = *verify::gen_field();
  StructureTensor t = graph_algebra(q, f);
  const uint32_t d = uint32_t(t.dim());
  uint32_t i = *rc::gen::inRange<uint32_t>(0, d), j = *rc::gen::inRange<uint32_t>(0, d),
           k = *rc::gen::inRange<uint32_t>(0, d);
  Rational old = t.coefficient(i, j, k);
  Rational value = f.from_int(*rc::gen::inRange<int>(-3, 4));
  RC_PRE(value != old);
  RC_ASSERT(!passes_all_checks(with_constant(t, i, j, k, value)));
}

RC_GTEST_PROP(FaultInjection, NonzeroArrowProductIsCaught, ()) {
  Quiver q = *verify::gen_quiver();
  RC_PRE(q.arrow_count() > 0);
  Field f = *verify::gen_field();
  StructureTensor t = graph_algebra(q, f);
  const uint32_t nv = uint32_t(q.vertex_count()), d = uint32_t(t.dim());
  uint32_t a = *rc::gen::inRange<uint32_t>(nv, d), b = *rc::gen::inRange<uint32_t>(nv, d),
           k = *rc::gen::inRange<uint32_t>(0, d);
  RC_ASSERT(!passes_all_checks(with_constant(t, a, b, k, f.from_int(1))));
}

TEST(FaultInjection, NonAssociativeTableGivesAVerifiedWitness) {
  // e_1 e_1 = e_1 + (1->2) breaks ((e_1 e_1) e_2 vs e_1 (e_1 e_2)) on the complete graph on 2.
  StructureTensor t = graph_algebra(Quiver{{"1", "2"}, {{0, 1, "a"}, {1, 0, "b"}}}, Field::rationals());
  StructureTensor bad = with_constant(t, 1, 3, 1, Rational(1));  // e_2 · b gains an e_2 term
  auto r = check_associativity(bad);
  ASSERT_FALSE(r.associative);
  ASSERT_TRUE(r.witness.has_value());
  EXPECT_NE(r.witness->left, r.witness->right);
}
