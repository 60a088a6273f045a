#pragma once
// From the search's best schemes to one exactly verified algorithm file (issue 11): lift to Q
// when the table is rational (lifting.hpp), otherwise verify over the table's own GF(p); the
// length is checked against the proven lower bound of the field the algorithm is stated over.
#include <optional>
#include <string>
#include <vector>

#include "qalg/algebra/structure_tensor.hpp"
#include "qalg/rank/bilinear_algorithm.hpp"
#include "qalg/rank/search/scheme.hpp"

namespace qalg::search {

struct CertifiedAlgorithm {
  BilinearAlgorithm algorithm;  // verified exactly by verify_algorithm against `table`
  std::string validity;         // where it holds (validity_statement, or "over GF(p) only")
  std::string method;           // how it was obtained from the scheme
  bool over_rationals = false;
};

// The proven lower bound on R(A) over the table's field (compute_rank_report).
size_t proven_lower_bound(const StructureTensor& table);

// Tries the schemes in order: lifting to Q when `table` is over Q (falling back to GF(p) when no
// scheme lifts), else verification over the table's GF(p). Throws SearchBugError when an
// algorithm that verifies is shorter than `lower_bound` (the bound for `table`'s field).
// nullopt, with `note` saying why, when nothing verifies. `description` goes into the name.
std::optional<CertifiedAlgorithm> certify_best(const std::vector<Scheme>& schemes,
                                               const StructureTensor& table, size_t lower_bound,
                                               const std::string& description, std::string& note);

}  // namespace qalg::search
