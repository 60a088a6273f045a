#pragma once
// Algebras whose structure is known in closed form, for tests and benchmarks (SPEC §2):
// group algebras F[C_n], full matrix algebras M_n(F), upper triangular matrices T_n(F).
#include "qalg/algebra/structure_tensor.hpp"

namespace qalg {

// F[C_n]: basis g^0, ..., g^{n-1}; g^i g^j = g^{(i+j) mod n}. n ≥ 1.
StructureTensor cyclic_group_algebra(unsigned n, const Field& field);
// M_n(F): basis E_ab (row-major); E_ab E_cd = δ_bc E_ad. n ≥ 1.
StructureTensor matrix_algebra(unsigned n, const Field& field);
// T_n(F): the E_ab with a ≤ b (row-major), same products as in M_n. n ≥ 1.
StructureTensor upper_triangular_algebra(unsigned n, const Field& field);

}  // namespace qalg
