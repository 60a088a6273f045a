// The flattening bound (SPEC §3): the largest rank of the three flattenings of c.
#include <algorithm>

#include <flint/nmod.h>
#include <flint/ulong_extras.h>
#include <fmt/core.h>

#include "qalg/rank/lower_bounds.hpp"

namespace qalg {
namespace {

constexpr size_t kMaxDim = 2048;                 // SPEC: no dense ranks above this
constexpr size_t kMaxDenseEntries = size_t{1} << 18;
constexpr size_t kMaxProjectionWork = size_t{1} << 28;

struct FlatEntry {
  uint32_t row;
  uint64_t col;  // the other two indices packed
  const Rational* c;
};

// Flattening f: rows are the f-th index of (i, j, k), columns the other two.
std::vector<FlatEntry> flatten(const StructureTensor& t, int f) {
  std::vector<FlatEntry> out;
  out.reserve(t.nnz());
  const uint64_t n = t.dim();
  for (const auto& e : t.entries()) {
    uint32_t idx[3] = {e.i, e.j, e.k};
    uint32_t a = idx[(f + 1) % 3], b = idx[(f + 2) % 3];
    out.push_back({idx[f], a * n + b, &e.c});
  }
  std::sort(out.begin(), out.end(), [](const FlatEntry& x, const FlatEntry& y) {
    return x.col != y.col ? x.col < y.col : x.row < y.row;
  });
  return out;
}

// Residue of a rational modulo p, or nullopt when p divides its denominator.
std::optional<ulong> residue(const Rational& x, nmod_t mod) {
  ulong den = fmpz_fdiv_ui(fmpq_denref(x.get()), mod.n);
  if (den == 0) return std::nullopt;
  ulong num = fmpz_fdiv_ui(fmpq_numref(x.get()), mod.n);
  return nmod_mul(num, n_invmod(den, mod.n), mod);
}

// A deterministic pseudo-random residue for projection entry (col, c) (splitmix64).
ulong projection_entry(uint64_t col, uint64_t c, uint64_t seed, nmod_t mod) {
  uint64_t z = seed + col * 0x9E3779B97F4A7C15ull + c * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (z ^ (z >> 31)) % mod.n;
}

std::optional<FlatteningRank> flattening_rank(const StructureTensor& t, int f, std::string& note) {
  std::vector<FlatEntry> m = flatten(t, f);
  const size_t n = t.dim();
  // Distinct columns, compressed to 0..cols-1 (m is sorted by column).
  std::vector<uint32_t> col_index(m.size());
  size_t cols = 0;
  bool disjoint = true;
  for (size_t e = 0; e < m.size(); ++e) {
    if (e > 0 && m[e].col == m[e - 1].col) disjoint = false;
    else ++cols;
    col_index[e] = static_cast<uint32_t>(cols - 1);
  }
  if (disjoint) {  // each column has one nonzero: the nonzero rows are independent
    std::vector<bool> used(n, false);
    for (const auto& e : m) used[e.row] = true;
    return FlatteningRank{static_cast<size_t>(std::count(used.begin(), used.end(), true)), true,
                          "disjoint column supports"};
  }
  if (n > kMaxDim) {
    note = fmt::format("flattening {} skipped: dim {} > {} and the column supports overlap", f + 1,
                       n, kMaxDim);
    return std::nullopt;
  }
  const Field& field = t.field();
  if (n * cols <= kMaxDenseEntries) {  // exact dense rank
    if (field.is_rationals()) {
      QMatrix a(static_cast<slong>(n), static_cast<slong>(cols));
      for (size_t e = 0; e < m.size(); ++e) fmpq_set(a.at(m[e].row, col_index[e]), m[e].c->get());
      QMatrix reduced(a.rows(), a.cols());  // FLINT 2.9 has no fmpq_mat_rank: rref returns it
      return FlatteningRank{static_cast<size_t>(fmpq_mat_rref(reduced.get(), a.get())), true,
                            "exact over Q"};
    }
    NModMatrix a(static_cast<slong>(n), static_cast<slong>(cols), field.characteristic());
    for (size_t e = 0; e < m.size(); ++e) a.at(m[e].row, col_index[e]) = field.residue(*m[e].c);
    return FlatteningRank{static_cast<size_t>(nmod_mat_rank(a.get())), true,
                          "exact over " + field.name()};
  }
  if (m.size() * n > kMaxProjectionWork) {
    note = fmt::format("flattening {} skipped: {} nonzeros × dim {} exceeds the projection budget",
                       f + 1, m.size(), n);
    return std::nullopt;
  }
  // rank(M·R mod p) ≤ rank(M mod p) ≤ rank of M over the table's field (over Q: M's rows can be
  // scaled to integers without changing either rank). So the result is a certified lower bound.
  ulong p = field.is_rationals() ? n_nextprime(UWORD(1) << 62, 1) : field.characteristic();
  nmod_t mod;
  nmod_init(&mod, p);
  const size_t width = std::min(n, cols);
  size_t best = 0;
  for (uint64_t seed = 1; seed <= (field.is_rationals() ? 1u : 3u); ++seed) {
    NModMatrix proj(static_cast<slong>(n), static_cast<slong>(width), p);
    for (size_t e = 0; e < m.size(); ++e) {
      auto v = residue(*m[e].c, mod);
      if (!v) {
        note = fmt::format("flattening {} skipped: the prime {} divides a denominator", f + 1, p);
        return std::nullopt;
      }
      for (size_t c = 0; c < width; ++c)
        proj.at(m[e].row, c) = nmod_add(proj.at(m[e].row, c),
                                        nmod_mul(*v, projection_entry(col_index[e], c, seed, mod), mod), mod);
    }
    best = std::max(best, static_cast<size_t>(nmod_mat_rank(proj.get())));
  }
  // No matrix has rank above min(rows, columns): reaching it makes the lower bound exact.
  return FlatteningRank{best, best == width,
                        fmt::format("random projection mod {} (certified lower bound)", p)};
}

}  // namespace

FlatteningOutcome flattening_bound(const StructureTensor& t) {
  FlatteningOutcome out;
  std::vector<std::string> notes;
  size_t best = 0;
  int best_f = -1;
  for (int f = 0; f < 3; ++f) {
    std::string note;
    out.ranks[f] = flattening_rank(t, f, note);
    if (!note.empty()) notes.push_back(note);
    if (out.ranks[f] && (best_f < 0 || out.ranks[f]->rank > best)) {
      best = out.ranks[f]->rank;
      best_f = f;
    }
  }
  for (size_t k = 0; k < notes.size(); ++k) out.outcome.note += (k ? "; " : "") + notes[k];
  if (best_f < 0) return out;
  static const char* const kShapes[3] = {"i × (j,k)", "j × (i,k)", "k × (i,j)"};
  std::string ranks;
  for (int f = 0; f < 3; ++f)
    ranks += out.ranks[f] ? fmt::format("{}{}: {}", f ? ", " : "", kShapes[f], out.ranks[f]->rank)
                          : fmt::format("{}{}: skipped", f ? ", " : "", kShapes[f]);
  out.outcome.bound = BoundValue{"flattening", best,
                                 fmt::format("none (any bilinear map); flattening ranks {} ({})",
                                             ranks, out.ranks[best_f]->method)};
  return out;
}

}  // namespace qalg
