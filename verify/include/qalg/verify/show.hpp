#pragma once
// How RapidCheck prints qalg values in a failing case (found by argument-dependent lookup of
// showValue in namespace qalg); without these a counterexample reads "<???>".
#include <ostream>

#include "qalg/algebra/field.hpp"
#include "qalg/algebra/quiver.hpp"
#include "qalg/algebra/structure_tensor.hpp"

namespace qalg {

inline void showValue(const Quiver& q, std::ostream& os) {
  os << "quiver, " << q.vertex_count() << " vertices, arrows [";
  for (size_t a = 0; a < q.arrow_count(); ++a)
    os << (a ? ", " : "") << q.vertices[q.arrows[a].source] << "->" << q.vertices[q.arrows[a].target];
  os << "]";
}
inline void showValue(const Field& f, std::ostream& os) { os << f.name(); }
inline void showValue(const Rational& r, std::ostream& os) { os << r.str(); }
inline void showValue(const StructureTensor& t, std::ostream& os) {
  os << "table, dim " << t.dim() << ", nnz " << t.nnz() << ", over " << t.field().name();
}

}  // namespace qalg
