#pragma once
// The one place where FLINT objects are initialised and cleared (STYLE.md: RAII once).
// Every other file uses these wrappers and never calls *_init / *_clear by hand.
#include <flint/flint.h>
#include <flint/fmpz.h>
#include <flint/fmpq.h>
#include <flint/fmpz_mat.h>
#include <flint/fmpq_mat.h>
#include <flint/nmod_mat.h>
#include <flint/nmod_poly.h>
#include <flint/fmpz_poly.h>
#include <flint/fmpq_poly.h>

#include <string>
#include <utility>

namespace qalg {

// An exact rational number (FLINT fmpq). Small values live inline, so 0/1 tables cost no heap.
class Rational {
 public:
  Rational() { fmpq_init(v_); }
  explicit Rational(slong n) { fmpq_init(v_); fmpq_set_si(v_, n, 1); }
  Rational(slong num, ulong den) { fmpq_init(v_); fmpq_set_si(v_, num, den); }
  Rational(const Rational& o) { fmpq_init(v_); fmpq_set(v_, o.v_); }
  Rational(Rational&& o) noexcept { fmpq_init(v_); fmpq_swap(v_, o.v_); }
  Rational& operator=(const Rational& o) { if (this != &o) fmpq_set(v_, o.v_); return *this; }
  Rational& operator=(Rational&& o) noexcept { fmpq_swap(v_, o.v_); return *this; }
  ~Rational() { fmpq_clear(v_); }

  fmpq* get() { return v_; }
  const fmpq* get() const { return v_; }
  bool is_zero() const { return fmpq_is_zero(v_); }
  bool is_one() const { return fmpq_is_one(v_); }
  int sign() const { return fmpq_sgn(v_); }
  bool operator==(const Rational& o) const { return fmpq_equal(v_, o.v_); }
  bool operator!=(const Rational& o) const { return !(*this == o); }
  bool operator<(const Rational& o) const { return fmpq_cmp(v_, o.v_) < 0; }
  Rational operator+(const Rational& o) const { Rational r; fmpq_add(r.v_, v_, o.v_); return r; }
  Rational operator-(const Rational& o) const { Rational r; fmpq_sub(r.v_, v_, o.v_); return r; }
  Rational operator*(const Rational& o) const { Rational r; fmpq_mul(r.v_, v_, o.v_); return r; }
  Rational operator-() const { Rational r; fmpq_neg(r.v_, v_); return r; }
  Rational& operator+=(const Rational& o) { fmpq_add(v_, v_, o.v_); return *this; }
  Rational& operator-=(const Rational& o) { fmpq_sub(v_, v_, o.v_); return *this; }
  Rational& operator*=(const Rational& o) { fmpq_mul(v_, v_, o.v_); return *this; }
  // "p/q" or "n" in lowest terms.
  std::string str() const {
    char* s = fmpq_get_str(nullptr, 10, v_);
    std::string out(s);
    flint_free(s);
    return out;
  }
  // Parses "n", "-n", "p/q" (any integer size). Returns false on malformed text or q = 0.
  static bool parse(const std::string& text, Rational& out);

 private:
  fmpq_t v_;
};

// Dense matrix over Q (FLINT fmpq_mat).
class QMatrix {
 public:
  QMatrix(slong rows, slong cols) { fmpq_mat_init(m_, rows, cols); }
  QMatrix(const QMatrix& o) { fmpq_mat_init_set(m_, o.m_); }
  QMatrix(QMatrix&& o) noexcept { fmpq_mat_init(m_, 0, 0); fmpq_mat_swap(m_, o.m_); }
  QMatrix& operator=(QMatrix o) noexcept { fmpq_mat_swap(m_, o.m_); return *this; }
  ~QMatrix() { fmpq_mat_clear(m_); }
  fmpq_mat_struct* get() { return m_; }
  const fmpq_mat_struct* get() const { return m_; }
  slong rows() const { return fmpq_mat_nrows(m_); }
  slong cols() const { return fmpq_mat_ncols(m_); }
  fmpq* at(slong i, slong j) { return fmpq_mat_entry(m_, i, j); }
  const fmpq* at(slong i, slong j) const { return fmpq_mat_entry(m_, i, j); }

