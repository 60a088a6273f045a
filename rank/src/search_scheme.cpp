// Schemes of the flip-graph search: conversions between bit-packed terms and the rank module's
// BilinearAlgorithm, the dense target tensor, the starting scheme and the pool's canonical key.
#include "qalg/rank/search/scheme.hpp"

#include <algorithm>

#include <fmt/core.h>

#include "qalg/algebra/errors.hpp"
#include "qalg/rank/rank_report.hpp"

namespace qalg::search {

Mode parse_mode(const std::string& text) {
  if (text == "F2" || text == "GF(2)" || text == "GF2") return Mode::GF2;
  if (text == "F3" || text == "GF(3)" || text == "GF3") return Mode::GF3;
  if (text == "Z3" || text == "Z") return Mode::Z3;
  throw InputError(fmt::format(
      "--field {}: the search works over F2, F3 or Z3 (integer coefficients in {{-1, 0, 1}})", text));
}

std::string mode_name(Mode m) {
  switch (m) {
    case Mode::GF2: return "F2";
    case Mode::GF3: return "F3";
    default: return "Z3";
  }
}

unsigned mode_characteristic(Mode m) { return m == Mode::GF2 ? 2 : m == Mode::GF3 ? 3 : 0; }

namespace {

// The integer value of c in the mode: residue in [0, p) for GF2/GF3, exact integer for Z3.
int64_t mode_value(const Rational& c, Mode mode, const std::string& where) {
  if (mode == Mode::Z3) {
    if (!fmpz_is_one(fmpq_denref(c.get())) || !fmpz_fits_si(fmpq_numref(c.get())))
      throw InputError(fmt::format("{}: coefficient {} is not a machine integer, which the Z3 search "
                                   "needs (use --field F2 or F3)", where, c.str()));
    return fmpz_get_si(fmpq_numref(c.get()));
  }
  Field f = Field::prime(mode_characteristic(mode));
  Rational x = c;
  f.reduce(x);  // throws InputError when p divides the denominator
  return static_cast<int64_t>(f.residue(x));
}

int64_t reduce_value(int64_t v, Mode mode) {
  if (mode == Mode::Z3) return v;
  const int64_t p = mode_characteristic(mode);
  return ((v % p) + p) % p;
}

void require_search_dim(size_t dim) {
  if (dim > kMaxSearchDim)
    throw InputError(fmt::format("the flip-graph search handles tables of dimension at most {} "
                                 "(one machine word per factor); this table has dimension {}",
                                 kMaxSearchDim, dim));
  if (dim == 0) throw InputError("the flip-graph search needs a table of dimension at least 1");
}

// One coefficient of an algorithm read in the mode: 1, −1, 0, or nullopt when not representable.
std::optional<int> factor_entry(const Rational& c, const Field& from, Mode mode) {
  if (mode == Mode::Z3) {
    if (!from.is_rationals() || !fmpz_is_one(fmpq_denref(c.get()))) return std::nullopt;
    if (fmpz_is_zero(fmpq_numref(c.get()))) return 0;
    if (fmpz_is_one(fmpq_numref(c.get()))) return 1;
    if (fmpz_is_pm1(fmpq_numref(c.get()))) return -1;
    return std::nullopt;
  }
  const unsigned p = mode_characteristic(mode);
  if (!from.is_rationals() && from.characteristic() != p) return std::nullopt;
  Rational x = c;
  try {
    Field::prime(p).reduce(x);
  } catch (const InputError&) {
    return std::nullopt;
  }
  const ulong r = fmpz_get_ui(fmpq_numref(x.get()));
  return r == 0 ? 0 : r == 1 ? 1 : -1;  // GF(3): 2 = −1
}

std::optional<Factor> to_factor(const SparseVector& v, const Field& from, Mode mode) {
  Factor f;
  for (const auto& [index, c] : v) {
    if (index >= kMaxSearchDim) return std::nullopt;
    auto e = factor_entry(c, from, mode);
    if (!e) return std::nullopt;
    if (*e == 1) f.pos |= uint64_t{1} << index;
    if (*e == -1) f.neg |= uint64_t{1} << index;
  }
  return f;
}

SparseVector to_sparse(const Factor& f, const Field& field) {
  SparseVector v;
  for (unsigned i = 0; i < kMaxSearchDim; ++i)
    if (int e = f.at(i)) v.emplace_back(i, field.from_int(e));
  return v;
}

Factor unit_factor(uint32_t i) { return Factor{uint64_t{1} << i, 0}; }

}  // namespace

DenseTarget dense_target(const StructureTensor& t, Mode mode) {
  require_search_dim(t.dim());
  DenseTarget d{mode, t.dim(), std::vector<int64_t>(t.dim() * t.dim() * t.dim(), 0)};
  for (const auto& e : t.entries()) {
    auto where = fmt::format("table entry c[{}][{}][{}]", e.i, e.j, e.k);
    d.c[(e.i * d.dim + e.j) * d.dim + e.k] = reduce_value(mode_value(e.c, mode, where), mode);
  }
  return d;
}

StructureTensor table_over(const StructureTensor& t, const Field& field) {
  if (t.field() == field) return t;
  if (!t.field().is_rationals())
    throw InputError(fmt::format("a table over {} cannot be read over {}", t.field().name(),
                                 field.name()));
  StructureTensor out(field, t.basis_names());
  for (const auto& e : t.entries()) out.add(e.i, e.j, e.k, e.c);
  out.finalize();
  if (t.slots()) out.set_slots(*t.slots(), t.slot_grid());
  if (t.graph_basis()) out.set_graph_basis(*t.graph_basis());
  return out;
}

std::vector<int64_t> scheme_tensor(const Scheme& s) {
  const size_t n = s.dim;
  std::vector<int64_t> out(n * n * n, 0);
  for (const auto& term : s.terms)
    for (size_t i = 0; i < n; ++i)
      if (int a = term.f[0].at(i))
        for (size_t j = 0; j < n; ++j)
          if (int b = term.f[1].at(j))
            for (size_t k = 0; k < n; ++k)
              if (int c = term.f[2].at(k)) out[(i * n + j) * n + k] += a * b * c;
  for (auto& v : out) v = reduce_value(v, s.mode);
  return out;
}

bool scheme_matches(const Scheme& s, const DenseTarget& target) {
  return s.mode == target.mode && s.dim == target.dim && scheme_tensor(s) == target.c;
}

std::optional<Scheme> scheme_from_algorithm(const BilinearAlgorithm& alg, Mode mode) {
  if (alg.dim > kMaxSearchDim || alg.dim == 0) return std::nullopt;
  Scheme s{mode, alg.dim, {}};
  for (const auto& term : alg.terms) {
    auto a = to_factor(term.alpha, alg.field, mode);
    auto b = to_factor(term.beta, alg.field, mode);
    auto c = to_factor(term.gamma, alg.field, mode);
    if (!a || !b || !c) return std::nullopt;
    if (a->is_zero() || b->is_zero() || c->is_zero()) continue;
    s.terms.push_back(Term{{*a, *b, *c}});
  }
  return s;
}

Scheme initial_scheme(const StructureTensor& t, Mode mode) {
  const DenseTarget target = dense_target(t, mode);
  KnownAlgorithm known = best_known_algorithm(t, std::nullopt);
  if (known.verified)
    if (auto s = scheme_from_algorithm(known.algorithm, mode); s && scheme_matches(*s, target))
      return *s;
  // One term per unit of each coefficient: always representable in every mode.
  Scheme s{mode, t.dim(), {}};
  const size_t n = t.dim();
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      for (size_t k = 0; k < n; ++k) {
        int64_t v = target.at(i, j, k);
        Factor c = unit_factor(static_cast<uint32_t>(k));
        if (v < 0) c = c.negated();
        for (int64_t u = 0; u < (v < 0 ? -v : v); ++u)
          s.terms.push_back(Term{{unit_factor(uint32_t(i)), unit_factor(uint32_t(j)), c}});
      }
  return s;
}

BilinearAlgorithm scheme_to_algorithm(const Scheme& s, const Field& field, const std::string& name) {
  BilinearAlgorithm alg;
  alg.field = field;
  alg.dim = s.dim;
  alg.name = name;
  for (const auto& term : s.terms)
    alg.terms.push_back(BilinearTerm{to_sparse(term.f[0], field), to_sparse(term.f[1], field),
                                     to_sparse(term.f[2], field)});
  normalize(alg);
  return alg;
}

std::vector<uint64_t> canonical_key(const Scheme& s) {
  std::vector<std::array<uint64_t, 6>> rows;
  rows.reserve(s.terms.size());
  for (Term t : s.terms) {
    // Make the lowest entry of α and of β equal to +1, moving signs onto γ.
    for (int p = 0; p < 2; ++p)
      if (t.f[p].neg & (t.f[p].support() & (~t.f[p].support() + 1))) {
        t.f[p] = t.f[p].negated();
        t.f[2] = t.f[2].negated();
      }
    rows.push_back({t.f[0].pos, t.f[0].neg, t.f[1].pos, t.f[1].neg, t.f[2].pos, t.f[2].neg});
  }
  std::sort(rows.begin(), rows.end());
  std::vector<uint64_t> key;
  key.reserve(rows.size() * 6);
  for (const auto& r : rows) key.insert(key.end(), r.begin(), r.end());
  return key;
}

}  // namespace qalg::search
