// Lifting schemes from GF(p) to Q: integer reading, Hensel lifting with fixed support and
// rational reconstruction (lifting.hpp). Nothing is reported unless verify_algorithm accepts it.
#include "qalg/rank/search/lifting.hpp"

#include <algorithm>
#include <map>

#include <fmt/core.h>

#include "qalg/algebra/errors.hpp"

namespace qalg::search {

namespace {

// One unknown of the lifting: coordinate `index` of factor `pos` of term `term`.
struct Unknown {
  uint32_t term, pos, index;
};

// Hensel lifting state: the scheme's coordinates as residues modulo m = p^K.
class HenselLifter {
 public:
  HenselLifter(const Scheme& s, const StructureTensor& t) : s_(s), t_(t), n_(s.dim) {
    p_ = mode_characteristic(s.mode);
    m_ = 1;
    while (m_ <= (uint64_t{1} << 62) / p_) {
      m_ *= p_;
      ++K_;
    }
    nmod_init(&mod_, m_);
    values_.assign(s.terms.size() * 3 * n_, 0);
    for (uint32_t l = 0; l < s.terms.size(); ++l)
      for (uint32_t pos = 0; pos < 3; ++pos)
        for (uint32_t i = 0; i < n_; ++i)
          if (int e = s.terms[l].f[pos].at(i)) {
            unknowns_.push_back({l, pos, i});
            value(l, pos, i) = e > 0 ? 1 : m_ - 1;
          }
  }

  // Lifts to modulus p^K; false (with `failure`) when some step has no solution.
  bool lift(std::string& failure) {
    if (!prepare_solver(failure)) return false;
    uint64_t pk = p_;
    for (unsigned k = 1; k < K_; ++k, pk *= p_) {
      std::vector<uint64_t> e = residual();
      std::vector<uint64_t> rhs(selected_rows_.size());
      for (size_t r = 0; r < e.size(); ++r)
        if (e[r] % pk != 0) {
          failure = fmt::format("Hensel step {}: the residual is not divisible by {}^{}", k, p_, k);
          return false;
        }
      for (size_t r = 0; r < selected_rows_.size(); ++r) rhs[r] = (e[selected_rows_[r]] / pk) % p_;
      // d[pivot_t] = (E · rhs)_t, every free unknown 0.
      for (size_t t = 0; t < pivots_.size(); ++t) {
        uint64_t d = 0;
        for (size_t r = 0; r < rhs.size(); ++r) d = (d + transform_.at(t, r) * rhs[r]) % p_;
        const Unknown& u = unknowns_[pivots_[t]];
        uint64_t& v = value(u.term, u.pos, u.index);
        v = nmod_add(v, nmod_mul(d, pk % m_, mod_), mod_);
      }
    }
    for (uint64_t v : residual())
      if (v != 0) {
        failure = fmt::format("Hensel lifting: the residual is not 0 modulo {}^{}", p_, K_);
        return false;
      }
    return true;
  }

  // Rational reconstruction of every coordinate modulo p^K.
  std::optional<BilinearAlgorithm> reconstruct(std::string& failure) const {
    BilinearAlgorithm alg;
    alg.dim = n_;
    alg.field = Field::rationals();
    Rational modulus(static_cast<slong>(m_));
    for (uint32_t l = 0; l < s_.terms.size(); ++l) {
      BilinearTerm term;
      SparseVector* parts[3] = {&term.alpha, &term.beta, &term.gamma};
      for (uint32_t pos = 0; pos < 3; ++pos)
        for (uint32_t i = 0; i < n_; ++i) {
          const uint64_t v = values_[(l * 3 + pos) * n_ + i];
          if (v == 0) continue;
          Rational residue(static_cast<slong>(v)), q;
          if (!fmpq_reconstruct_fmpz(q.get(), fmpq_numref(residue.get()), fmpq_numref(modulus.get()))) {
            failure = fmt::format("rational reconstruction failed for term {} factor {} index {}", l,
                                  pos, i);
            return std::nullopt;
          }
          parts[pos]->emplace_back(i, q);
        }
      alg.terms.push_back(std::move(term));
    }
    normalize(alg);
    return alg;
  }

