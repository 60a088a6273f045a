#pragma once
// Associativity (b_i b_j) b_l = b_i (b_j b_l) checked sparsely: the work is proportional to the
// number of nonzero two-step products, never dim^3.
#include <optional>

#include "qalg/algebra/structure_tensor.hpp"

namespace qalg {

struct AssociativityWitness {
  uint32_t i = 0, j = 0, l = 0;  // the basis triple
  uint32_t coordinate = 0;       // basis index n where the two sides differ
  Rational left, right;          // coefficient of b_n in (b_i b_j) b_l and in b_i (b_j b_l)
};

struct AssociativityResult {
  bool associative = true;
  std::optional<AssociativityWitness> witness;  // set when not associative
};

AssociativityResult check_associativity(const StructureTensor& t);

// Direct product of basis elements and sparse vectors (used by checks and to re-verify witnesses).
SparseVector multiply_basis(const StructureTensor& t, uint32_t i, uint32_t j);
SparseVector multiply(const StructureTensor& t, const SparseVector& x, const SparseVector& y);
// (b_i b_j) b_l and b_i (b_j b_l), computed straight from the definition.
SparseVector left_bracketing(const StructureTensor& t, uint32_t i, uint32_t j, uint32_t l);
SparseVector right_bracketing(const StructureTensor& t, uint32_t i, uint32_t j, uint32_t l);

}  // namespace qalg
