#pragma once
// RankReport: every applicable lower bound on R(A), the shortest verified algorithm qalg knows,
// and whether they meet (SPEC §3).
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "qalg/algebra/report.hpp"
#include "qalg/algebra/structure_tensor.hpp"
#include "qalg/rank/bilinear_algorithm.hpp"

namespace qalg {

struct BoundValue {
  std::string name;        // "Alder–Strassen", "flattening", "Bläser (semisimple)"
  size_t value = 0;
  std::string hypothesis;  // what was established from the table for this bound to apply
};

struct RankReport {
  std::vector<BoundValue> bounds;    // every applicable lower bound
  size_t best_lower_bound = 0;       // the largest
  std::string best_bound_name;
  size_t explicit_length = 0;        // shortest verified algorithm known to qalg
  std::string explicit_algorithm;    // e.g. "canonical graph-algebra algorithm"
  bool explicit_verified = false;    // exactly verified against the table
  std::optional<size_t> rank_exact;  // set when best bound == explicit length
  std::vector<std::string> notes;    // bounds skipped and why, failed extra algorithm, ...
};

// `report` is the AlgebraReport of `t` (t(A), radical, unit, associativity). `extra`, when
// given, is verified and used when it is shorter than qalg's own algorithms.
RankReport compute_rank_report(const StructureTensor& t, const AlgebraReport& report,
                               const std::optional<BilinearAlgorithm>& extra = std::nullopt);

nlohmann::json to_json(const RankReport& r);

// The shortest algorithm qalg can give for `t` that verifies exactly: the canonical graph-algebra
// algorithm (when the table describes a quiver), the one-product-per-nonzero algorithm, and
// `extra` when given. Candidates that fail verification are skipped with a note.
struct KnownAlgorithm {
  BilinearAlgorithm algorithm;
  bool verified = false;
};
KnownAlgorithm best_known_algorithm(const StructureTensor& t,
                                    const std::optional<BilinearAlgorithm>& extra,
                                    std::vector<std::string>* notes = nullptr);

// The object `qalg inspect --json` prints and the Python module's Algebra.inspect() returns:
// to_json of the algebra report, "rank": to_json of the rank report, and the summary fields
// algebra (= description), table_hash, alder_strassen_bound, explicit_length, rank_exact;
// "table" (the table file object) when with_table.
nlohmann::json inspect_json(const StructureTensor& t, const AlgebraReport& a, const RankReport& r,
                            const std::string& description, bool with_table);

}  // namespace qalg
