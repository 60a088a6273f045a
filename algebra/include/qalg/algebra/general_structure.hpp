#pragma once
// Structure of an arbitrary finite-dimensional associative algebra from its table (SPEC §2):
// Jacobson radical (trace form over Q; a characteristic-p method over GF(p)), its powers and
// nilpotency index, the semisimple quotient, its centre, and t(A) by splitting the centre.
#include <optional>
#include <string>
#include <vector>

#include "qalg/algebra/structure_tensor.hpp"

namespace qalg {

struct GeneralStructure {
  std::vector<SparseVector> radical_basis;     // basis of rad A (in A's basis)
  std::vector<size_t> radical_power_dims;      // dim rad^1, rad^2, ..., ending with 0
  size_t nilpotency_index = 0;                 // least m with rad^m = 0 (0 when rad = 0)
  size_t quotient_dim = 0;                     // dim A / rad A
  size_t centre_dim = 0;                       // dim Z(A / rad A)
  size_t t = 0;                                // number of simple components of A / rad A
  std::vector<std::string> certificates;       // which certificate checks held
  std::string method;                          // "trace form", ...
};

// Requires an associative table; throws InputError otherwise (callers check first).
GeneralStructure analyze_general_structure(const StructureTensor& t);

}  // namespace qalg
