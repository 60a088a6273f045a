#pragma once
// Tensor products of tables (SPEC §2): basis pairs (i, i') in lexicographic order,
// c_{(i,i'),(j,j')}^{(k,k')} = c_ij^k c'_{i'j'}^{k'}. Names "x⊗y" written "x*y"; slots compose
// as (a q' + a', b q' + b') when both factors have slots.
#include "qalg/algebra/structure_tensor.hpp"

namespace qalg {

StructureTensor tensor_product(const StructureTensor& a, const StructureTensor& b);
// k-th tensor power, k >= 1.
StructureTensor tensor_power(const StructureTensor& a, unsigned k);

}  // namespace qalg
