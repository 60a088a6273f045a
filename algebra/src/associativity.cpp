// Sparse associativity check. For each left factor b_i we expand both bracketings of
// b_i b_j b_l over all (j, l) whose products can be nonzero, so the cost is the number of
// nonzero two-step products (≈ Σ_m |row m| · |products landing on m|), never dim^3.
#include "qalg/algebra/associativity.hpp"

#include <map>
#include <tuple>

#include "sparse_accumulator.hpp"

namespace qalg {

namespace {

struct Triple {
  uint32_t j, l, n;
  bool operator==(const Triple&) const = default;
  bool operator<(const Triple& o) const { return std::tie(j, l, n) < std::tie(o.j, o.l, o.n); }
};
struct TripleHash {
  size_t operator()(const Triple& t) const {
    uint64_t h = (uint64_t(t.j) * 0x9E3779B97F4A7C15ull) ^ (uint64_t(t.l) * 0xC2B2AE3D27D4EB4Full) ^ uint64_t(t.n);
    return size_t(h ^ (h >> 29));
  }
};

}  // namespace

SparseVector multiply(const StructureTensor& t, const SparseVector& x, const SparseVector& y) {
  const Field& f = t.field();
  std::map<uint32_t, Rational> acc;
  for (const auto& [i, xi] : x)
    for (const auto& [j, yj] : y) {
      Rational s = f.mul(xi, yj);
      for (const auto& e : t.product(i, j)) {
        auto [it, inserted] = acc.try_emplace(e.k, f.mul(s, e.c));
        if (!inserted) it->second = f.add(it->second, f.mul(s, e.c));
      }
    }
  SparseVector out;
  for (auto& [k, v] : acc)
    if (!v.is_zero()) out.emplace_back(k, v);
  return out;
}

SparseVector multiply_basis(const StructureTensor& t, uint32_t i, uint32_t j) {
  SparseVector out;
  for (const auto& e : t.product(i, j)) out.emplace_back(e.k, e.c);
  return out;
}

SparseVector left_bracketing(const StructureTensor& t, uint32_t i, uint32_t j, uint32_t l) {
  return multiply(t, multiply_basis(t, i, j), SparseVector{{l, t.field().from_int(1)}});
}

SparseVector right_bracketing(const StructureTensor& t, uint32_t i, uint32_t j, uint32_t l) {
  return multiply(t, SparseVector{{i, t.field().from_int(1)}}, multiply_basis(t, j, l));
}

AssociativityResult check_associativity(const StructureTensor& t) {
  const Field& f = t.field();
  const uint32_t dim = uint32_t(t.dim());
  const auto& entries = t.entries();
  // landing[m] = indices of entries (j, l) with c_jl^m != 0 (CSR by output index).
  std::vector<size_t> start(dim + 1, 0), landing(entries.size());
  for (const auto& e : entries) ++start[e.k + 1];
  for (uint32_t m = 0; m < dim; ++m) start[m + 1] += start[m];
  {
    std::vector<size_t> fill(start.begin(), start.end() - 1);
    for (size_t n = 0; n < entries.size(); ++n) landing[fill[entries[n].k]++] = n;
  }

  detail::Accumulator<Triple, TripleHash> diff(f);
  for (uint32_t i = 0; i < dim; ++i) {
    auto row_i = t.row(i);
    if (row_i.empty()) continue;
    diff.clear();
    for (const auto& e : row_i)                 // (b_i b_j) b_l: c_ij^m c_ml^n
      for (const auto& g : t.row(e.k)) diff.add(Triple{e.j, g.j, g.k}, f.mul(e.c, g.c));
    for (const auto& e : row_i)                 // b_i (b_j b_l): c_jl^m c_im^n with m = e.j
      for (size_t p = start[e.j]; p < start[e.j + 1]; ++p) {
        const auto& g = entries[landing[p]];
        diff.sub(Triple{g.i, g.j, e.k}, f.mul(g.c, e.c));
      }
    auto bad = diff.nonzero();
    if (!bad.empty()) {
      const Triple& w = bad.front().first;
      AssociativityResult r;
      r.associative = false;
      AssociativityWitness wit;
      wit.i = i;
      wit.j = w.j;
      wit.l = w.l;
      wit.coordinate = w.n;
      for (const auto& [k, v] : left_bracketing(t, i, w.j, w.l)) if (k == w.n) wit.left = v;
      for (const auto& [k, v] : right_bracketing(t, i, w.j, w.l)) if (k == w.n) wit.right = v;
      r.witness = wit;
      return r;
    }
  }
  return AssociativityResult{};
}

}  // namespace qalg
