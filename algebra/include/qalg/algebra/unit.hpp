#pragma once
// The unit, found by solving u b_j = b_j = b_j u exactly (SPEC §1: never assumed).
#include <optional>
#include <string>

#include "qalg/algebra/structure_tensor.hpp"

namespace qalg {

struct UnitResult {
  std::optional<SparseVector> unit;  // the two-sided unit when it exists (it is then unique)
  std::string reason;                // why none exists: the first inconsistent equation
};

// Sparse elimination: singleton equations are propagated first (graph algebras finish there);
// what remains is solved densely when small, else a ResourceError is thrown.
UnitResult find_unit(const StructureTensor& t);

}  // namespace qalg
