#pragma once
// The block support of a slot-compatible table (SPEC §4): for a token of type i and output group
// j, the input groups k with c_{(i,k),(k,j)}^{(i,j)} ≠ 0, i.e. the row action
// y_j = Σ_{k ∈ B(i,j)} c · x_k W_kj. Every cost model is derived from this support.
#include <cstdint>
#include <vector>

#include "qalg/algebra/structure_tensor.hpp"

namespace qalg {

struct BlockTerm {
  uint32_t k = 0;      // input group
  Rational coefficient;
};

struct BlockSupport {
  uint32_t q = 0;                             // groups per side
  std::vector<std::vector<BlockTerm>> cells;  // cells[i * q + j] = B(i, j)

  const std::vector<BlockTerm>& B(uint32_t i, uint32_t j) const { return cells[i * q + j]; }
  // Σ_{i,j} |B(i,j)|: block products of one full-table evaluation (= nnz of the table).
  size_t block_products() const;
  // Σ_j |B(i,j)|: block products of one type-i row (out of q² for a dense row).
  size_t block_products_of_type(uint32_t i) const;
};

// Throws InputError naming the condition and basis elements when the table is not
// slot-compatible: no slots, two basis elements in one slot, a nonzero product of slots (a,b),
// (b',d) with b ≠ b', or one that does not land in slot (a,d).
BlockSupport block_support(const StructureTensor& t);

}  // namespace qalg
