#pragma once
// From a scheme found over GF(2), GF(3) or {−1, 0, 1} to an algorithm over Q, always verified
// exactly against the rational table by the rank module's verifier (issue 11).
//
// 1. Integer reading: the entries ±1 read as integers. Z3 schemes are exact over Z already; a
//    GF(2)/GF(3) scheme often is too.
// 2. Hensel lifting (Kauers–Moosbauer §4): with the support of the scheme fixed, solve
//    J·d ≡ (T − Σ X)/p^k (mod p) for k = 1, 2, … up to p^K < 2^62, J the Jacobian of
//    (α, β, γ) ↦ Σ α ⊗ β ⊗ γ at the scheme mod p (free unknowns set to 0), then rational
//    reconstruction of every coefficient modulo p^K.
// The result states its field of validity: integer coefficients hold over every field;
// otherwise every characteristic dividing a denominator is excluded.
#include <optional>
#include <string>
#include <vector>

#include "qalg/algebra/structure_tensor.hpp"
#include "qalg/rank/bilinear_algorithm.hpp"
#include "qalg/rank/search/scheme.hpp"

namespace qalg::search {

struct LiftResult {
  std::optional<BilinearAlgorithm> algorithm;  // over Q, verified exactly against the table
  std::string method;                          // "integer reading" or "Hensel lifting mod p^K …"
  std::vector<ulong> excluded_characteristics; // primes dividing a denominator (empty: integral)
  std::string failure;                         // why no algorithm came out (when none did)
};

// `rational_table` must be over Q. The scheme must sum to the table in its mode's arithmetic.
LiftResult lift_to_rationals(const Scheme& s, const StructureTensor& rational_table);

// One sentence on where an algorithm over Q with these excluded characteristics is valid.
std::string validity_statement(const std::vector<ulong>& excluded_characteristics);

}  // namespace qalg::search
