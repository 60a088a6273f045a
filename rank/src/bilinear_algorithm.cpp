// Exact verification of a bilinear algorithm against a table (SPEC §3), done sparsely.
#include "qalg/rank/bilinear_algorithm.hpp"

#include <algorithm>
#include <unordered_map>

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

// (i, j, k) packed into one word; dim < 2^21 keeps dim^3 below 2^63.
constexpr size_t kMaxPackedDim = size_t{1} << 21;
uint64_t pack(uint64_t i, uint64_t j, uint64_t k, uint64_t dim) { return (i * dim + j) * dim + k; }

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
  const uint64_t n = alg.dim;
  if (n >= kMaxPackedDim)
    throw ResourceError(fmt::format("verification: dim {} exceeds {}", n, kMaxPackedDim - 1));

  // Σ_l α_l ⊗ β_l ⊗ γ_l, accumulated on its support only.
  std::unordered_map<uint64_t, Rational> sum;
  for (const auto& term : alg.terms)
    for (const auto& [i, a] : term.alpha)
      for (const auto& [j, b] : term.beta) {
        Rational ab = a * b;
        for (const auto& [k, g] : term.gamma) sum[pack(i, j, k, n)] += ab * g;
      }

  // The smallest coordinate where the two tensors differ: either in the algorithm's support
  // with a different value, or a table entry the algorithm does not produce.
  std::optional<uint64_t> first;
  auto note = [&](uint64_t key) { if (!first || key < *first) first = key; };
  for (auto& [key, value] : sum) {
    t.field().reduce(value);
    uint32_t k = key % n, j = (key / n) % n, i = key / (n * n);
    if (value != t.coefficient(i, j, k)) note(key);
  }
  for (const auto& e : t.entries())
    if (!sum.count(pack(e.i, e.j, e.k, n))) note(pack(e.i, e.j, e.k, n));

  VerificationResult result;
  if (!first) {
    result.verified = true;
    return result;
  }
  VerificationMismatch m;
  m.k = *first % n;
  m.j = (*first / n) % n;
  m.i = *first / (n * n);
  if (auto it = sum.find(*first); it != sum.end()) m.algorithm_value = it->second;
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
