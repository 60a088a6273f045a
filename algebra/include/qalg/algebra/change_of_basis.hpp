#pragma once
// Change of basis (SPEC §2): new basis b'_i = Σ_a P[i][a] b_a for an invertible P (rows are the new
// basis vectors in old coordinates). The new constants are c'_ij = (b'_i b'_j) · P^{-1}.
#include "qalg/algebra/linear_algebra.hpp"
#include "qalg/algebra/structure_tensor.hpp"

namespace qalg {

// Throws InputError when P is not dim × dim, not over the table's field, or singular.
StructureTensor change_basis(const StructureTensor& t, const FieldMatrix& p);
StructureTensor change_basis(const StructureTensor& t, const QMatrix& p);     // table over Q
StructureTensor change_basis(const StructureTensor& t, const NModMatrix& p);  // table over GF(p)

}  // namespace qalg
