#pragma once
// Small exact operations on sparse vectors (sorted by index, no zeros), used by generators and by
// the certificate checker to re-derive claims by direct products.
#include <map>

#include "qalg/algebra/field.hpp"
#include "qalg/algebra/structure_tensor.hpp"

namespace qalg::verify {

// a·x + b·y in the field, normalised.
inline SparseVector linear_combination(const Field& f, const Rational& a, const SparseVector& x,
                                       const Rational& b, const SparseVector& y) {
  std::map<uint32_t, Rational> acc;
  for (const auto& [i, c] : x) acc[i] = f.add(acc[i], f.mul(a, c));
  for (const auto& [i, c] : y) acc[i] = f.add(acc[i], f.mul(b, c));
  SparseVector out;
  for (auto& [i, c] : acc)
    if (!c.is_zero()) out.emplace_back(i, std::move(c));
  return out;
}

inline SparseVector add(const Field& f, const SparseVector& x, const SparseVector& y) {
  return linear_combination(f, Rational(1), x, Rational(1), y);
}
inline SparseVector subtract(const Field& f, const SparseVector& x, const SparseVector& y) {
  return linear_combination(f, Rational(1), x, f.from_int(-1), y);
}
inline SparseVector scale(const Field& f, const Rational& a, const SparseVector& x) {
  return linear_combination(f, a, x, Rational(0), {});
}
inline SparseVector basis_vector(uint32_t i) { return {{i, Rational(1)}}; }

// The inverse of a nonzero field element (over GF(p) the rational 1/c reduces to c^{-1} mod p).
inline Rational field_inverse(const Field& f, const Rational& c) {
  Rational r;
  fmpq_inv(r.get(), c.get());
  f.reduce(r);
  return r;
}

// Coordinate i of x (zero when absent).
inline Rational coordinate(const SparseVector& x, uint32_t i) {
  for (const auto& [k, c] : x)
    if (k == i) return c;
  return Rational(0);
}

}  // namespace qalg::verify
