#pragma once
// Exact dense linear algebra over the table's field: Q through fmpq_mat / fmpz_mat, GF(p) through
// nmod_mat. Vectors are rows; a subspace is the row space of a matrix, kept in reduced row echelon
// form (RREF) so that coordinates of a member are read off at the pivot columns.
#include <optional>
#include <vector>

#include "qalg/algebra/field.hpp"
#include "qalg/algebra/flint_raii.hpp"

namespace qalg {

// A dense matrix over Q or GF(p); exactly one of the two FLINT representations is live.
class FieldMatrix {
 public:
  FieldMatrix(const Field& f, slong rows, slong cols);
  FieldMatrix(const Field& f, QMatrix m);      // over Q
  FieldMatrix(const Field& f, NModMatrix m);   // over GF(p)

  const Field& field() const { return field_; }
  slong rows() const;
  slong cols() const;
  Rational get(slong i, slong j) const;
  void set(slong i, slong j, const Rational& x);  // x is reduced into the field
  void add_to(slong i, slong j, const Rational& x);
  bool is_zero() const;
  bool operator==(const FieldMatrix& o) const;

  QMatrix& q() { return *q_; }
  const QMatrix& q() const { return *q_; }
  NModMatrix& m() { return *m_; }
  const NModMatrix& m() const { return *m_; }

 private:
  Field field_;
  std::optional<QMatrix> q_;
  std::optional<NModMatrix> m_;
};

FieldMatrix identity_matrix(const Field& f, slong n);
FieldMatrix multiply(const FieldMatrix& a, const FieldMatrix& b);
FieldMatrix subtract(const FieldMatrix& a, const FieldMatrix& b);
FieldMatrix transpose(const FieldMatrix& a);
FieldMatrix vstack(const FieldMatrix& a, const FieldMatrix& b);
FieldMatrix hstack(const FieldMatrix& a, const FieldMatrix& b);
FieldMatrix row_of(const FieldMatrix& a, slong i);
// The rows listed in `idx`, in that order.
FieldMatrix select_rows(const FieldMatrix& a, const std::vector<slong>& idx);

size_t rank(const FieldMatrix& a);
// Basis of the row space in RREF (zero rows dropped); 0 × cols when the space is 0.
FieldMatrix row_basis(const FieldMatrix& a);
// Pivot column of each row of a matrix in RREF.
std::vector<slong> pivot_columns(const FieldMatrix& rref);
// Basis (rows, in RREF) of the left kernel { x : x a = 0 }.
FieldMatrix left_kernel(const FieldMatrix& a);
// Some x with x a = b (b one row or several), or nothing when the system has no solution.
std::optional<FieldMatrix> solve_left(const FieldMatrix& a, const FieldMatrix& b);
// The inverse, or nothing when a is singular (a square).
std::optional<FieldMatrix> inverse(const FieldMatrix& a);
// Row spaces: U ∩ V, in RREF.
FieldMatrix intersection(const FieldMatrix& u, const FieldMatrix& v);
// True when every row of `a` lies in the row space of `basis_rref` (a basis in RREF).
bool rows_in_span(const FieldMatrix& a, const FieldMatrix& basis_rref);
// Coordinates of the rows of `a` (members of the span) in the RREF basis: a = coords · basis.
FieldMatrix coordinates_in(const FieldMatrix& a, const FieldMatrix& basis_rref);

}  // namespace qalg
