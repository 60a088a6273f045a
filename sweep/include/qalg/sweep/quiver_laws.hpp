#pragma once
// The laws a sweep checks on ONE quiver, computed from its table (SPEC §1, §3, §4). The verify
// catalogue runs its properties on random cases only, so the sweep calls the same checkers
// directly: associativity, unit, radical, t(A) through inspect_algebra, the rank formula through
// compute_rank_report, and the lowering (plan executor = dense reference) on small widths.
#include <optional>
#include <string>
#include <vector>

#include "qalg/algebra/quiver.hpp"

namespace qalg::sweep {

// Outcome of one law on one quiver: nullopt message = holds; skipped = not applicable
// (the lowering needs a slot-compatible table: no loops, no parallel arrows).
struct LawOutcome {
  bool skipped = false;
  std::optional<std::string> failure;
};

struct QuiverLaw {
  std::string name;       // "associative", used by --property
  std::string section;    // "SPEC §1"
  std::string statement;  // the law, one line
};

// In a stable order: associative, unit, radical, t, rank-formula, lowering.
const std::vector<QuiverLaw>& quiver_laws();
// Throws InputError naming the unknown law and listing the known ones.
std::vector<std::string> select_laws(const std::vector<std::string>& names);

// Checks the named laws on Q_G over Q; one outcome per name, in order.
std::vector<LawOutcome> check_quiver_laws(const Quiver& q, const std::vector<std::string>& names);

}  // namespace qalg::sweep
