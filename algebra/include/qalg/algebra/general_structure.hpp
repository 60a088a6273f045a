#pragma once
// Structure of an arbitrary finite-dimensional associative algebra from its table (SPEC §2):
// Jacobson radical (trace form over Q; a characteristic-p method over GF(p)), its powers and
// nilpotency index, the semisimple quotient, its centre, and t(A) by splitting the centre.
#include <optional>
#include <string>
#include <vector>

#include "qalg/algebra/linear_algebra.hpp"
#include "qalg/algebra/structure_tensor.hpp"

namespace qalg {

// ---- Dense building blocks. Algebra elements are rows of coordinates in the table's basis. ----

// x R_y = x·y, i.e. R_y[a][k] = Σ_b y_b c_ab^k.
FieldMatrix right_multiplication(const StructureTensor& t, const FieldMatrix& y);
// y L_x = x·y, i.e. L_x[b][k] = Σ_a x_a c_ab^k (the matrix of left multiplication by x).
FieldMatrix left_multiplication(const StructureTensor& t, const FieldMatrix& x);
// x·y for two rows (O(nnz)).
FieldMatrix multiply_elements(const StructureTensor& t, const FieldMatrix& x, const FieldMatrix& y);
// span{ u v : u row of U, v row of V } in RREF.
FieldMatrix subspace_product(const StructureTensor& t, const FieldMatrix& u, const FieldMatrix& v);
// U b_j ⊆ U and b_j U ⊆ U for every basis element b_j (U in RREF).
bool is_two_sided_ideal(const StructureTensor& t, const FieldMatrix& u);
// τ_m = Tr(L_{b_m}) = Σ_k c_mk^k (one row).
FieldMatrix trace_vector(const StructureTensor& t);
// G_w[a][b] = Σ_k c_ab^k w_k: the form (x, y) ↦ w·(xy), built in O(nnz). With w = τ it is the
// trace form Tr(L_{xy}) (SPEC §2).
FieldMatrix weighted_gram(const StructureTensor& t, const FieldMatrix& w);
// A ⊕ F·1 with the adjoined unit as last basis element (a faithful home for non-unital tables).
StructureTensor unitalisation(const StructureTensor& t);
// A / U for a two-sided ideal U in RREF; basis: the basis elements at U's non-pivot columns.
StructureTensor quotient_table(const StructureTensor& t, const FieldMatrix& u);

struct RadicalResult {
  FieldMatrix basis;   // rows in RREF
  std::string method;  // "Dickson trace form" or "Cohen–Ivanyos–Wales (k rounds)"
};
// Jacobson radical of an associative table. Q: Dickson's criterion rad = {x : Tr(L_{xy}) = 0 ∀y}.
// GF(p): the Cohen–Ivanyos–Wales chain I_0 ⊇ ... ⊇ I_k, k = ⌊log_p n⌋ (k = 0 is Dickson's).
RadicalResult radical(const StructureTensor& t);

// Centre { z : z b_j = b_j z ∀ j } (rows in RREF).
FieldMatrix centre(const StructureTensor& t);
// The primitive idempotents of the centre of a semisimple unital table `b` (rows), found by
// splitting the centre: over Q the minimal polynomial of a random central element is factored
// with FLINT; over GF(p) the Berlekamp subalgebra {z : z^p = z} of the centre is split.
// Throws InputError when b has no unit or its centre is not reduced (b not semisimple).
std::vector<FieldMatrix> primitive_central_idempotents(const StructureTensor& b, ulong seed = 1);

struct GeneralStructure {
  std::vector<SparseVector> radical_basis;     // basis of rad A (in A's basis)
  std::vector<size_t> radical_power_dims;      // dim rad^1, rad^2, ..., ending with 0
  size_t nilpotency_index = 0;                 // least m with rad^m = 0 (0 when rad = 0)
  size_t quotient_dim = 0;                     // dim A / rad A
  size_t centre_dim = 0;                       // dim Z(A / rad A)
  size_t t = 0;                                // number of simple components of A / rad A
  std::vector<std::string> certificates;       // which certificate checks held
  std::string method;                          // "trace form", ...
  std::optional<StructureTensor> quotient;     // A / rad A (basis: non-pivot elements of rad)
  std::vector<SparseVector> central_idempotents;  // primitive central idempotents of A / rad A
  std::vector<size_t> component_dims;          // dim of each simple component A/rad · e_i
};

// Requires an associative table; throws InputError otherwise (callers check first).
GeneralStructure analyze_general_structure(const StructureTensor& t);

}  // namespace qalg
