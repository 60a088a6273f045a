#pragma once
// The algorithm file format (JSON):
// {
//   "format": "qalg-algorithm", "version": 1,
//   "field": "Q" | "GF(p)",
//   "dim": n,
//   "name": "...",                                   // optional
//   "terms": [{"alpha": [[i, "c"], ...], "beta": [[j, "c"], ...], "gamma": [[k, "c"], ...]}, ...]
// }
// Indices 0-based; c an integer or a "p/q" string (integers may also be JSON numbers).
// Readers reject unknown format/version, indices out of range, non-numeric coefficients,
// denominators divisible by p, with an InputError naming the file and the term.
#include <string>

#include <nlohmann/json.hpp>

#include "qalg/rank/bilinear_algorithm.hpp"

namespace qalg {

nlohmann::json algorithm_to_json(const BilinearAlgorithm& alg);
// The result is normalized (bilinear_algorithm.hpp).
BilinearAlgorithm algorithm_from_json(const nlohmann::json& j, const std::string& origin);
BilinearAlgorithm read_algorithm_file(const std::string& path);
// Writes atomically (temporary file + rename): nothing half-written on failure.
void write_algorithm_file(const BilinearAlgorithm& alg, const std::string& path);

}  // namespace qalg
