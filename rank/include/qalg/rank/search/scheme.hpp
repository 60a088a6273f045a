#pragma once
// A scheme: rank-one terms α ⊗ β ⊗ γ with bit-packed factors (factor.hpp) whose sum is the
// structure tensor of a table, read in the search mode's arithmetic (SPEC §3). Conversions to
// and from the rank module's BilinearAlgorithm, a dense target for checks, and a canonical key.
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "qalg/algebra/structure_tensor.hpp"
#include "qalg/rank/bilinear_algorithm.hpp"
#include "qalg/rank/search/factor.hpp"

namespace qalg::search {

inline constexpr size_t kMaxSearchDim = 64;  // one machine word per factor

struct Term {
  std::array<Factor, 3> f;  // f[0] = α (left dual), f[1] = β (right dual), f[2] = γ (element)
  bool operator==(const Term&) const = default;
};

struct Scheme {
  Mode mode = Mode::Z3;
  size_t dim = 0;
  std::vector<Term> terms;
  size_t length() const { return terms.size(); }
};

// c_ij^k as small integers, index (i·dim + j)·dim + k: reduced to [0, p) for GF2/GF3, exact
// integers for Z3. Throws InputError when dim > 64, when a coefficient has a denominator the
// mode cannot invert, or (Z3) is not an integer.
struct DenseTarget {
  Mode mode = Mode::Z3;
  size_t dim = 0;
  std::vector<int64_t> c;
  int64_t at(size_t i, size_t j, size_t k) const { return c[(i * dim + j) * dim + k]; }
};
DenseTarget dense_target(const StructureTensor& t, Mode mode);

// The table of a rational `t` read over GF(p) (coefficients reduced; slots and graph hint kept),
// so that lower bounds can be computed over the field a GF(p) scheme lives in. Throws
// InputError when p divides a denominator.
StructureTensor table_over(const StructureTensor& t, const Field& field);

// The dense tensor Σ_l α_l ⊗ β_l ⊗ γ_l in the mode's arithmetic (same layout as DenseTarget).
std::vector<int64_t> scheme_tensor(const Scheme& s);
// True when the scheme sums to the target exactly (in the mode's arithmetic).
bool scheme_matches(const Scheme& s, const DenseTarget& target);

// The algorithm's coefficients read in the mode: integers reduced mod 2 / mod 3 (±1 for GF3),
// integers in {−1, 0, 1} for Z3. nullopt when some coefficient is not representable. Terms with
// a zero factor (after reduction) are dropped.
std::optional<Scheme> scheme_from_algorithm(const BilinearAlgorithm& alg, Mode mode);

// A scheme for `t` to start from: the shortest verified algorithm qalg knows
// (best_known_algorithm), or, when its coefficients do not fit the mode, one term b_i* ⊗ b_j* ⊗
// b_k per unit of |c_ij^k|. Throws InputError when the table is out of the search's range.
Scheme initial_scheme(const StructureTensor& t, Mode mode);

// Entries ±1 as integers, reduced in `field` (GF(2) reads −1 as 1). Over Q this is the scheme
// read as an integer algorithm; it is a correct algorithm for the table only when verified.
BilinearAlgorithm scheme_to_algorithm(const Scheme& s, const Field& field, const std::string& name);

// A key equal for schemes that differ only by the order of terms and by the sign changes
// (α, β, γ) → (−α, −β, γ), (−α, β, −γ): used to keep the pool free of duplicates.
std::vector<uint64_t> canonical_key(const Scheme& s);

}  // namespace qalg::search
