// Recovering the quiver of a graph-algebra table from its entries (SPEC §1): the idempotents come
// first, and arrow b is the only basis element with e_{s} b = b and b e_{t} = b.
#include "qalg/proofs/coq_certificate.hpp"

namespace qalg {

std::optional<GraphShape> graph_shape(const StructureTensor& t) {
  const auto& g = t.graph_basis();
  if (!g || g->vertex_count + g->arrow_count != t.dim()) return std::nullopt;
  const uint32_t nv = static_cast<uint32_t>(g->vertex_count);
  std::vector<std::optional<uint32_t>> source(t.dim()), target(t.dim());
  for (const TensorEntry& e : t.entries()) {
    if (e.k < nv || !e.c.is_one()) continue;
    // e_s b = b names the source of arrow b, b e_t = b its target; a second candidate means
    // the table is not a graph algebra in this basis.
    if (e.i < nv && e.j == e.k) {
      if (source[e.k]) return std::nullopt;
      source[e.k] = e.i;
    } else if (e.j < nv && e.i == e.k) {
      if (target[e.k]) return std::nullopt;
      target[e.k] = e.j;
    }
  }
  GraphShape shape;
  shape.vertices = nv;
  for (uint32_t b = nv; b < t.dim(); ++b) {
    if (!source[b] || !target[b]) return std::nullopt;
    shape.arrows.emplace_back(*source[b], *target[b]);
  }
  return shape;
}

}  // namespace qalg
