// Unit by exact solution of u b_j = b_j = b_j u (SPEC §1). The equations are sparse: one per
// (side, j, k) pair that occurs in the table or has right-hand side δ_jk. Singleton equations are
// propagated first (for graph algebras every equation is a singleton); the rest is solved densely.
// The answer is then certified by multiplying it out.
#include "qalg/algebra/unit.hpp"

#include <deque>
#include <map>
#include <unordered_map>

#include <fmt/core.h>

#include "qalg/algebra/associativity.hpp"
#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/flint_raii.hpp"
#include "sparse_accumulator.hpp"

namespace qalg {

namespace {

struct PairHash {
  size_t operator()(const std::pair<uint32_t, uint32_t>& p) const {
    return std::hash<uint64_t>()((uint64_t(p.first) << 32) | p.second);
  }
};

struct Equation {
  bool right = false;  // false: u b_j = b_j (coefficient of b_k); true: b_j u = b_j
  uint32_t j = 0, k = 0;
  std::vector<std::pair<uint32_t, Rational>> terms;  // (unknown i, coefficient)
  Rational rhs;                                      // residual after substitutions
  size_t open = 0;                                   // undetermined unknowns left
};

std::string describe(const StructureTensor& t, const Equation& e) {
  const auto& n = t.basis_names();
  return e.right ? fmt::format("b·u = b fails for b = {} (coefficient of {})", n[e.j], n[e.k])
                 : fmt::format("u·b = b fails for b = {} (coefficient of {})", n[e.j], n[e.k]);
}

// Dense exact solve of the equations that still have >= 2 open unknowns.
bool solve_dense(const StructureTensor& t, std::vector<Equation>& eqs, std::vector<std::optional<Rational>>& u,
                 std::string& reason) {
  const Field& f = t.field();
  std::vector<uint32_t> unknowns;
  std::unordered_map<uint32_t, slong> column;
  std::vector<size_t> rows;
  for (size_t r = 0; r < eqs.size(); ++r) {
    if (eqs[r].open == 0) continue;
    rows.push_back(r);
    for (const auto& [i, c] : eqs[r].terms)
      if (!u[i] && column.emplace(i, slong(unknowns.size())).second) unknowns.push_back(i);
  }
  if (unknowns.empty()) return true;
  if (unknowns.size() > 4096 || rows.size() > 65536)
    throw ResourceError(fmt::format("unit: {} coupled unknowns in {} equations is too large for the dense solver",
                                    unknowns.size(), rows.size()));
  const slong m = slong(rows.size()), n = slong(unknowns.size());
  auto fill = [&](auto&& set_entry) {
    for (slong r = 0; r < m; ++r) {
      const Equation& e = eqs[rows[r]];
      for (const auto& [i, c] : e.terms)
        if (!u[i]) set_entry(r, column[i], c);
      set_entry(r, n, e.rhs);
    }
  };
  std::vector<Rational> solution(static_cast<size_t>(n));
  slong rank = 0;
  bool consistent = true;
  if (f.is_rationals()) {
    QMatrix a(m, n + 1);
    fill([&](slong r, slong c, const Rational& v) { fmpq_add(a.at(r, c), a.at(r, c), v.get()); });
    rank = fmpq_mat_rref(a.get(), a.get());
    for (slong r = 0; r < rank; ++r) {
      slong pivot = 0;
      while (pivot <= n && fmpq_is_zero(a.at(r, pivot))) ++pivot;
      if (pivot == n) consistent = false;
      else fmpq_set(solution[size_t(pivot)].get(), a.at(r, n));
    }
  } else {
    const ulong p = f.characteristic();
    NModMatrix a(m, n + 1, p);
    nmod_t mod;
    nmod_init(&mod, p);
    fill([&](slong r, slong c, const Rational& v) { a.at(r, c) = nmod_add(a.at(r, c), f.residue(v), mod); });
    rank = nmod_mat_rref(a.get());
    for (slong r = 0; r < rank; ++r) {
      slong pivot = 0;
      while (pivot <= n && a.at(r, pivot) == 0) ++pivot;
      if (pivot == n) consistent = false;
      else solution[size_t(pivot)] = Rational(slong(a.at(r, n)));
    }
  }
  if (!consistent) {
    reason = "the unit equations are inconsistent (" + describe(t, eqs[rows.front()]) + ", among others)";
    return false;
  }
  for (slong c = 0; c < n; ++c) u[unknowns[size_t(c)]] = solution[size_t(c)];  // free ones stay 0
  return true;
}

}  // namespace

UnitResult find_unit(const StructureTensor& t) {
  const Field& f = t.field();
  const uint32_t dim = uint32_t(t.dim());
  UnitResult result;
  if (dim == 0) {
    result.reason = "the zero algebra has no basis";
    return result;
  }
  // Build the equations keyed by (side, j, k).
  std::unordered_map<uint64_t, size_t> index;  // key: (j * dim + k) * 2 + side
  index.reserve(2 * (t.nnz() + dim));
  std::vector<Equation> eqs;
  auto eq = [&](bool right, uint32_t j, uint32_t k) -> Equation& {
    auto [it, inserted] = index.try_emplace((uint64_t(j) * dim + k) * 2 + (right ? 1 : 0), eqs.size());
    if (inserted) eqs.push_back(Equation{right, j, k, {}, j == k ? f.from_int(1) : Rational(), 0});
    return eqs[it->second];
  };
  for (uint32_t j = 0; j < dim; ++j) {
    eq(false, j, j);
    eq(true, j, j);
  }
  for (const auto& e : t.entries()) {
    eq(false, e.j, e.k).terms.emplace_back(e.i, e.c);  // u_i b_i b_j
    eq(true, e.i, e.k).terms.emplace_back(e.j, e.c);   // b_i (u_j b_j)
  }
  // Propagate singletons.
  std::vector<std::vector<size_t>> occurs(dim);
  for (size_t r = 0; r < eqs.size(); ++r) {
    eqs[r].open = eqs[r].terms.size();
    for (const auto& [i, c] : eqs[r].terms) occurs[i].push_back(r);
  }
  std::vector<std::optional<Rational>> u(dim);
  std::deque<size_t> ready;
  for (size_t r = 0; r < eqs.size(); ++r)
    if (eqs[r].open <= 1) ready.push_back(r);
  while (!ready.empty()) {
    Equation& e = eqs[ready.front()];
    ready.pop_front();
    if (e.open != 1) continue;
    // The one open unknown: c · u_i = rhs.
    for (const auto& [i, c] : e.terms) {
      if (u[i]) continue;
      Rational ci = c;
      if (!f.is_rationals()) ci = Rational(slong(n_invmod(f.residue(c), f.characteristic())));
      else fmpq_inv(ci.get(), c.get());
      u[i] = f.mul(e.rhs, ci);
      for (size_t r : occurs[i]) {
        Equation& g = eqs[r];
        for (const auto& [i2, c2] : g.terms)
          if (i2 == i) g.rhs = f.sub(g.rhs, f.mul(c2, *u[i]));
        if (--g.open == 1) ready.push_back(r);
      }
      break;
    }
  }
  // Fully determined equations must hold.
  for (const auto& e : eqs)
    if (e.open == 0 && !e.rhs.is_zero()) {
      result.reason = describe(t, e);
      return result;
    }
  if (!solve_dense(t, eqs, u, result.reason)) return result;

  SparseVector unit;
  for (uint32_t i = 0; i < dim; ++i)
    if (u[i] && !u[i]->is_zero()) unit.emplace_back(i, *u[i]);
  // Certify: u b_j = b_j = b_j u for every basis element, all j at once in O(nnz).
  std::vector<Rational> dense_u(dim);
  for (const auto& [i, c] : unit) dense_u[i] = c;
  detail::Accumulator<std::pair<uint32_t, uint32_t>, PairHash> left(f), right(f);
  for (const auto& e : t.entries()) {
    if (!dense_u[e.i].is_zero()) left.add({e.j, e.k}, f.mul(dense_u[e.i], e.c));
    if (!dense_u[e.j].is_zero()) right.add({e.i, e.k}, f.mul(dense_u[e.j], e.c));
  }
  for (auto* side : {&left, &right}) {
    auto nz = side->nonzero();
    std::vector<bool> seen(dim, false);
    for (const auto& [jk, v] : nz) {
      if (jk.first != jk.second || !v.is_one()) {
        result.reason = fmt::format("no two-sided unit: the solution of the unit equations fails on {}",
                                    t.basis_names()[jk.first]);
        return result;
      }
      seen[jk.first] = true;
    }
    for (uint32_t j = 0; j < dim; ++j)
      if (!seen[j]) {
        result.reason = fmt::format("no two-sided unit: the solution of the unit equations fails on {}",
                                    t.basis_names()[j]);
        return result;
      }
  }
  result.unit = std::move(unit);
  return result;
}

}  // namespace qalg
