#pragma once
// Explicit bilinear algorithms (SPEC §3). Each is built from a description of the algebra and
// must still be verified against the table (verify_algorithm) before it is trusted.
#include "qalg/algebra/quiver.hpp"
#include "qalg/algebra/structure_tensor.hpp"
#include "qalg/rank/bilinear_algorithm.hpp"

namespace qalg {

// The canonical algorithm for Q_G, read off the quiver (not the table): one product per
// nonzero, x_{e_v} w_{e_v} → e_v, x_{e_s(a)} w_a → a, x_a w_{e_t(a)} → a. Length |V| + 2|E|.
BilinearAlgorithm canonical_graph_algorithm(const Quiver& quiver, const Field& field);

// The same, with the quiver recovered from the table's GraphBasis hint and slots (vertex v at
// (v, v), arrow at (s, t)). Throws InputError when the table carries no such description.
BilinearAlgorithm canonical_graph_algorithm(const StructureTensor& t);
bool has_graph_description(const StructureTensor& t);

// One term per pair (i, j) with b_i b_j ≠ 0: α = b_i*, β = b_j*, γ = b_i b_j. Works for any
// table; its length is the number of nonzero basis products.
BilinearAlgorithm product_algorithm(const StructureTensor& t);

// The tensor product of algorithms for A and B, an algorithm for A ⊗ B (basis order of
// tensor_product): terms (l, l') in lexicographic order, length r_A · r_B. Throws InputError
// when the fields differ.
BilinearAlgorithm tensor_product_algorithm(const BilinearAlgorithm& a, const BilinearAlgorithm& b);

}  // namespace qalg
