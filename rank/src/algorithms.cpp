// Explicit algorithms: canonical graph-algebra, one product per nonzero product, tensor products.
#include "qalg/rank/algorithms.hpp"

#include <fmt/core.h>

#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/resource_guard.hpp"

namespace qalg {
namespace {

SparseVector unit_vector(uint32_t index) { return {{index, Rational(1)}}; }

BilinearAlgorithm canonical_from_arrows(size_t vertex_count,
                                        const std::vector<std::pair<uint32_t, uint32_t>>& arrows,
                                        const Field& field) {
  BilinearAlgorithm alg;
  alg.field = field;
  alg.dim = vertex_count + arrows.size();
  alg.name = "canonical graph-algebra algorithm";
  alg.terms.reserve(vertex_count + 2 * arrows.size());
  for (uint32_t v = 0; v < vertex_count; ++v)
    alg.terms.push_back({unit_vector(v), unit_vector(v), unit_vector(v)});
  for (size_t n = 0; n < arrows.size(); ++n) {
    auto a = static_cast<uint32_t>(vertex_count + n);
    auto [s, t] = arrows[n];
    alg.terms.push_back({unit_vector(s), unit_vector(a), unit_vector(a)});  // e_s(a) · a = a
    alg.terms.push_back({unit_vector(a), unit_vector(t), unit_vector(a)});  // a · e_t(a) = a
  }
  return alg;
}

}  // namespace

BilinearAlgorithm canonical_graph_algorithm(const Quiver& quiver, const Field& field) {
  std::vector<std::pair<uint32_t, uint32_t>> arrows;
  arrows.reserve(quiver.arrow_count());
  for (const auto& a : quiver.arrows) arrows.emplace_back(a.source, a.target);
  return canonical_from_arrows(quiver.vertex_count(), arrows, field);
}

bool has_graph_description(const StructureTensor& t) {
  const auto& g = t.graph_basis();
  return g && t.slots() && g->vertex_count + g->arrow_count == t.dim() &&
         t.slots()->size() == t.dim();
}

BilinearAlgorithm canonical_graph_algorithm(const StructureTensor& t) {
  if (!has_graph_description(t))
    throw InputError("canonical graph-algebra algorithm: the table carries no quiver description "
                     "(graph basis and slots)");
  size_t nv = t.graph_basis()->vertex_count;
  const auto& slots = *t.slots();
  std::vector<std::pair<uint32_t, uint32_t>> arrows;
  for (size_t a = nv; a < t.dim(); ++a) {
    if (slots[a].row >= nv || slots[a].col >= nv)
      throw InputError(fmt::format("canonical graph-algebra algorithm: arrow {} has slot ({}, {}) "
                                   "outside the {} vertices", t.basis_names()[a], slots[a].row,
                                   slots[a].col, nv));
    arrows.emplace_back(slots[a].row, slots[a].col);
  }
  return canonical_from_arrows(nv, arrows, t.field());
}

BilinearAlgorithm product_algorithm(const StructureTensor& t) {
  BilinearAlgorithm alg;
  alg.field = t.field();
  alg.dim = t.dim();
  alg.name = "one product per nonzero basis product";
  const auto& entries = t.entries();  // sorted by (i, j, k)
  for (size_t n = 0; n < entries.size();) {
    uint32_t i = entries[n].i, j = entries[n].j;
    SparseVector gamma;
    for (; n < entries.size() && entries[n].i == i && entries[n].j == j; ++n)
      gamma.emplace_back(entries[n].k, entries[n].c);
    alg.terms.push_back({unit_vector(i), unit_vector(j), std::move(gamma)});
  }
  return alg;
}

BilinearAlgorithm tensor_product_algorithm(const BilinearAlgorithm& a, const BilinearAlgorithm& b) {
  if (!(a.field == b.field))
    throw InputError(fmt::format("tensor product of algorithms over different fields ({} and {})",
                                 a.field.name(), b.field.name()));
  BilinearAlgorithm alg;
  alg.field = a.field;
  alg.dim = checked_mul(a.dim, b.dim, "dimension of the tensor product algorithm");
  size_t length = checked_mul(a.length(), b.length(), "length of the tensor product algorithm");
  alg.name = fmt::format("({}) ⊗ ({})", a.name, b.name);
  alg.terms.reserve(length);
  for (const auto& s : a.terms)
    for (const auto& u : b.terms)
      alg.terms.push_back({kronecker(s.alpha, u.alpha, b.dim, alg.field),
                           kronecker(s.beta, u.beta, b.dim, alg.field),
                           kronecker(s.gamma, u.gamma, b.dim, alg.field)});
  return alg;
}

}  // namespace qalg
