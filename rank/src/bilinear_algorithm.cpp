// Exact verification of a bilinear algorithm against a table (SPEC §3), done sparsely.
#include "qalg/rank/bilinear_algorithm.hpp"

#include <algorithm>

#include <fmt/core.h>

#include "qalg/algebra/errors.hpp"

namespace qalg {
namespace {

const char* const kVectorNames[3] = {"alpha", "beta", "gamma"};

// Sorts by index, merges duplicates, reduces in the field and drops zeros.
void normalize_vector(SparseVector& v, const Field& field) {
  std::stable_sort(v.begin(), v.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  SparseVector out;
  for (auto& [index, c] : v) {
    if (!out.empty() && out.back().first == index) out.back().second += c;
    else out.emplace_back(index, c);
  }
  SparseVector kept;
  for (auto& [index, c] : out) {
    field.reduce(c);
    if (!c.is_zero()) kept.emplace_back(index, std::move(c));
  }
  v = std::move(kept);
}

void check_indices(const BilinearAlgorithm& alg) {
  for (size_t l = 0; l < alg.terms.size(); ++l) {
    const SparseVector* parts[3] = {&alg.terms[l].alpha, &alg.terms[l].beta, &alg.terms[l].gamma};
    for (int p = 0; p < 3; ++p)
      for (const auto& [index, c] : *parts[p])
        if (index >= alg.dim)
          throw InputError(fmt::format("algorithm term {}: {} index {} out of range (dim {})", l,
                                       kVectorNames[p], index, alg.dim));
  }
}

// (i, j, k) packed into one 128-bit key, lexicographic order preserved (any dim < 2^32).
using Key = unsigned __int128;
Key pack(uint64_t i, uint64_t j, uint64_t k) { return (Key(i) << 64) | (Key(j) << 32) | Key(k); }
struct Contribution {
  Key key;
  Rational value;
};

}  // namespace

void normalize(BilinearAlgorithm& alg) {
  check_indices(alg);
  for (auto& term : alg.terms) {
    normalize_vector(term.alpha, alg.field);
    normalize_vector(term.beta, alg.field);
    normalize_vector(term.gamma, alg.field);
  }
}

void require_compatible(const BilinearAlgorithm& alg, const StructureTensor& t,
                        const std::string& origin) {
  if (!(alg.field == t.field()))
    throw InputError(fmt::format("{}: algorithm is over {}, but the table is over {}", origin,
                                 alg.field.name(), t.field().name()));
  if (alg.dim != t.dim())
    throw InputError(fmt::format("{}: algorithm has dim {}, but the table has dim {}", origin,
                                 alg.dim, t.dim()));
}

SparseVector kronecker(const SparseVector& a, const SparseVector& b, size_t dim_b,
                       const Field& field) {
  SparseVector out;
  out.reserve(a.size() * b.size());
  for (const auto& [i, x] : a)
    for (const auto& [j, y] : b) {
      Rational c = field.mul(x, y);
      if (!c.is_zero()) out.emplace_back(static_cast<uint32_t>(i * dim_b + j), std::move(c));
    }
  return out;  // sorted: a and b are sorted and the index is lexicographic in (i, j)
}

VerificationResult verify_algorithm(const BilinearAlgorithm& alg, const StructureTensor& t) {
  require_compatible(alg, t, "verification");
  check_indices(alg);
  // Σ_l α_l ⊗ β_l ⊗ γ_l on its support: every contribution, sorted by coordinate, so that
  // one merge with the (sorted) table finds the first differing coordinate.
  std::vector<Contribution> parts;
  for (const auto& term : alg.terms)
    for (const auto& [i, a] : term.alpha)
      for (const auto& [j, b] : term.beta) {
        Rational ab = a * b;
        for (const auto& [k, g] : term.gamma) parts.push_back({pack(i, j, k), ab * g});
      }
  std::sort(parts.begin(), parts.end(),
            [](const Contribution& x, const Contribution& y) { return x.key < y.key; });

  const auto& entries = t.entries();  // sorted by (i, j, k), no zeros
  size_t p = 0, e = 0;
  std::optional<Key> first;
  Rational value;
  while (p < parts.size() || e < entries.size()) {
    Key table_key = e < entries.size() ? pack(entries[e].i, entries[e].j, entries[e].k) : ~Key(0);
    Key alg_key = p < parts.size() ? parts[p].key : ~Key(0);
    Key key = std::min(table_key, alg_key);
    value = Rational(0);
    for (; p < parts.size() && parts[p].key == key; ++p) value += parts[p].value;
    t.field().reduce(value);
    const bool in_table = table_key == key;
    if (in_table ? value != entries[e].c : !value.is_zero()) {
      first = key;
      break;
    }
    if (in_table) ++e;
  }

  VerificationResult result;
  if (!first) {
    result.verified = true;
    return result;
  }
  VerificationMismatch m;
  m.i = uint32_t(*first >> 64);
  m.j = uint32_t(*first >> 32);
  m.k = uint32_t(*first);
  m.algorithm_value = value;
  m.table_value = t.coefficient(m.i, m.j, m.k);
  const auto& names = t.basis_names();
  result.failure = fmt::format(
      "coefficient of {} in {}·{} (i={}, j={}, k={}): algorithm gives {}, table has {}",
      names[m.k], names[m.i], names[m.j], m.i, m.j, m.k, m.algorithm_value.str(),
      m.table_value.str());
  result.mismatch = std::move(m);
  return result;
}

}  // namespace qalg
