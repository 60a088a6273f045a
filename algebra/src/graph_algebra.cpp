// Q_G from a quiver (SPEC §1): e_v e_v = e_v, e_{s(a)} a = a, a e_{t(a)} = a.
#include "qalg/algebra/graph_algebra.hpp"

#include <unordered_set>

#include <fmt/core.h>

#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/resource_guard.hpp"

namespace qalg {

StructureTensor graph_algebra(const Quiver& quiver, const Field& field) {
  const size_t nv = quiver.vertex_count(), na = quiver.arrow_count();
  if (nv == 0) throw InputError("quiver has no vertices");
  const size_t dim = checked_add(nv, na, "graph algebra dimension");
  const size_t nnz = checked_add(nv, checked_mul(2, na, "graph algebra nnz"), "graph algebra nnz");
  require_fits(checked_mul(nnz, sizeof(TensorEntry) + 16, "structure tensor") +
                   checked_mul(dim, 64, "basis names"),
               fmt::format("the table of a quiver with {} vertices and {} arrows", nv, na));

  std::vector<std::string> names;
  names.reserve(dim);
  for (const auto& v : quiver.vertices) names.push_back("e_" + v);
  for (const auto& a : quiver.arrows) {
    if (a.source >= nv || a.target >= nv)
      throw InputError(fmt::format("arrow {} has an endpoint outside the {} vertices", a.name, nv));
    names.push_back(a.name);
  }
  {
    std::unordered_set<std::string> seen;
    seen.reserve(dim);
    for (const auto& n : names)
      if (!seen.insert(n).second)
        throw InputError(fmt::format("basis name '{}' occurs twice (vertex v is named e_v: rename the arrow or the vertex)", n));
  }

  StructureTensor t(field, std::move(names));
  const Rational one = field.from_int(1);
  for (uint32_t v = 0; v < nv; ++v) t.add(v, v, v, one);
  for (size_t n = 0; n < na; ++n) {
    const auto& a = quiver.arrows[n];
    const uint32_t ai = uint32_t(nv + n);
    t.add(a.source, ai, ai, one);  // e_{s(a)} a = a
    t.add(ai, a.target, ai, one);  // a e_{t(a)} = a
  }
  t.finalize();

  std::vector<Slot> slots;
  slots.reserve(dim);
  for (uint32_t v = 0; v < nv; ++v) slots.push_back(Slot{v, v});
  for (const auto& a : quiver.arrows) slots.push_back(Slot{a.source, a.target});
  t.set_slots(std::move(slots), uint32_t(nv));
  t.set_graph_basis(GraphBasis{nv, na});
  return t;
}

}  // namespace qalg
