// Dense exact linear algebra over Q (fmpq_mat, fmpz_mat for kernels) and GF(p) (nmod_mat).
#include "qalg/algebra/linear_algebra.hpp"

#include <stdexcept>

namespace qalg {

FieldMatrix::FieldMatrix(const Field& f, slong rows, slong cols) : field_(f) {
  if (f.is_rationals()) q_.emplace(rows, cols);
  else m_.emplace(rows, cols, f.characteristic());
}
FieldMatrix::FieldMatrix(const Field& f, QMatrix m) : field_(f) { q_.emplace(std::move(m)); }
FieldMatrix::FieldMatrix(const Field& f, NModMatrix m) : field_(f) { m_.emplace(std::move(m)); }

slong FieldMatrix::rows() const { return q_ ? q_->rows() : m_->rows(); }
slong FieldMatrix::cols() const { return q_ ? q_->cols() : m_->cols(); }

Rational FieldMatrix::get(slong i, slong j) const {
  Rational r;
  if (q_) fmpq_set(r.get(), q_->at(i, j));
  else fmpq_set_ui(r.get(), m_->at(i, j), 1);
  return r;
}

void FieldMatrix::set(slong i, slong j, const Rational& x) {
  Rational r = x;
  field_.reduce(r);
  if (q_) fmpq_set(q_->at(i, j), r.get());
  else m_->at(i, j) = field_.residue(r);
}

void FieldMatrix::add_to(slong i, slong j, const Rational& x) {
  if (q_) {
    fmpq_add(q_->at(i, j), q_->at(i, j), x.get());
  } else {
    Rational r = x;
    field_.reduce(r);
    m_->at(i, j) = nmod_add(m_->at(i, j), field_.residue(r), m_->get()->mod);
  }
}

bool FieldMatrix::is_zero() const { return q_ ? fmpq_mat_is_zero(q_->get()) : nmod_mat_is_zero(m_->get()); }

bool FieldMatrix::operator==(const FieldMatrix& o) const {
  if (!(field_ == o.field_) || rows() != o.rows() || cols() != o.cols()) return false;
  return q_ ? fmpq_mat_equal(q_->get(), o.q_->get()) : nmod_mat_equal(m_->get(), o.m_->get());
}

FieldMatrix identity_matrix(const Field& f, slong n) {
  FieldMatrix r(f, n, n);
  if (f.is_rationals()) fmpq_mat_one(r.q().get());
  else nmod_mat_one(r.m().get());
  return r;
}

FieldMatrix multiply(const FieldMatrix& a, const FieldMatrix& b) {
  if (a.cols() != b.rows()) throw std::logic_error("multiply: shape mismatch");
  FieldMatrix r(a.field(), a.rows(), b.cols());
  if (a.field().is_rationals()) fmpq_mat_mul(r.q().get(), a.q().get(), b.q().get());
  else nmod_mat_mul(r.m().get(), a.m().get(), b.m().get());
  return r;
}

FieldMatrix subtract(const FieldMatrix& a, const FieldMatrix& b) {
  FieldMatrix r(a.field(), a.rows(), a.cols());
  if (a.field().is_rationals()) fmpq_mat_sub(r.q().get(), a.q().get(), b.q().get());
  else nmod_mat_sub(r.m().get(), a.m().get(), b.m().get());
  return r;
}

FieldMatrix transpose(const FieldMatrix& a) {
  FieldMatrix r(a.field(), a.cols(), a.rows());
  if (a.field().is_rationals()) fmpq_mat_transpose(r.q().get(), a.q().get());
  else nmod_mat_transpose(r.m().get(), a.m().get());
  return r;
}

// Copies `src` into `dst` with its top-left corner at (r0, c0).
static void paste(FieldMatrix& dst, const FieldMatrix& src, slong r0, slong c0) {
  for (slong i = 0; i < src.rows(); ++i)
    for (slong j = 0; j < src.cols(); ++j) {
      if (dst.field().is_rationals()) fmpq_set(dst.q().at(r0 + i, c0 + j), src.q().at(i, j));
      else dst.m().at(r0 + i, c0 + j) = src.m().at(i, j);
    }
}

FieldMatrix vstack(const FieldMatrix& a, const FieldMatrix& b) {
  if (a.cols() != b.cols()) throw std::logic_error("vstack: column mismatch");
  FieldMatrix r(a.field(), a.rows() + b.rows(), a.cols());
  paste(r, a, 0, 0);
  paste(r, b, a.rows(), 0);
  return r;
}

FieldMatrix hstack(const FieldMatrix& a, const FieldMatrix& b) {
  if (a.rows() != b.rows()) throw std::logic_error("hstack: row mismatch");
  FieldMatrix r(a.field(), a.rows(), a.cols() + b.cols());
  paste(r, a, 0, 0);
  paste(r, b, 0, a.cols());
  return r;
}

FieldMatrix select_rows(const FieldMatrix& a, const std::vector<slong>& idx) {
  FieldMatrix r(a.field(), static_cast<slong>(idx.size()), a.cols());
  for (size_t i = 0; i < idx.size(); ++i)
    for (slong j = 0; j < a.cols(); ++j) {
      if (a.field().is_rationals()) fmpq_set(r.q().at(i, j), a.q().at(idx[i], j));
      else r.m().at(i, j) = a.m().at(idx[i], j);
    }
  return r;
}

FieldMatrix row_of(const FieldMatrix& a, slong i) { return select_rows(a, {i}); }

// RREF of a copy of `a`; returns the rank.
static slong rref_copy(const FieldMatrix& a, FieldMatrix& out) {
  out = a;
  if (a.field().is_rationals()) return fmpq_mat_rref(out.q().get(), a.q().get());
  return nmod_mat_rref(out.m().get());
}

size_t rank(const FieldMatrix& a) {
  if (a.rows() == 0 || a.cols() == 0) return 0;
  if (!a.field().is_rationals()) return static_cast<size_t>(nmod_mat_rank(a.m().get()));
  FieldMatrix r = a;
  return static_cast<size_t>(rref_copy(a, r));
}

FieldMatrix row_basis(const FieldMatrix& a) {
  if (a.rows() == 0) return FieldMatrix(a.field(), 0, a.cols());
  FieldMatrix r = a;
  slong rk = rref_copy(a, r);
  std::vector<slong> idx(rk);
  for (slong i = 0; i < rk; ++i) idx[i] = i;
  return select_rows(r, idx);
}

std::vector<slong> pivot_columns(const FieldMatrix& rref) {
  std::vector<slong> piv;
  for (slong i = 0; i < rref.rows(); ++i) {
    slong j = 0;
    while (j < rref.cols() && (rref.field().is_rationals() ? fmpq_is_zero(rref.q().at(i, j))
                                                          : rref.m().at(i, j) == 0))
      ++j;
    if (j == rref.cols()) throw std::logic_error("pivot_columns: zero row in RREF basis");
    piv.push_back(j);
  }
  return piv;
}

FieldMatrix left_kernel(const FieldMatrix& a) {
  const Field& f = a.field();
  slong n = a.rows();
  if (n == 0) return FieldMatrix(f, 0, 0);
  if (a.cols() == 0) return identity_matrix(f, n);
  FieldMatrix at = transpose(a);  // kernel of a^T as columns
  FieldMatrix ker(f, 0, n);
  if (f.is_rationals()) {
    // Clear denominators row by row (scaling a row of a^T keeps its kernel) and use the
    // fraction-free integer nullspace.
    ZMatrix num(at.rows(), at.cols());
    std::vector<fmpz> dens(at.rows(), 0);  // fmpz 0 is an initialised small integer
    fmpq_mat_get_fmpz_mat_rowwise(num.get(), dens.data(), at.q().get());
    for (auto& d : dens) fmpz_clear(&d);
    ZMatrix x(n, n);
    slong nullity = fmpz_mat_nullspace(x.get(), num.get());
    QMatrix rows(nullity, n);
    for (slong c = 0; c < nullity; ++c)
      for (slong r = 0; r < n; ++r) fmpz_set(fmpq_numref(rows.at(c, r)), x.at(r, c));
    ker = FieldMatrix(f, std::move(rows));
  } else {
    NModMatrix x(n, n, f.characteristic());
    slong nullity = nmod_mat_nullspace(x.get(), at.m().get());
    NModMatrix rows(nullity, n, f.characteristic());
    for (slong c = 0; c < nullity; ++c)
      for (slong r = 0; r < n; ++r) rows.at(c, r) = x.at(r, c);
    ker = FieldMatrix(f, std::move(rows));
  }
  return row_basis(ker);
}

std::optional<FieldMatrix> solve_left(const FieldMatrix& a, const FieldMatrix& b) {
  // x a = b  <=>  a^T x^T = b^T
  FieldMatrix at = transpose(a), bt = transpose(b);
  FieldMatrix xt(a.field(), a.rows(), b.rows());
  int ok = a.field().is_rationals() ? fmpq_mat_can_solve(xt.q().get(), at.q().get(), bt.q().get())
                                    : nmod_mat_can_solve(xt.m().get(), at.m().get(), bt.m().get());
  if (!ok) return std::nullopt;
  return transpose(xt);
}

std::optional<FieldMatrix> inverse(const FieldMatrix& a) {
  if (a.rows() != a.cols()) return std::nullopt;
  FieldMatrix r(a.field(), a.rows(), a.cols());
  int ok = a.field().is_rationals() ? fmpq_mat_inv(r.q().get(), a.q().get())
                                    : nmod_mat_inv(r.m().get(), a.m().get());
  if (!ok) return std::nullopt;
  return r;
}

FieldMatrix coordinates_in(const FieldMatrix& a, const FieldMatrix& basis_rref) {
  std::vector<slong> piv = pivot_columns(basis_rref);
  FieldMatrix c(a.field(), a.rows(), static_cast<slong>(piv.size()));
  for (slong i = 0; i < a.rows(); ++i)
    for (size_t r = 0; r < piv.size(); ++r) {
      if (a.field().is_rationals()) fmpq_set(c.q().at(i, r), a.q().at(i, piv[r]));
      else c.m().at(i, r) = a.m().at(i, piv[r]);
    }
  return c;
}

bool rows_in_span(const FieldMatrix& a, const FieldMatrix& basis_rref) {
  if (a.rows() == 0) return true;
  if (basis_rref.rows() == 0) return a.is_zero();
  // In RREF a member equals (its pivot entries) · basis; anything else is outside the span.
  FieldMatrix back = multiply(coordinates_in(a, basis_rref), basis_rref);
  return back == a;
}

FieldMatrix intersection(const FieldMatrix& u, const FieldMatrix& v) {
  if (u.rows() == 0 || v.rows() == 0) return FieldMatrix(u.field(), 0, u.cols());
  // x = α U = β V  <=>  (α, -β) [U; V] = 0.
  FieldMatrix k = left_kernel(vstack(u, v));
  FieldMatrix alpha(u.field(), k.rows(), u.rows());
  for (slong i = 0; i < k.rows(); ++i)
    for (slong j = 0; j < u.rows(); ++j) alpha.set(i, j, k.get(i, j));
  return row_basis(multiply(alpha, u));
}

}  // namespace qalg
