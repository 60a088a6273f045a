// Alder–Strassen and Bläser bounds, each applied only under its established hypotheses (SPEC §3).
#include "qalg/rank/lower_bounds.hpp"

#include <set>

#include <fmt/core.h>

namespace qalg {

BoundOutcome alder_strassen_bound(const AlgebraReport& report) {
  BoundOutcome out;
  if (!report.associativity.associative) {
    out.note = "Alder–Strassen not applicable: the table is not associative";
    return out;
  }
  if (!report.unit) {
    out.note = "Alder–Strassen not applicable: the algebra has no unit (" + report.unit_failure + ")";
    return out;
  }
  if (!report.t) {
    out.note = "Alder–Strassen not applicable: t(A) was not computed";
    return out;
  }
  size_t t = *report.t;
  size_t value = 2 * report.dim >= t ? 2 * report.dim - t : 0;
  out.bound = BoundValue{"Alder–Strassen", value,
                         fmt::format("associative with unit (checked), t(A) = {} computed from the "
                                     "table; R(A) ≥ 2·{} − {} (Alder & Strassen 1981)",
                                     t, report.dim, t)};
  return out;
}

std::optional<size_t> matrix_algebra_degree(const StructureTensor& t) {
  const auto& slots = t.slots();
  size_t n = t.slot_grid();
  if (!slots || n == 0 || t.dim() != n * n || slots->size() != t.dim() || t.nnz() != n * n * n)
    return std::nullopt;
  std::set<std::pair<uint32_t, uint32_t>> seen;
  for (const auto& s : *slots)
    if (s.row >= n || s.col >= n || !seen.insert({s.row, s.col}).second) return std::nullopt;
  // Entries are distinct (i, j, k) triples; n^3 of them, each of the form E_ab E_bd = E_ad with
  // coefficient 1, are exactly the n^3 matrix-unit products.
  for (const auto& e : t.entries()) {
    const Slot &x = (*slots)[e.i], &y = (*slots)[e.j], &z = (*slots)[e.k];
    if (!e.c.is_one() || x.col != y.row || z.row != x.row || z.col != y.col) return std::nullopt;
  }
  return n;
}

BoundOutcome blaser_bound(const StructureTensor& t, const AlgebraReport& report) {
  BoundOutcome out;
  auto n = matrix_algebra_degree(t);
  if (!n) {
    if (!report.radical_dim)
      out.note = "Bläser (semisimple) not applicable: rad A was not computed";
    else if (*report.radical_dim != 0)
      out.note = fmt::format("Bläser (semisimple) not applicable: dim rad A = {} ≠ 0", *report.radical_dim);
    else
      out.note = "Bläser (semisimple) not reported: rad A = 0, but the decomposition into "
                 "D_τ^{n_τ×n_τ} with all n_τ ≥ 2 is not established (only matrix-unit tables "
                 "are recognised)";
    return out;
  }
  // A matrix-unit table is M_n(F) by construction; a nonzero computed radical would contradict it.
  if (report.radical_dim && *report.radical_dim != 0) {
    out.note = "Bläser (semisimple) withheld: matrix-unit table but rad A computed nonzero";
    return out;
  }
  if (*n < 2) {
    out.note = "Bläser (semisimple) not applicable: M_1(F) = F has n = 1";
    return out;
  }
  // ⌈5/2 n² − 3n⌉ = ⌊(5n² − 6n + 1) / 2⌋: R is an integer.
  size_t value = (5 * *n * *n - 6 * *n + 1) / 2;
  out.bound = BoundValue{"Bläser (semisimple)", value,
                         fmt::format("table is the matrix-unit table of M_{}(F), semisimple with one "
                                     "component, n = {} ≥ 2; R ≥ 5/2·{} − 3·{} (Bläser 2000)",
                                     *n, *n, t.dim(), *n)};
  return out;
}

}  // namespace qalg
