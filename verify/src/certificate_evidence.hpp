#pragma once
// Evidence shared by the certificate maker and checker: sparse vectors in JSON, subspaces spanned
// by sparse vectors, and powers of an ideal computed by direct products. Private to verify/src.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "qalg/algebra/linear_algebra.hpp"
#include "qalg/algebra/structure_tensor.hpp"

namespace qalg::verify {

// [[i, "c"], ...]
nlohmann::json sparse_to_json(const SparseVector& v);
// Throws InputError naming `where` on a malformed vector, index >= dim or p | denominator.
SparseVector sparse_from_json(const nlohmann::json& j, const Field& f, size_t dim, const std::string& where);

// The vectors as rows of a dense matrix (dim columns).
FieldMatrix rows_of(const std::vector<SparseVector>& vs, const Field& f, size_t dim);

// A subspace kept as sparse rows in reduced row echelon form, so that membership is a sparse
// reduction: x ∈ U iff x − Σ_p x_p R_p = 0 over the pivot columns p. Spans of distinct basis
// elements (graph radicals, vertex idempotents) are already in that form and need no elimination.
class SparseSpan {
 public:
  SparseSpan(const std::vector<SparseVector>& vectors, const Field& f, size_t dim);
  size_t dim() const { return rows_.size(); }
  const std::vector<SparseVector>& basis() const { return rows_; }
  bool contains(const SparseVector& x) const;

 private:
  Field field_;
  std::vector<SparseVector> rows_;           // RREF rows
  std::vector<int64_t> row_of_pivot_;        // per column: the row with that pivot, or -1
};

// Basis (sparse rows, RREF) of span{ x y : x ∈ U, y ∈ V } with U, V given by spanning vectors.
std::vector<SparseVector> product_span(const StructureTensor& t, const std::vector<SparseVector>& u,
                                       const std::vector<SparseVector>& v);

// The least m ≥ 1 with J^m = 0 for J = span(basis), or 0 when J is not nilpotent (powers stop
// shrinking first). J^{m+1} = J^m · J by direct products.
size_t nilpotency_index(const StructureTensor& t, const std::vector<SparseVector>& basis);

// The basis elements b_i with b_i b_i = b_i exactly: the candidate idempotent evidence (graph
// algebras and their tensor products have one per vertex tuple).
std::vector<SparseVector> basis_idempotents(const StructureTensor& t);

// Idempotents e_1..e_n that are pairwise orthogonal, sum to `unit`, and with J's basis span A,
// n + dim J = dim A. Then A/J ≅ F^n, so a nilpotent ideal J is rad A and t(A) = n.
// Returns "" when all hold, else the first failed condition.
std::string split_quotient_failure(const StructureTensor& t, const std::vector<SparseVector>& idempotents,
                                   const SparseVector& unit, const std::vector<SparseVector>& radical);

}  // namespace qalg::verify