  unsigned exponent() const { return K_; }
  ulong prime() const { return p_; }

 private:
  uint64_t& value(uint32_t l, uint32_t pos, uint32_t i) { return values_[(l * 3 + pos) * n_ + i]; }
  uint64_t at(uint32_t l, uint32_t pos, uint32_t i) const { return values_[(l * 3 + pos) * n_ + i]; }
  size_t row(uint32_t i, uint32_t j, uint32_t k) const { return (size_t(i) * n_ + j) * n_ + k; }

  // (T − Σ_l α_l ⊗ β_l ⊗ γ_l) mod p^K, dense.
  std::vector<uint64_t> residual() const {
    std::vector<uint64_t> e(size_t(n_) * n_ * n_, 0);
    for (const auto& entry : t_.entries()) {
      const Rational& c = entry.c;
      const ulong num = fmpz_fdiv_ui(fmpq_numref(c.get()), m_);
      const ulong den = fmpz_fdiv_ui(fmpq_denref(c.get()), m_);
      e[row(entry.i, entry.j, entry.k)] = nmod_mul(num, n_invmod(den, m_), mod_);
    }
    for (uint32_t l = 0; l < s_.terms.size(); ++l)
      for (uint32_t i = 0; i < n_; ++i)
        if (uint64_t a = at(l, 0, i))
          for (uint32_t j = 0; j < n_; ++j)
            if (uint64_t b = at(l, 1, j))
              for (uint32_t k = 0; k < n_; ++k)
                if (uint64_t c = at(l, 2, k))
                  e[row(i, j, k)] = nmod_sub(e[row(i, j, k)], nmod_mul(nmod_mul(a, b, mod_), c, mod_), mod_);
    return e;
  }

  // The Jacobian mod p, a maximal set of independent rows, and E with E·J_S = rref(J_S).
  bool prepare_solver(std::string& failure) {
    if (unknowns_.empty()) {
      failure = "the scheme has no coordinates to lift";
      return false;
    }
    std::map<size_t, size_t> row_of;  // tensor coordinate -> Jacobian row
    std::vector<std::vector<std::pair<size_t, uint64_t>>> columns(unknowns_.size());
    for (size_t u = 0; u < unknowns_.size(); ++u) {
      const auto [l, pos, x] = unknowns_[u];
      const uint32_t o1 = (pos + 1) % 3, o2 = (pos + 2) % 3;
      for (uint32_t y = 0; y < n_; ++y)
        for (uint32_t z = 0; z < n_; ++z) {
          const uint64_t c = (at(l, o1, y) % p_) * (at(l, o2, z) % p_) % p_;
          if (c == 0) continue;
          uint32_t idx[3];
          idx[pos] = x;
          idx[o1] = y;
          idx[o2] = z;
          const size_t key = row(idx[0], idx[1], idx[2]);
          const size_t r = row_of.emplace(key, row_of.size()).first->second;
          columns[u].emplace_back(r, c);
        }
    }
    std::vector<size_t> coordinate(row_of.size());
    for (const auto& [key, r] : row_of) coordinate[r] = key;
    // Independent rows of J: the pivot columns of rref(Jᵀ).
    NModMatrix jt(slong(unknowns_.size()), slong(row_of.size()), p_);
    for (size_t u = 0; u < columns.size(); ++u)
      for (auto [r, c] : columns[u]) jt.at(slong(u), slong(r)) = c;
    const slong rank = nmod_mat_rref(jt.get());
    std::vector<size_t> independent;
    for (slong t = 0; t < rank; ++t)
      for (slong r = 0; r < jt.cols(); ++r)
        if (jt.at(t, r) != 0) {
          independent.push_back(size_t(r));
          break;
        }
    // [J_S | I] → [rref(J_S) | E].
    const slong cols = slong(unknowns_.size());
    NModMatrix aug(rank, cols + rank, p_);
    std::vector<slong> position(row_of.size(), -1);
    for (slong t = 0; t < rank; ++t) {
      position[independent[t]] = t;
      aug.at(t, cols + t) = 1;
    }
    for (size_t u = 0; u < columns.size(); ++u)
      for (auto [r, c] : columns[u])
        if (position[r] >= 0) aug.at(position[r], slong(u)) = c;
    nmod_mat_rref(aug.get());
    transform_ = NModMatrix(rank, rank, p_);
    for (slong t = 0; t < rank; ++t) {
      for (slong c = 0; c < cols; ++c)
        if (aug.at(t, c) != 0) {
          pivots_.push_back(size_t(c));
          break;
        }
      for (slong r = 0; r < rank; ++r) transform_.at(t, r) = aug.at(t, cols + r);
    }
    for (size_t r : independent) selected_rows_.push_back(coordinate[r]);
    return true;
  }

