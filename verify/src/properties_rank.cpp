// SPEC §3 properties: the rank formula R(Q_G) = |V| + 2|E|, exact verification of algorithms
// (rewrites keep it, corruptions break it at a genuine coordinate), and algorithms under ⊗.
#include <rapidcheck.h>

#include "qalg/algebra/report.hpp"
#include "qalg/rank/algorithms.hpp"
#include "qalg/rank/lower_bounds.hpp"
#include "qalg/rank/rank_report.hpp"
#include "qalg/verify/algorithm_generators.hpp"
#include "qalg/verify/catalogue.hpp"

namespace qalg::verify {
namespace {

GraphCase graph_case(const RunConfig& c) {
  GraphCase g = *gen_graph_case(QuiverShape{.max_vertices = c.max_size, .max_arrows = 2 * c.max_size});
  record_case(g.quiver, g.table.field());
  return g;
}

void rank_formula(const RunConfig& c) {
  const GraphCase g = graph_case(c);
  const size_t expected = g.quiver.vertex_count() + 2 * g.quiver.arrow_count();
  const AlgebraReport report = inspect_algebra(g.table);
  const BoundOutcome as = alder_strassen_bound(report);
  RC_ASSERT(as.bound.has_value());
  RC_ASSERT(as.bound->value == 2 * g.table.dim() - *report.t);
  RC_ASSERT(as.bound->value == expected);
  const RankReport r = compute_rank_report(g.table, report);
  RC_ASSERT(r.explicit_verified);
  RC_ASSERT(r.explicit_length == expected);
  RC_ASSERT(r.rank_exact == std::optional<size_t>(expected));
  for (const auto& b : r.bounds) RC_ASSERT(b.value <= r.explicit_length);  // bounds are sound
}

void canonical_verifies(const RunConfig& c) {
  const GraphCase g = graph_case(c);
  const BilinearAlgorithm alg = canonical_graph_algorithm(g.quiver, g.table.field());
  RC_ASSERT(alg.length() == g.quiver.vertex_count() + 2 * g.quiver.arrow_count());
  RC_ASSERT(verify_algorithm(alg, g.table).verified);
}

// Σ_l α_l(b_i) β_l(b_j) γ_l[k], computed term by term (independent of verify_algorithm).
Rational algorithm_coefficient(const BilinearAlgorithm& alg, uint32_t i, uint32_t j, uint32_t k) {
  const Field& f = alg.field;
  Rational sum(0);
  for (const auto& t : alg.terms)
    sum = f.add(sum, f.mul(f.mul(coordinate(t.alpha, i), coordinate(t.beta, j)), coordinate(t.gamma, k)));
  return sum;
}

void rewrites_verify_corruptions_fail(const RunConfig& c) {
  const GraphCase g = graph_case(c);
  const BilinearAlgorithm canonical = canonical_graph_algorithm(g.quiver, g.table.field());
  const BilinearAlgorithm rewritten = *gen_equivalent_algorithm(canonical);
  RC_ASSERT(verify_algorithm(rewritten, g.table).verified);
  RC_PRE(!corruptible_terms(rewritten).empty());
  const BilinearAlgorithm broken = *gen_corrupted_algorithm(rewritten);
  const VerificationResult v = verify_algorithm(broken, g.table);
  RC_ASSERT(!v.verified);
  RC_ASSERT(v.mismatch.has_value());
  const auto& m = *v.mismatch;
  // The reported coordinate really differs, with the values reported.
  RC_ASSERT(m.table_value == g.table.coefficient(m.i, m.j, m.k));
  RC_ASSERT(m.algorithm_value == algorithm_coefficient(broken, m.i, m.j, m.k));
  RC_ASSERT(m.algorithm_value != m.table_value);
}

void tensor_algorithm(const RunConfig& c) {
  const TensorCase t = *gen_tensor_case(QuiverShape{.max_vertices = std::min<size_t>(c.max_size, 3), .max_arrows = 3});
  record_case(t.product);
  const Field& f = t.product.field();
  const BilinearAlgorithm a = canonical_graph_algorithm(t.left, f), b = canonical_graph_algorithm(t.right, f);
  const BilinearAlgorithm ab = tensor_product_algorithm(a, b);
  RC_ASSERT(ab.length() == a.length() * b.length());
  RC_ASSERT(verify_algorithm(ab, t.product).verified);
  // Every bound on R(A ⊗ B) is at most the length of this verified algorithm.
  const AlgebraReport report = inspect_algebra(t.product);
  const RankReport r = compute_rank_report(t.product, report, ab);
  RC_ASSERT(r.best_lower_bound <= ab.length());
  RC_ASSERT(r.explicit_verified && r.explicit_length <= ab.length());
}

}  // namespace

std::vector<Property> rank_properties() {
  return {
      {"rank-formula", "SPEC §3", "Alder–Strassen 2 dim − t = |V| + 2|E| = verified canonical length, so R(Q_G) is exact", rank_formula},
      {"canonical-algorithm", "SPEC §3", "the canonical algorithm read off the quiver verifies exactly, length |V|+2|E|", canonical_verifies},
      {"algorithm-verification", "SPEC §3", "tensor-preserving rewrites still verify; a corrupted γ fails at a coordinate that really differs", rewrites_verify_corruptions_fail},
      {"tensor-algorithm", "SPEC §3", "the ⊗ of verified algorithms verifies for A ⊗ B with length r_A r_B ≥ every lower bound", tensor_algorithm},
  };
}

}  // namespace qalg::verify
