#pragma once
// Exports of a table for independent computer-algebra systems (issue 3):
//  - GAP: a script that binds the algebra to the variable A via AlgebraByStructureConstants;
//  - PARI/GP: the multiplication table mt and A = algtableinit(mt, p). PARI requires the first
//    basis element to be the unit, so the table is first rewritten in the basis (1, b_k : k ≠ i0)
//    where i0 is the first basis element with a nonzero coefficient in the unit.
#include <string>

#include "qalg/algebra/structure_tensor.hpp"

namespace qalg {

// `title` goes into a comment line. Any table (associative or not).
std::string gap_script(const StructureTensor& t, const std::string& title);
// Throws InputError when the table has no unit (algtableinit cannot represent it).
std::string pari_script(const StructureTensor& t, const std::string& title);

}  // namespace qalg
