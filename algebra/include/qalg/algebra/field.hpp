#pragma once
// The coefficient field: Q or GF(p). Coefficients are always stored as Rationals; over GF(p)
// they are kept reduced to integers in [0, p), so one StructureTensor type serves both fields.
#include <string>

#include "qalg/algebra/flint_raii.hpp"

namespace qalg {

class Field {
 public:
  enum class Kind { Rationals, Prime };

  static Field rationals() { return Field(Kind::Rationals, 0); }
  // Throws InputError unless p is a prime that fits a machine word (FLINT nmod).
  static Field prime(ulong p);
  // Parses "Q", "QQ", "GF(p)", "F_p", "Fp", "p" (a prime). Throws InputError.
  static Field parse(const std::string& text);

  Kind kind() const { return kind_; }
  bool is_rationals() const { return kind_ == Kind::Rationals; }
  ulong characteristic() const { return p_; }  // 0 for Q
  std::string name() const;                    // "Q" or "GF(p)"
  bool operator==(const Field& o) const { return kind_ == o.kind_ && p_ == o.p_; }

  // Maps a rational into the field's canonical representative (identity over Q; over GF(p)
  // num * den^{-1} mod p in [0, p)). Throws InputError when p divides the denominator.
  void reduce(Rational& x) const;
  Rational from_int(slong n) const { Rational r(n); reduce(r); return r; }
  Rational add(const Rational& a, const Rational& b) const { Rational r = a + b; reduce(r); return r; }
  Rational sub(const Rational& a, const Rational& b) const { Rational r = a - b; reduce(r); return r; }
  Rational mul(const Rational& a, const Rational& b) const { Rational r = a * b; reduce(r); return r; }
  Rational neg(const Rational& a) const { Rational r = -a; reduce(r); return r; }
  // Residue as a word, for GF(p) only (x must already be reduced).
  ulong residue(const Rational& x) const { return fmpz_get_ui(fmpq_numref(x.get())); }

 private:
  Field(Kind k, ulong p) : kind_(k), p_(p) {}
  Kind kind_;
  ulong p_;
};

}  // namespace qalg
