// The centre of a table and the primitive idempotents of the centre of a semisimple algebra
// (SPEC §2: t(A) = number of primitive idempotents of Z(A/rad A)).
#include <algorithm>
#include <random>

#include <flint/fmpz_poly_factor.h>
#include <flint/nmod_poly_factor.h>
#include <fmt/core.h>

#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/general_structure.hpp"
#include "qalg/algebra/unit.hpp"

namespace qalg {

FieldMatrix centre(const StructureTensor& t) {
  slong n = static_cast<slong>(t.dim());
  FieldMatrix z = identity_matrix(t.field(), n);
  if (n == 0) return z;
  // z commutes with b_j iff Σ_a z_a (c_aj^k - c_ja^k) = 0 for all k; the columns (j, k) are
  // processed in chunks of basis elements so the condition matrix stays small.
  slong chunk = std::max<slong>(1, (slong{1} << 22) / (n * n));
  for (slong j0 = 0; j0 < n && z.rows() > 0; j0 += chunk) {
    slong j1 = std::min(n, j0 + chunk);
    FieldMatrix cond(t.field(), n, n * (j1 - j0));
    for (const auto& e : t.entries()) {
      if (e.j >= j0 && e.j < j1) cond.add_to(e.i, (e.j - j0) * n + e.k, e.c);
      if (e.i >= j0 && e.i < j1) cond.add_to(e.j, (e.i - j0) * n + e.k, t.field().neg(e.c));
    }
    FieldMatrix k = left_kernel(multiply(z, cond));
    z = row_basis(multiply(k, z));
  }
  return z;
}

namespace {

FieldMatrix power(const StructureTensor& t, FieldMatrix x, ulong e, const FieldMatrix& one) {
  FieldMatrix r = one;
  while (e > 0) {
    if (e & 1) r = multiply_elements(t, r, x);
    e >>= 1;
    if (e > 0) x = multiply_elements(t, x, x);
  }
  return r;
}

FieldMatrix scaled(const FieldMatrix& x, const Rational& c) {
  FieldMatrix r(x.field(), 1, x.cols());
  for (slong j = 0; j < x.cols(); ++j) r.set(0, j, x.get(0, j) * c);
  return r;
}

FieldMatrix add(const FieldMatrix& a, const FieldMatrix& b) {
  return subtract(a, subtract(FieldMatrix(a.field(), a.rows(), a.cols()), b));
}

// Monic minimal polynomial of x in the algebra with unit `one` (coefficients, low degree first).
std::vector<Rational> minimal_polynomial(const StructureTensor& t, const FieldMatrix& x,
                                         const FieldMatrix& one) {
  FieldMatrix powers = one, cur = one;
  for (;;) {
    cur = multiply_elements(t, cur, x);
    if (auto s = solve_left(powers, cur)) {
      std::vector<Rational> m;
      for (slong i = 0; i < s->cols(); ++i) m.push_back(t.field().neg(s->get(0, i)));
      m.push_back(Rational(1));
      return m;
    }
    powers = vstack(powers, cur);
  }
}

FieldMatrix evaluate(const StructureTensor& t, const QPoly& g, const FieldMatrix& x,
                     const FieldMatrix& one) {
  FieldMatrix r(t.field(), 1, x.cols());
  for (slong i = fmpq_poly_degree(g.get()); i >= 0; --i) {
    Rational c;
    fmpq_poly_get_coeff_fmpq(c.get(), g.get(), i);
    r = add(multiply_elements(t, r, x), scaled(one, c));
  }
  return r;
}

std::vector<FieldMatrix> split_over_rationals(const StructureTensor& b, const FieldMatrix& z,
                                              const FieldMatrix& one, ulong seed) {
  std::mt19937_64 rng(seed);
  // x generates Z = Q^n (n = z.rows()) iff its n coordinates are distinct, so coefficients from a
  // range of R values fail with probability about n^2 / (2R): the range grows with n^2 and doubles
  // with every attempt. (A fixed ±1000 failed all 40 tries for n of about 150 or more.)
  const slong n = z.rows();
  slong bound = std::max<slong>(1000, 4 * n * n);
  for (int attempt = 0; attempt < 40; ++attempt, bound = std::min<slong>(bound * 2, slong(1) << 40)) {
    std::uniform_int_distribution<slong> coef(-bound, bound);
    FieldMatrix x(b.field(), 1, z.cols());
    for (slong i = 0; i < z.rows(); ++i) x = add(x, scaled(row_of(z, i), Rational(coef(rng))));
    std::vector<Rational> m = minimal_polynomial(b, x, one);
    if (static_cast<slong>(m.size()) - 1 < z.rows()) continue;  // x does not generate Z
    QPoly mq;
    for (size_t i = 0; i < m.size(); ++i) fmpq_poly_set_coeff_fmpq(mq.get(), i, m[i].get());
    // Z = Q[x]/(m); Z is reduced iff m is squarefree.
    ZPoly mz;
    fmpq_poly_get_numerator(mz.get(), mq.get());
    if (!fmpz_poly_is_squarefree(mz.get()))
      throw InputError("the centre of A/rad A has nilpotent elements: quotient not semisimple");
    ZPolyFactor fac;
    fmpz_poly_factor(fac.get(), mz.get());
    std::vector<FieldMatrix> idem;
    for (slong i = 0; i < fac.get()->num; ++i) {
      QPoly fi, rest, g, s, tt, quot;
      fmpq_poly_set_fmpz_poly(fi.get(), fac.get()->p + i);
      fmpq_poly_div(rest.get(), mq.get(), fi.get());
      fmpq_poly_xgcd(g.get(), s.get(), tt.get(), rest.get(), fi.get());  // s·rest + t·fi = 1
      fmpq_poly_mul(quot.get(), s.get(), rest.get());
      fmpq_poly_rem(quot.get(), quot.get(), mq.get());  // ≡ 1 mod f_i, ≡ 0 mod f_j (j ≠ i)
      idem.push_back(evaluate(b, quot, x, one));
    }
    return idem;
  }
  throw std::runtime_error("centre splitting: no generating element found in 40 random tries");
}

std::vector<FieldMatrix> split_over_prime_field(const StructureTensor& b, const FieldMatrix& z,
                                                const FieldMatrix& one) {
  ulong p = b.field().characteristic();
  // Frobenius z ↦ z^p is F_p-linear on the commutative algebra Z; injective iff Z is reduced.
  FieldMatrix frob(b.field(), z.rows(), z.rows());
  for (slong i = 0; i < z.rows(); ++i) {
    FieldMatrix c = coordinates_in(power(b, row_of(z, i), p, one), z);
    for (slong j = 0; j < z.rows(); ++j) frob.set(i, j, c.get(0, j));
  }
  if (rank(frob) < static_cast<size_t>(z.rows()))
    throw InputError("the centre of A/rad A has nilpotent elements: quotient not semisimple");
  // Berlekamp: { z : z^p = z } ≅ F_p^t is spanned by the t primitive idempotents.
  FieldMatrix fixed = multiply(left_kernel(subtract(frob, identity_matrix(b.field(), z.rows()))), z);
  size_t t = static_cast<size_t>(fixed.rows());
  std::vector<FieldMatrix> idem{one};
  for (slong s = 0; s < fixed.rows() && idem.size() < t; ++s) {
    std::vector<FieldMatrix> next;
    for (const auto& e : idem) {
      FieldMatrix x = multiply_elements(b, row_of(fixed, s), e);
      std::vector<Rational> m = minimal_polynomial(b, x, e);
      NModPoly mp(p);
      for (size_t i = 0; i < m.size(); ++i) nmod_poly_set_coeff_ui(mp.get(), i, b.field().residue(m[i]));
      NModPolyFactor roots;
      nmod_poly_roots(roots.get(), mp.get(), 0);
      if (roots.get()->num <= 1) { next.push_back(e); continue; }
      for (slong r = 0; r < roots.get()->num; ++r) {
        // root λ: x - λ = X + c0 (monic linear factor); indicator e - (x - λe)^{p-1}.
        Rational lambda = b.field().neg(Rational(static_cast<slong>(nmod_poly_get_coeff_ui(roots.get()->p + r, 0))));
        FieldMatrix y = subtract(x, scaled(e, lambda));
        next.push_back(subtract(e, power(b, y, p - 1, e)));
      }
    }
    idem = std::move(next);
  }
  if (idem.size() != t) throw std::logic_error("Berlekamp splitting did not separate the centre");
  return idem;
}

}  // namespace

std::vector<FieldMatrix> primitive_central_idempotents(const StructureTensor& b, ulong seed) {
  if (b.dim() == 0) return {};
  UnitResult u = find_unit(b);
  if (!u.unit) throw InputError("A/rad A has no unit, so it is not semisimple: " + u.reason);
  FieldMatrix one(b.field(), 1, static_cast<slong>(b.dim()));
  for (const auto& [k, c] : *u.unit) one.set(0, k, c);
  FieldMatrix z = centre(b);
  if (b.field().is_rationals()) return split_over_rationals(b, z, one, seed);
  return split_over_prime_field(b, z, one);
}

}  // namespace qalg
