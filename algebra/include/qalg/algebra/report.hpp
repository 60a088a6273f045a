#pragma once
// AlgebraReport: every structural verdict on a table, with its evidence, computed once.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "qalg/algebra/associativity.hpp"
#include "qalg/algebra/structure_tensor.hpp"

namespace qalg {

struct AlgebraReport {
  std::string field;
  size_t dim = 0, nnz = 0;
  std::optional<size_t> vertices, arrows;      // when built from a quiver
  AssociativityResult associativity;
  std::optional<SparseVector> unit;            // the unit when it exists
  std::string unit_failure;                    // why there is none
  std::optional<bool> unit_is_vertex_sum;      // graph algebras: unit == Σ e_v
  std::string route;                           // "graph" (fast route) or "general"
  std::optional<size_t> radical_dim;
  std::optional<bool> radical_squared_zero;
  std::optional<size_t> nilpotency_index;
  std::optional<size_t> quotient_dim;
  std::optional<size_t> t;                     // number of maximal two-sided ideals
  std::vector<std::string> notes;              // failed conditions, certificates
};

// Runs every check of SPEC §1–2 on the table. Graph-built tables take the fast route; when a
// graph check fails (a perturbed table) the general route answers instead.
AlgebraReport inspect_algebra(const StructureTensor& t);

nlohmann::json sparse_vector_json(const StructureTensor& t, const SparseVector& v);
nlohmann::json to_json(const StructureTensor& t, const AlgebraReport& r);

}  // namespace qalg
