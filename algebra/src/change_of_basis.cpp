// Change of basis by an invertible matrix: c'_ij = (b'_i b'_j) P^{-1}, computed one left factor at
// a time as (P L_{b'_i}) P^{-1}, whose row j is b'_i b'_j in the new coordinates.
#include <fmt/core.h>

#include "qalg/algebra/change_of_basis.hpp"
#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/general_structure.hpp"

namespace qalg {

StructureTensor change_basis(const StructureTensor& t, const FieldMatrix& p) {
  slong n = static_cast<slong>(t.dim());
  if (p.rows() != n || p.cols() != n)
    throw InputError(fmt::format("change of basis: matrix is {}×{}, the table has dimension {}",
                                 p.rows(), p.cols(), n));
  if (!(p.field() == t.field()))
    throw InputError(fmt::format("change of basis: matrix over {}, table over {}", p.field().name(),
                                 t.field().name()));
  std::optional<FieldMatrix> inv = inverse(p);
  if (!inv)
    throw InputError(fmt::format("change of basis: matrix is singular (rank {} < {})", rank(p), n));
  std::vector<std::string> names;
  for (slong i = 0; i < n; ++i) names.push_back(fmt::format("v{}", i + 1));
  StructureTensor out(t.field(), names);
  for (slong i = 0; i < n; ++i) {
    FieldMatrix rows = multiply(multiply(p, left_multiplication(t, row_of(p, i))), *inv);
    for (slong j = 0; j < n; ++j)
      for (slong k = 0; k < n; ++k) {
        Rational c = rows.get(j, k);
        if (!c.is_zero()) out.add(static_cast<uint32_t>(i), static_cast<uint32_t>(j), static_cast<uint32_t>(k), c);
      }
  }
  out.finalize();
  return out;
}

StructureTensor change_basis(const StructureTensor& t, const QMatrix& p) {
  if (!t.field().is_rationals())
    throw InputError("change of basis: a rational matrix needs a table over Q, not " + t.field().name());
  return change_basis(t, FieldMatrix(t.field(), p));
}

StructureTensor change_basis(const StructureTensor& t, const NModMatrix& p) {
  if (t.field().is_rationals() || p.get()->mod.n != t.field().characteristic())
    throw InputError("change of basis: a matrix mod " + std::to_string(p.get()->mod.n) +
                     " needs a table over that prime field, not " + t.field().name());
  return change_basis(t, FieldMatrix(t.field(), p));
}

}  // namespace qalg
