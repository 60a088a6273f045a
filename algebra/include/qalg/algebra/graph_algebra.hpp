#pragma once
// The graph algebra Q_G (SPEC §1): path algebra of G modulo paths of length 2.
#include "qalg/algebra/quiver.hpp"
#include "qalg/algebra/structure_tensor.hpp"

namespace qalg {

// Basis: e_v for each vertex (input order), then one element per arrow (input order).
// Products: e_v e_v = e_v, e_{s(a)} a = a, a e_{t(a)} = a; all else 0. nnz = |V| + 2|E|.
// Sets slots (vertex v at (v,v), arrow at (s,t)) and the GraphBasis hint.
// Throws ResourceError before allocating when the table would not fit in memory.
StructureTensor graph_algebra(const Quiver& quiver, const Field& field);

}  // namespace qalg
