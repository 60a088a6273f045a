#pragma once
// A bilinear algorithm of length r for a table c (SPEC §3): r triples (α_l, β_l, γ_l) with
// α_l, β_l ∈ A* (coordinates in the dual basis) and γ_l ∈ A, such that
// Σ_l α_l ⊗ β_l ⊗ γ_l = c, i.e. μ(x, w) = Σ_l α_l(x) β_l(w) γ_l. One value type for Q and GF(p).
#include <optional>
#include <string>
#include <vector>

#include "qalg/algebra/structure_tensor.hpp"

namespace qalg {

struct BilinearTerm {
  SparseVector alpha;  // linear form on the left factor, in the dual basis b_i*
  SparseVector beta;   // linear form on the right factor
  SparseVector gamma;  // element of A receiving the product α(x) β(w)
};

struct BilinearAlgorithm {
  Field field = Field::rationals();
  size_t dim = 0;
  std::vector<BilinearTerm> terms;
  std::string name;  // how it was obtained, e.g. "canonical graph-algebra algorithm"

  size_t length() const { return terms.size(); }
};

// The first coordinate (lexicographic in (i, j, k)) where Σ_l α_l ⊗ β_l ⊗ γ_l and c differ.
struct VerificationMismatch {
  uint32_t i = 0, j = 0, k = 0;
  Rational algorithm_value;  // Σ_l α_l(b_i) β_l(b_j) γ_l[k]
  Rational table_value;      // c_ij^k
};

struct VerificationResult {
  bool verified = false;
  std::optional<VerificationMismatch> mismatch;  // set exactly when !verified
  std::string failure;                           // one line: field/dim mismatch or the coordinate
};

// Exact, sparse: O(P log P + nnz(c)) for P = Σ_l |α_l||β_l||γ_l|, never dim^3.
// Bad input throws InputError instead: a field or dimension that differs from the table's, or an
// index out of range (the message names the term and the vector).
VerificationResult verify_algorithm(const BilinearAlgorithm& alg, const StructureTensor& t);

// Throws InputError (naming `origin`) unless alg is over t's field and has t's dimension.
void require_compatible(const BilinearAlgorithm& alg, const StructureTensor& t,
                        const std::string& origin);

// The Kronecker product of two vectors in the basis order of tensor_product (SPEC §2): index
// i * dim_b + i'. Coefficients multiplied and reduced in `field`.
SparseVector kronecker(const SparseVector& a, const SparseVector& b, size_t dim_b,
                       const Field& field);

// Canonical representation of every vector: sorted by index, duplicates merged, zeros dropped,
// coefficients reduced in alg.field. Throws InputError when an index is >= dim.
void normalize(BilinearAlgorithm& alg);

}  // namespace qalg
