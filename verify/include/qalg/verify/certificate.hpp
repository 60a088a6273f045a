#pragma once
// Certificates (issue 5, ARCHITECTURE "Certificate"): a JSON record of one table — its content
// hash, the table itself, every check's verdict with evidence (unit, radical basis, idempotents,
// associativity witness when failing), the rank bounds and the verified algorithm — that
// verify_certificate re-checks from the embedded table alone, by direct products, without
// trusting anything the producer computed.
//
// {
//   "format": "qalg-certificate", "version": 1, "algebra": "complete:2 over Q",
//   "table_hash": "<sha-256 of the canonical table JSON>", "table": {qalg-table},
//   "field": "Q", "dim": 4, "nnz": 6,
//   "associativity": {"holds": true} | {"holds": false, "witness": {"i","j","l","coordinate","left","right"}},
//   "unit": {"holds": true, "element": [[i, "c"], ...], "is_vertex_sum": true} | {"holds": false, "reason": "..."},
//   "radical": {"dim": 2, "basis": [[[i, "c"], ...], ...], "nilpotency_index": 2, "method": "..."},
//   "idempotents": {"elements": [[[i, "c"]], ...], "spans_quotient": true},
//   "t": {"value": 2, "evidence": "idempotents" | "general route"},
//   "bounds": [{"name", "value", "hypothesis"}], "best_lower_bound": 6,
//   "algorithm": {qalg-algorithm}, "algorithm_length": 6, "rank_exact": 6 | null
// }
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "qalg/algebra/structure_tensor.hpp"

namespace qalg::verify {

struct Certificate {
  nlohmann::json json;
  bool all_checks_hold = false;      // associative and unital, structure and algorithm established
  std::vector<std::string> failed;   // the checks that failed (recorded in the certificate too)
};

// Runs every check on t and records verdicts and evidence. `algebra` describes the input.
Certificate make_certificate(const StructureTensor& t, const std::string& algebra);

struct ClaimCheck {
  std::string claim;  // "table_hash", "associativity", "unit", "radical", "t", "bound:...", ...
  bool ok = false;
  std::string detail;  // how it was re-checked, or what differs
};

struct CertificateVerdict {
  bool valid = false;  // every claim re-checked
  std::vector<ClaimCheck> checks;
  // The first failing claim's one-line message, e.g. "claim 't': certificate says 3, ...".
  std::string first_failure() const;
};

// Re-checks every claim against the certificate's embedded table. Throws InputError (naming
// origin and the field) when the certificate is malformed: wrong format or version, a missing or
// ill-typed field, a table the table reader rejects.
CertificateVerdict verify_certificate(const nlohmann::json& cert, const std::string& origin);

}  // namespace qalg::verify
