#pragma once
// Rank-test helpers: random general tables (quivers come from qalg/verify/generators.hpp) and
// an independent oracle for the coefficients of an algorithm.
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "qalg/algebra/graph_algebra.hpp"
#include "qalg/algebra/quiver.hpp"
#include "qalg/algebra/quiver_input.hpp"
#include "qalg/algebra/structure_tensor.hpp"
#include "qalg/rank/bilinear_algorithm.hpp"
#include "qalg/verify/generators.hpp"

namespace qalg::testing {

inline StructureTensor graph_table(const std::string& spec, const Field& f = Field::rationals()) {
  return graph_algebra(read_quiver(spec), f);
}

// A random table (no structure assumed: usually neither associative nor unital).
inline rc::Gen<StructureTensor> random_table(int max_dim = 4, int max_entries = 12) {
  return rc::gen::exec([=] {
    int n = *rc::gen::inRange(1, max_dim + 1);
    std::vector<std::string> names;
    for (int b = 0; b < n; ++b) names.push_back("b" + std::to_string(b));
    StructureTensor t(Field::rationals(), names);
    int m = *rc::gen::inRange(0, max_entries + 1);
    for (int e = 0; e < m; ++e)
      t.add(*rc::gen::inRange(0, n), *rc::gen::inRange(0, n), *rc::gen::inRange(0, n),
            *verify::gen_scalar(Field::rationals()));
    t.finalize();
    return t;
  });
}

// Σ_l α_l[i] β_l[j] γ_l[k], straight from the definition (dense lookups), as an oracle.
inline Rational coefficient_of(const BilinearAlgorithm& alg, uint32_t i, uint32_t j, uint32_t k) {
  auto at = [](const SparseVector& v, uint32_t index) {
    for (const auto& [n, c] : v)
      if (n == index) return c;
    return Rational(0);
  };
  Rational sum;
  for (const auto& term : alg.terms) sum += at(term.alpha, i) * at(term.beta, j) * at(term.gamma, k);
  alg.field.reduce(sum);
  return sum;
}

}  // namespace qalg::testing
