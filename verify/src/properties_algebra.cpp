// SPEC §1–2 properties: the table of Q_G, its unit, radical and t, and tensor-product laws.
// Each law is checked from the table by a route other than the one that built it where possible
// (direct products, the general-route structure analysis).
#include <rapidcheck.h>

#include "qalg/algebra/associativity.hpp"
#include "qalg/algebra/general_structure.hpp"
#include "qalg/algebra/graph_structure.hpp"
#include "qalg/algebra/report.hpp"
#include "qalg/algebra/unit.hpp"
#include "qalg/rank/bilinear_algorithm.hpp"
#include "qalg/verify/catalogue.hpp"
#include "qalg/verify/generators.hpp"
#include "qalg/verify/sparse_ops.hpp"

namespace qalg::verify {
namespace {

QuiverShape shape_of(const RunConfig& c) {
  return QuiverShape{.max_vertices = c.max_size, .max_arrows = 2 * c.max_size};
}
// Tensor factors stay small: dim multiplies.
QuiverShape factor_shape_of(const RunConfig& c) {
  const size_t v = std::min<size_t>(c.max_size, 3);
  return QuiverShape{.max_vertices = v, .max_arrows = v + 1};
}

GraphCase graph_case(const RunConfig& c) {
  GraphCase g = *gen_graph_case(shape_of(c));
  record_case(g.quiver, g.table.field());
  return g;
}

// The same constants without the graph-basis hint or slots: only the general route applies.
StructureTensor without_hints(const StructureTensor& t) {
  StructureTensor out(t.field(), t.basis_names());
  for (const auto& e : t.entries()) out.add(e.i, e.j, e.k, e.c);
  out.finalize();
  return out;
}

void table_shape(const RunConfig& c) {
  const GraphCase g = graph_case(c);
  const size_t nv = g.quiver.vertex_count(), ne = g.quiver.arrow_count();
  RC_ASSERT(g.table.dim() == nv + ne);
  RC_ASSERT(g.table.nnz() == nv + 2 * ne);
  // Every nonzero constant is one of the three products of SPEC §1, with value 1.
  for (const auto& e : g.table.entries()) {
    RC_ASSERT(e.c.is_one());
    const bool idempotent = e.i < nv && e.i == e.j && e.k == e.i;
    const bool left = e.i < nv && e.j >= nv && e.k == e.j && g.quiver.arrows[e.j - nv].source == e.i;
    const bool right = e.i >= nv && e.j < nv && e.k == e.i && g.quiver.arrows[e.i - nv].target == e.j;
    RC_ASSERT(idempotent || left || right);
  }
}

void associative(const RunConfig& c) {
  const GraphCase g = graph_case(c);
  RC_ASSERT(check_associativity(g.table).associative);
  // An independent spot check straight from the definition.
  const uint32_t d = uint32_t(g.table.dim());
  const uint32_t i = *rc::gen::inRange<uint32_t>(0, d), j = *rc::gen::inRange<uint32_t>(0, d),
                 l = *rc::gen::inRange<uint32_t>(0, d);
  RC_ASSERT(left_bracketing(g.table, i, j, l) == right_bracketing(g.table, i, j, l));
}

void unit_is_vertex_sum(const RunConfig& c) {
  const GraphCase g = graph_case(c);
  const UnitResult u = find_unit(g.table);
  RC_ASSERT(u.unit.has_value());
  SparseVector sum;
  for (uint32_t v = 0; v < g.quiver.vertex_count(); ++v) sum.emplace_back(v, Rational(1));
  RC_ASSERT(*u.unit == sum);
  for (uint32_t b = 0; b < g.table.dim(); ++b) {  // multiplied out: 1·b = b = b·1
    RC_ASSERT(multiply(g.table, sum, basis_vector(b)) == basis_vector(b));
    RC_ASSERT(multiply(g.table, basis_vector(b), sum) == basis_vector(b));
  }
}

void vertex_idempotents(const RunConfig& c) {
  const GraphCase g = graph_case(c);
  const uint32_t nv = uint32_t(g.quiver.vertex_count());
  for (uint32_t v = 0; v < nv; ++v)
    for (uint32_t w = 0; w < nv; ++w)
      RC_ASSERT(multiply_basis(g.table, v, w) == (v == w ? basis_vector(v) : SparseVector{}));
}

void radical_square_zero(const RunConfig& c) {
  const GraphCase g = graph_case(c);
  const uint32_t nv = uint32_t(g.quiver.vertex_count()), d = uint32_t(g.table.dim());
  for (uint32_t a = nv; a < d; ++a)
    for (uint32_t b = 0; b < d; ++b) {
      // J = span(arrows) is a two-sided ideal ...
      for (const auto& [k, x] : multiply_basis(g.table, a, b)) RC_ASSERT(k >= nv);
      for (const auto& [k, x] : multiply_basis(g.table, b, a)) RC_ASSERT(k >= nv);
      // ... and J^2 = 0.
      if (b >= nv) RC_ASSERT(multiply_basis(g.table, a, b).empty());
    }
  const GraphStructure s = check_graph_structure(g.table, find_unit(g.table));
  RC_ASSERT(s.radical_is_ideal && s.radical_squared_zero && s.quotient_split);
  RC_ASSERT(s.radical_dim == std::optional<size_t>(g.quiver.arrow_count()));
}

void t_equals_vertices(const RunConfig& c) {
  const GraphCase g = graph_case(c);
  const AlgebraReport r = inspect_algebra(g.table);
  RC_ASSERT(r.t == std::optional<size_t>(g.quiver.vertex_count()));
  // The general route (trace form / Cohen–Ivanyos–Wales, splitting the centre) must agree.
  const GeneralStructure s = analyze_general_structure(without_hints(g.table));
  RC_ASSERT(s.t == g.quiver.vertex_count());
  RC_ASSERT(s.radical_basis.size() == g.quiver.arrow_count());
  RC_ASSERT(s.nilpotency_index == (g.quiver.arrow_count() > 0 ? 2u : 1u));
}

TensorCase tensor_case(const RunConfig& c) {
  TensorCase t = *gen_tensor_case(factor_shape_of(c));
  record_case(t.product);
  return t;
}

void tensor_shape(const RunConfig& c) {
  const TensorCase t = tensor_case(c);
  RC_ASSERT(t.product.dim() == t.a.dim() * t.b.dim());
  RC_ASSERT(t.product.nnz() == t.a.nnz() * t.b.nnz());
  const uint32_t db = uint32_t(t.b.dim());
  auto idx = [&](uint32_t x) { return *rc::gen::inRange<uint32_t>(0, x); };
  const uint32_t i = idx(uint32_t(t.a.dim())), j = idx(uint32_t(t.a.dim())), k = idx(uint32_t(t.a.dim()));
  const uint32_t i2 = idx(db), j2 = idx(db), k2 = idx(db);
  RC_ASSERT(t.product.coefficient(i * db + i2, j * db + j2, k * db + k2) ==
            t.product.field().mul(t.a.coefficient(i, j, k), t.b.coefficient(i2, j2, k2)));
}

void tensor_mixed_product(const RunConfig& c) {
  const TensorCase t = tensor_case(c);
  const Field& f = t.product.field();
  const SparseVector x = *gen_element(f, t.a.dim()), x2 = *gen_element(f, t.a.dim());
  const SparseVector y = *gen_element(f, t.b.dim()), y2 = *gen_element(f, t.b.dim());
  // (x ⊗ y)(x' ⊗ y') = x x' ⊗ y y'.
  const SparseVector lhs = multiply(t.product, kronecker(x, y, t.b.dim(), f), kronecker(x2, y2, t.b.dim(), f));
  const SparseVector rhs = kronecker(multiply(t.a, x, x2), multiply(t.b, y, y2), t.b.dim(), f);
  RC_ASSERT(lhs == rhs);
}

void tensor_unit_associative(const RunConfig& c) {
  const TensorCase t = tensor_case(c);
  RC_ASSERT(check_associativity(t.product).associative);
  const UnitResult u = find_unit(t.product), ua = find_unit(t.a), ub = find_unit(t.b);
  RC_ASSERT(u.unit && ua.unit && ub.unit);
  RC_ASSERT(*u.unit == kronecker(*ua.unit, *ub.unit, t.b.dim(), t.product.field()));
}

void tensor_t_multiplies(const RunConfig& c) {
  const TensorCase t = tensor_case(c);
  // A/J ≅ F^|V| for both factors, and F^n ⊗ F^m ≅ F^{nm} over every field, so t and the radical
  // dimension are determined; inspect must compute them (SPEC §2: never assumed).
  const AlgebraReport r = inspect_algebra(t.product);
  const size_t n = t.left.vertex_count() * t.right.vertex_count();
  RC_ASSERT(r.t == std::optional<size_t>(n));
  RC_ASSERT(r.radical_dim == std::optional<size_t>(t.product.dim() - n));
}

}  // namespace

std::vector<Property> algebra_properties() {
  return {
      {"graph-table", "SPEC §1", "Q_G has dim |V|+|E|, nnz |V|+2|E|, and only the products e_v e_v, e_s(a) a, a e_t(a), each 1", table_shape},
      {"graph-associative", "SPEC §1", "Q_G is associative (sparse check and a bracketing spot check)", associative},
      {"graph-unit", "SPEC §1", "the unit found by solving the linear system is Σ e_v, and multiplies out as one", unit_is_vertex_sum},
      {"graph-idempotents", "SPEC §1", "the e_v are orthogonal idempotents: e_v e_w = δ_vw e_v", vertex_idempotents},
      {"graph-radical", "SPEC §1", "J = span(arrows) is a two-sided ideal with J² = 0, of dimension |E|", radical_square_zero},
      {"graph-t", "SPEC §1–2", "t(Q_G) = |V| on the graph route and on the general route (radical, centre)", t_equals_vertices},
      {"tensor-table", "SPEC §2", "dim and nnz multiply; c_{(i,i'),(j,j')}^{(k,k')} = c_ij^k c'_{i'j'}^{k'}", tensor_shape},
      {"tensor-mixed-product", "SPEC §2", "(x⊗y)(x'⊗y') = xx' ⊗ yy'", tensor_mixed_product},
      {"tensor-unit", "SPEC §2", "Q_G ⊗ Q_H is associative with unit 1 ⊗ 1", tensor_unit_associative},
      {"tensor-t", "SPEC §2", "t(Q_G ⊗ Q_H) is computed as |V_G|·|V_H|, rad of dim dim − |V_G||V_H|", tensor_t_multiplies},
  };
}

std::vector<Property> demonstration_properties() {
  Property p{"demo-false-t-is-one", "demonstration",
             "DELIBERATELY FALSE: every quiver algebra has t = 1 (fails on two vertices)",
             [](const RunConfig& c) {
               // Random quivers only (not the named families), so that it shrinks all the way.
               const Quiver q = *gen_quiver(shape_of(c));
               const Field f = *gen_field();
               record_case(q, f);
               RC_ASSERT(inspect_algebra(graph_algebra(q, f)).t == std::optional<size_t>(1));
             },
             true};
  return {p};
}

}  // namespace qalg::verify
