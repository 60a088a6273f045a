// Fast route for graph-built tables (SPEC §1), every condition read off the table in O(nnz).
#include "qalg/algebra/graph_structure.hpp"

#include <fmt/core.h>

namespace qalg {

GraphStructure check_graph_structure(const StructureTensor& t, const UnitResult& unit) {
  GraphStructure g;
  const auto& hint = t.graph_basis();
  if (!hint) {
    g.failure = "the table carries no vertex/arrow split";
    return g;
  }
  const size_t nv = hint->vertex_count;
  const auto& name = t.basis_names();
  auto is_arrow = [nv](uint32_t b) { return b >= nv; };

  g.radical_is_ideal = true;
  g.radical_squared_zero = true;
  bool quotient_ok = true;
  std::vector<bool> has_idempotent(nv, false);
  for (const auto& e : t.entries()) {
    if ((is_arrow(e.i) || is_arrow(e.j)) && !is_arrow(e.k) && g.radical_is_ideal) {
      g.radical_is_ideal = false;
      if (g.failure.empty())
        g.failure = fmt::format("J is not an ideal: {}·{} has a component on {}", name[e.i], name[e.j], name[e.k]);
    }
    if (is_arrow(e.i) && is_arrow(e.j) && g.radical_squared_zero) {
      g.radical_squared_zero = false;
      if (g.failure.empty())
        g.failure = fmt::format("J² ≠ 0: {}·{} = {}·{} + …", name[e.i], name[e.j], e.c.str(), name[e.k]);
    }
    // In A/J the vertex images must multiply as orthogonal idempotents: ē_v ē_w = δ_vw ē_v.
    if (!is_arrow(e.i) && !is_arrow(e.j) && !is_arrow(e.k)) {
      if (e.i == e.j && e.j == e.k && e.c.is_one()) {
        has_idempotent[e.i] = true;
      } else if (quotient_ok) {
        quotient_ok = false;
        if (g.failure.empty())
          g.failure = fmt::format("in A/J, {}·{} has coefficient {} on {} (orthogonal idempotents need δ)",
                                  name[e.i], name[e.j], e.c.str(), name[e.k]);
      }
    }
  }
  for (size_t v = 0; v < nv && quotient_ok; ++v)
    if (!has_idempotent[v]) {
      quotient_ok = false;
      if (g.failure.empty()) g.failure = fmt::format("in A/J, {} is not idempotent", name[v]);
    }
  // (No unit is needed: ē_v orthogonal idempotents spanning A/J already make A/J ≅ F^|V|,
  // whose unit is Σ ē_v; the unit of A itself is reported separately.)
  (void)unit;
  g.quotient_split = quotient_ok;
  if (g.radical_is_ideal && g.radical_squared_zero && g.quotient_split) {
    g.radical_dim = hint->arrow_count;
    g.t = nv;
  }
  return g;
}

}  // namespace qalg