 private:
  fmpq_mat_t m_;
};

// Dense matrix over Z (FLINT fmpz_mat).
class ZMatrix {
 public:
  ZMatrix(slong rows, slong cols) { fmpz_mat_init(m_, rows, cols); }
  ZMatrix(const ZMatrix& o) { fmpz_mat_init_set(m_, o.m_); }
  ZMatrix(ZMatrix&& o) noexcept { fmpz_mat_init(m_, 0, 0); fmpz_mat_swap(m_, o.m_); }
  ZMatrix& operator=(ZMatrix o) noexcept { fmpz_mat_swap(m_, o.m_); return *this; }
  ~ZMatrix() { fmpz_mat_clear(m_); }
  fmpz_mat_struct* get() { return m_; }
  const fmpz_mat_struct* get() const { return m_; }
  slong rows() const { return fmpz_mat_nrows(m_); }
  slong cols() const { return fmpz_mat_ncols(m_); }
  fmpz* at(slong i, slong j) { return fmpz_mat_entry(m_, i, j); }

 private:
  fmpz_mat_t m_;
};

// Dense matrix over GF(p) (FLINT nmod_mat).
class NModMatrix {
 public:
  NModMatrix(slong rows, slong cols, ulong p) { nmod_mat_init(m_, rows, cols, p); }
  NModMatrix(const NModMatrix& o) { nmod_mat_init_set(m_, o.m_); }
  NModMatrix(NModMatrix&& o) noexcept { nmod_mat_init(m_, 0, 0, o.m_->mod.n); nmod_mat_swap(m_, o.m_); }
  NModMatrix& operator=(NModMatrix o) noexcept { nmod_mat_swap(m_, o.m_); return *this; }
  ~NModMatrix() { nmod_mat_clear(m_); }
  nmod_mat_struct* get() { return m_; }
  const nmod_mat_struct* get() const { return m_; }
  slong rows() const { return nmod_mat_nrows(m_); }
  slong cols() const { return nmod_mat_ncols(m_); }
  ulong& at(slong i, slong j) { return nmod_mat_entry(m_, i, j); }
  ulong at(slong i, slong j) const { return nmod_mat_entry(m_, i, j); }

 private:
  nmod_mat_t m_;
};

// Polynomials over Z, Q and GF(p).
class ZPoly {
 public:
  ZPoly() { fmpz_poly_init(p_); }
  ZPoly(const ZPoly& o) { fmpz_poly_init(p_); fmpz_poly_set(p_, o.p_); }
  ZPoly& operator=(const ZPoly& o) { fmpz_poly_set(p_, o.p_); return *this; }
  ~ZPoly() { fmpz_poly_clear(p_); }
  fmpz_poly_struct* get() { return p_; }
  const fmpz_poly_struct* get() const { return p_; }

 private:
  fmpz_poly_t p_;
};

class QPoly {
 public:
  QPoly() { fmpq_poly_init(p_); }
  QPoly(const QPoly& o) { fmpq_poly_init(p_); fmpq_poly_set(p_, o.p_); }
  QPoly& operator=(const QPoly& o) { fmpq_poly_set(p_, o.p_); return *this; }
  ~QPoly() { fmpq_poly_clear(p_); }
  fmpq_poly_struct* get() { return p_; }
  const fmpq_poly_struct* get() const { return p_; }

 private:
  fmpq_poly_t p_;
};

class NModPoly {
 public:
  explicit NModPoly(ulong p) { nmod_poly_init(p_, p); }
  NModPoly(const NModPoly& o) { nmod_poly_init(p_, o.p_->mod.n); nmod_poly_set(p_, o.p_); }
  NModPoly& operator=(const NModPoly& o) { nmod_poly_set(p_, o.p_); return *this; }
  ~NModPoly() { nmod_poly_clear(p_); }
  nmod_poly_struct* get() { return p_; }
  const nmod_poly_struct* get() const { return p_; }

 private:
  nmod_poly_t p_;
};

class ZPolyFactor {
 public:
  ZPolyFactor() { fmpz_poly_factor_init(f_); }
  ZPolyFactor(const ZPolyFactor&) = delete;
  ZPolyFactor& operator=(const ZPolyFactor&) = delete;
  ~ZPolyFactor() { fmpz_poly_factor_clear(f_); }
  fmpz_poly_factor_struct* get() { return f_; }

 private:
  fmpz_poly_factor_t f_;
};

class NModPolyFactor {
 public:
  NModPolyFactor() { nmod_poly_factor_init(f_); }
  NModPolyFactor(const NModPolyFactor&) = delete;
  NModPolyFactor& operator=(const NModPolyFactor&) = delete;
  ~NModPolyFactor() { nmod_poly_factor_clear(f_); }
  nmod_poly_factor_struct* get() { return f_; }

 private:
  nmod_poly_factor_t f_;
};

}  // namespace qalg
