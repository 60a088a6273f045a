#pragma once
// Lower bounds on the bilinear rank R(A) (SPEC §3). Each bound is reported only when its
// hypotheses have been established from the table; otherwise `note` says which one failed.
#include <array>
#include <optional>
#include <string>

#include "qalg/algebra/report.hpp"
#include "qalg/algebra/structure_tensor.hpp"
#include "qalg/rank/rank_report.hpp"

namespace qalg {

struct BoundOutcome {
  std::optional<BoundValue> bound;
  std::string note;  // why the bound does not apply (or how it was computed)
};

// Alder & Strassen, "On the algorithmic complexity of associative algebras", Theoret. Comput.
// Sci. 15 (1981) 201–211: for a finite-dimensional associative algebra A with unit over any
// field, R(A) ≥ 2 dim A − t(A), t(A) the number of maximal two-sided ideals. Needs the report
// to show associativity, a unit and a computed t.
BoundOutcome alder_strassen_bound(const AlgebraReport& report);

// n when the table is, entry for entry, the matrix-unit table of M_n(F): slots fill the n×n grid
// once each and the entries are exactly E_ab E_bd = E_ad (coefficient 1), nothing else.
std::optional<size_t> matrix_algebra_degree(const StructureTensor& t);

// Bläser, "Lower bounds for the bilinear complexity of associative algebras", Comput. Complexity
// 9 (2000) 73–112 (the case A = M_n: FOCS 1999, over arbitrary fields): for semisimple
// A ≅ A_1 × … × A_t, A_τ ≅ D_τ^{n_τ×n_τ} with every n_τ ≥ 2, R(A) ≥ 5/2 dim A − 3(n_1 + … + n_t).
// The hypothesis n_τ ≥ 2 is essential (a degree-m field extension has rank 2m − 1 < 5m/2 − 3 for
// m > 4), so the decomposition must be known. qalg establishes it only for matrix-unit tables
// (A = M_n(F), t = 1, D = F, n ≥ 2); for other semisimple tables the bound is not reported,
// because t(A) and dim A alone do not determine the n_τ.
BoundOutcome blaser_bound(const StructureTensor& t, const AlgebraReport& report);

// The three flattenings of c: i × (j, k), j × (i, k), k × (i, j). R(A) is at least the rank of
// each (a rank-one term has rank-one flattenings); no associativity needed. Ranks are exact when
// the column supports are disjoint (graph algebras), or by FLINT dense rank when small; otherwise
// a certified lower bound by a random projection modulo a prime (rank mod p of M·R never exceeds
// the rank of M over the table's field). Skipped, with a note, above dim 2048.
struct FlatteningRank {
  size_t rank = 0;
  bool exact = false;
  std::string method;
};
struct FlatteningOutcome {
  std::array<std::optional<FlatteningRank>, 3> ranks;
  BoundOutcome outcome;  // the largest rank as a bound, or why none was computed
};
FlatteningOutcome flattening_bound(const StructureTensor& t);

}  // namespace qalg