  const Scheme& s_;
  const StructureTensor& t_;
  uint32_t n_;
  ulong p_ = 2;
  uint64_t m_ = 1;
  unsigned K_ = 0;
  nmod_t mod_;
  std::vector<uint64_t> values_;
  std::vector<Unknown> unknowns_;
  std::vector<size_t> selected_rows_;  // tensor coordinates of the independent rows
  std::vector<size_t> pivots_;         // unknown index of each rref pivot
  NModMatrix transform_{0, 0, 2};
};

std::vector<ulong> denominator_primes(const BilinearAlgorithm& alg) {
  std::vector<ulong> primes;
  for (const auto& term : alg.terms)
    for (const SparseVector* v : {&term.alpha, &term.beta, &term.gamma})
      for (const auto& [index, c] : *v) {
        const fmpz* den = fmpq_denref(c.get());
        if (fmpz_is_one(den)) continue;
        n_factor_t f;
        n_factor_init(&f);
        n_factor(&f, fmpz_get_ui(den), 1);  // reconstructed denominators are < 2^31
        for (int i = 0; i < f.num; ++i) primes.push_back(f.p[i]);
      }
  std::sort(primes.begin(), primes.end());
  primes.erase(std::unique(primes.begin(), primes.end()), primes.end());
  return primes;
}

}  // namespace

std::string validity_statement(const std::vector<ulong>& excluded) {
  if (excluded.empty()) return "integer coefficients: valid over Z, hence over every field";
  std::string list;
  for (ulong p : excluded) list += (list.empty() ? "" : ", ") + std::to_string(p);
  return fmt::format("rational coefficients: valid over Q and over every field of characteristic "
                     "other than {}", list);
}

LiftResult lift_to_rationals(const Scheme& s, const StructureTensor& rational_table) {
  if (!rational_table.field().is_rationals())
    throw InputError("lifting needs the table over Q, got " + rational_table.field().name());
  LiftResult out;
  if (!scheme_matches(s, dense_target(rational_table, s.mode))) {
    out.failure = "the scheme does not sum to the table in its own arithmetic";
    return out;
  }
  BilinearAlgorithm integral = scheme_to_algorithm(s, Field::rationals(), "");
  if (verify_algorithm(integral, rational_table).verified) {
    out.algorithm = std::move(integral);
    out.method = "integer reading of the entries ±1";
    return out;
  }
  if (s.mode == Mode::Z3) {
    out.failure = "the Z3 scheme does not verify over Q (a bug in the search)";
    return out;
  }
  HenselLifter lifter(s, rational_table);
  std::string failure;
  std::optional<BilinearAlgorithm> alg;
  if (lifter.lift(failure)) alg = lifter.reconstruct(failure);
  if (!alg) {
    out.failure = failure;
    return out;
  }
  VerificationResult check = verify_algorithm(*alg, rational_table);
  if (!check.verified) {
    out.failure = "the reconstructed algorithm fails exact verification: " + check.failure;
    return out;
  }
  out.excluded_characteristics = denominator_primes(*alg);
  out.method = fmt::format("Hensel lifting modulo {}^{} and rational reconstruction", lifter.prime(),
                           lifter.exponent());
  out.algorithm = std::move(alg);
  return out;
}

}  // namespace qalg::search
