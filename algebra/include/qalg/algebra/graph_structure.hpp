#pragma once
// The fast route for tables built from a quiver (SPEC §1): with J = span(arrows), check from the
// table that J is a two-sided ideal, J^2 = 0, and A/J is commutative with dim(A/J) orthogonal
// idempotents (the vertex images), so that A/J ≅ F^|V| is semisimple and J is
// nilpotent, so J = rad A in every characteristic and t(A) = |V|.
#include <optional>
#include <string>

#include "qalg/algebra/structure_tensor.hpp"
#include "qalg/algebra/unit.hpp"

namespace qalg {

struct GraphStructure {
  bool radical_is_ideal = false;      // every product with an arrow factor lies in J
  bool radical_squared_zero = false;  // every arrow·arrow product is 0
  bool quotient_split = false;        // vertex images: orthogonal idempotents, commutative, sum 1
  std::optional<size_t> radical_dim;  // |E| when all three hold
  std::optional<size_t> t;            // |V| when all three hold
  std::string failure;                // the first failed condition, with its basis elements
};

// Requires t.graph_basis(); `unit` is the unit found by find_unit (checked against Σ e_v).
GraphStructure check_graph_structure(const StructureTensor& t, const UnitResult& unit);

}  // namespace qalg
