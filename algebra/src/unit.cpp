// Unit by exact solution of u b_j = b_j = b_j u (SPEC §1). The equations are sparse: one per
// (side, j, k) pair that occurs in the table, right-hand side δ_jk. They are kept in flat CSR
// arrays (10^6-arrow quivers give 4·10^6 equations). Singleton equations are propagated first
// (for graph algebras every equation is a singleton); what remains is solved densely. The answer
// is then certified by evaluating every equation afresh.
#include "qalg/algebra/unit.hpp"

#include <algorithm>
#include <deque>
#include <unordered_map>

#include <fmt/core.h>
#include <flint/ulong_extras.h>

#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/flint_raii.hpp"

namespace qalg {

namespace {

struct Term {
  uint32_t unknown;  // i: the coefficient of u_i is entries[entry].c
  uint32_t entry;
};

struct Equation {
  bool right = false;  // false: u b_j = b_j (coefficient of b_k); true: b_j u = b_j
  uint32_t j = 0, k = 0;
  size_t begin = 0, end = 0;  // range in the term array
  Rational rhs;               // residual after substitutions
  size_t open = 0;            // undetermined unknowns left
};

struct System {
  const StructureTensor& t;
  std::vector<Term> terms;
  std::vector<Equation> eqs;
  const Rational& coef(const Term& x) const { return t.entries()[x.entry].c; }
};

std::string describe(const StructureTensor& t, bool right, uint32_t j, uint32_t k) {
  const auto& n = t.basis_names();
  return right ? fmt::format("b·u = b fails for b = {} (coefficient of {})", n[j], n[k])
               : fmt::format("u·b = b fails for b = {} (coefficient of {})", n[j], n[k]);
}

// Builds both sides' equations; returns false (with a reason) when some b_j cannot be reached.
bool build_system(System& s, std::string& reason) {
  const Field& f = s.t.field();
  const uint32_t dim = uint32_t(s.t.dim());
  const auto& entries = s.t.entries();
  for (bool right : {false, true}) {
    std::vector<std::pair<uint64_t, Term>> keyed(entries.size());
    for (uint32_t n = 0; n < entries.size(); ++n) {
      const auto& e = entries[n];
      keyed[n] = right ? std::make_pair(uint64_t(e.i) * dim + e.k, Term{e.j, n})
                       : std::make_pair(uint64_t(e.j) * dim + e.k, Term{e.i, n});
    }
    std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    uint32_t next_diagonal = 0;  // every (j, j) equation must exist: its right-hand side is 1
    for (size_t a = 0; a < keyed.size();) {
      size_t b = a;
      while (b < keyed.size() && keyed[b].first == keyed[a].first) ++b;
      Equation e;
      e.right = right;
      e.j = uint32_t(keyed[a].first / dim);
      e.k = uint32_t(keyed[a].first % dim);
      if (next_diagonal < e.j || (next_diagonal == e.j && e.k > e.j)) {
        reason = describe(s.t, right, next_diagonal, next_diagonal) + ": no product lands on it";
        return false;
      }
      if (e.j == e.k) ++next_diagonal;
      e.rhs = e.j == e.k ? f.from_int(1) : Rational();
      e.begin = s.terms.size();
      for (size_t n = a; n < b; ++n) s.terms.push_back(keyed[n].second);
      e.end = s.terms.size();
      e.open = e.end - e.begin;
      s.eqs.push_back(std::move(e));
      a = b;
    }
    if (next_diagonal < dim) {
      reason = describe(s.t, right, next_diagonal, next_diagonal) + ": no product lands on it";
      return false;
    }
  }
  return true;
}

Rational inverse(const Field& f, const Rational& c) {
  Rational r = c;
  if (!f.is_rationals()) r = Rational(slong(n_invmod(f.residue(c), f.characteristic())));
  else fmpq_inv(r.get(), c.get());
  return r;
}

// Singleton propagation: an equation with one open unknown fixes it.
void propagate(System& s, std::vector<std::optional<Rational>>& u) {
  const Field& f = s.t.field();
  const size_t dim = u.size();
  std::vector<size_t> start(dim + 1, 0), occ(s.terms.size());
  for (const auto& x : s.terms) ++start[x.unknown + 1];
  for (size_t i = 0; i < dim; ++i) start[i + 1] += start[i];
  {
    std::vector<size_t> fill(start.begin(), start.end() - 1);
    for (size_t r = 0; r < s.eqs.size(); ++r)
      for (size_t p = s.eqs[r].begin; p < s.eqs[r].end; ++p) occ[fill[s.terms[p].unknown]++] = r;
  }
  std::deque<size_t> ready;
  for (size_t r = 0; r < s.eqs.size(); ++r)
    if (s.eqs[r].open == 1) ready.push_back(r);
  while (!ready.empty()) {
    Equation& e = s.eqs[ready.front()];
    ready.pop_front();
    if (e.open != 1) continue;
    const Term* open_term = nullptr;
    for (size_t p = e.begin; p < e.end; ++p)
      if (!u[s.terms[p].unknown]) open_term = &s.terms[p];
    const uint32_t i = open_term->unknown;  // entries are unique, so i occurs once per equation
    u[i] = f.mul(e.rhs, inverse(f, s.coef(*open_term)));
    for (size_t q = start[i]; q < start[i + 1]; ++q) {
      Equation& g = s.eqs[occ[q]];
      for (size_t p = g.begin; p < g.end; ++p)
        if (s.terms[p].unknown == i) {
          g.rhs = f.sub(g.rhs, f.mul(s.coef(s.terms[p]), *u[i]));
          --g.open;
        }
      if (g.open == 1) ready.push_back(occ[q]);
    }
  }
}

// Dense exact solve of the equations that still have >= 2 open unknowns.
bool solve_dense(System& s, std::vector<std::optional<Rational>>& u, std::string& reason) {
  const Field& f = s.t.field();
  std::vector<uint32_t> unknowns;
  std::unordered_map<uint32_t, slong> column;
  std::vector<size_t> rows;
  for (size_t r = 0; r < s.eqs.size(); ++r) {
    if (s.eqs[r].open == 0) continue;
    rows.push_back(r);
    for (size_t p = s.eqs[r].begin; p < s.eqs[r].end; ++p) {
      uint32_t i = s.terms[p].unknown;
      if (!u[i] && column.emplace(i, slong(unknowns.size())).second) unknowns.push_back(i);
    }
  }
  if (unknowns.empty()) return true;
  if (unknowns.size() > 4096 || rows.size() > 65536)
    throw ResourceError(fmt::format("unit: {} coupled unknowns in {} equations is too large for the dense solver",
                                    unknowns.size(), rows.size()));
  const slong m = slong(rows.size()), n = slong(unknowns.size());
  auto fill = [&](auto&& set_entry) {
    for (slong r = 0; r < m; ++r) {
      const Equation& e = s.eqs[rows[size_t(r)]];
      for (size_t p = e.begin; p < e.end; ++p)
        if (!u[s.terms[p].unknown]) set_entry(r, column[s.terms[p].unknown], s.coef(s.terms[p]));
      set_entry(r, n, e.rhs);
    }
  };
  std::vector<Rational> solution(static_cast<size_t>(n));
  bool consistent = true;
  if (f.is_rationals()) {
    QMatrix a(m, n + 1);
    fill([&](slong r, slong c, const Rational& v) { fmpq_set(a.at(r, c), v.get()); });
    slong rank = fmpq_mat_rref(a.get(), a.get());
    for (slong r = 0; r < rank; ++r) {
      slong pivot = 0;
      while (pivot <= n && fmpq_is_zero(a.at(r, pivot))) ++pivot;
      if (pivot == n) consistent = false;
      else fmpq_set(solution[size_t(pivot)].get(), a.at(r, n));
    }
  } else {
    NModMatrix a(m, n + 1, f.characteristic());
    fill([&](slong r, slong c, const Rational& v) { a.at(r, c) = f.residue(v); });
    slong rank = nmod_mat_rref(a.get());
    for (slong r = 0; r < rank; ++r) {
      slong pivot = 0;
      while (pivot <= n && a.at(r, pivot) == 0) ++pivot;
      if (pivot == n) consistent = false;
      else solution[size_t(pivot)] = Rational(slong(a.at(r, n)));
    }
  }
  if (!consistent) {
    const Equation& e = s.eqs[rows.front()];
    reason = "the unit equations are inconsistent (" + describe(s.t, e.right, e.j, e.k) + ", among others)";
    return false;
  }
  for (slong c = 0; c < n; ++c) u[unknowns[size_t(c)]] = solution[size_t(c)];  // free ones stay 0
  return true;
}

}  // namespace

UnitResult find_unit(const StructureTensor& t) {
  const Field& f = t.field();
  UnitResult result;
  if (t.dim() == 0) {
    result.reason = "the zero algebra has no basis";
    return result;
  }
  System s{t, {}, {}};
  if (!build_system(s, result.reason)) return result;
  std::vector<std::optional<Rational>> u(t.dim());
  propagate(s, u);
  for (const auto& e : s.eqs)
    if (e.open == 0 && !e.rhs.is_zero()) {
      result.reason = describe(t, e.right, e.j, e.k);
      return result;
    }
  if (!solve_dense(s, u, result.reason)) return result;

  // Certify independently of the elimination: evaluate every equation Σ_i u_i c = δ_jk afresh.
  // With the diagonal completeness checked in build_system this is u b_j = b_j = b_j u.
  for (const auto& e : s.eqs) {
    Rational sum;
    for (size_t p = e.begin; p < e.end; ++p)
      if (const auto& ui = u[s.terms[p].unknown]) sum = f.add(sum, f.mul(*ui, s.coef(s.terms[p])));
    if (sum != (e.j == e.k ? f.from_int(1) : Rational())) {
      result.reason = "no two-sided unit: " + describe(t, e.right, e.j, e.k);
      return result;
    }
  }
  SparseVector unit;
  for (uint32_t i = 0; i < t.dim(); ++i)
    if (u[i] && !u[i]->is_zero()) unit.emplace_back(i, *u[i]);
  result.unit = std::move(unit);
  return result;
}

}  // namespace qalg
