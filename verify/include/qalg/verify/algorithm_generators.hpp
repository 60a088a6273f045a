#pragma once
// Generators of bilinear algorithms (SPEC §3): rewrites that keep Σ α ⊗ β ⊗ γ unchanged (so the
// result must still verify) and single-coefficient corruptions (so it must not).
#include <rapidcheck.h>

#include "qalg/rank/bilinear_algorithm.hpp"
#include "qalg/verify/generators.hpp"
#include "qalg/verify/sparse_ops.hpp"

namespace qalg::verify {

// A random sequence of tensor-preserving rewrites of `alg`: scale (α_l c, γ_l c⁻¹), split
// (α_l − δ, β_l, γ_l) + (δ, β_l, γ_l), and a rotation of the term order.
inline rc::Gen<BilinearAlgorithm> gen_equivalent_algorithm(const BilinearAlgorithm& original) {
  return rc::gen::exec([original] {
    BilinearAlgorithm alg = original;
    const Field f = alg.field;
    const int steps = *rc::gen::inRange(0, 4);
    for (int s = 0; s < steps && alg.length() > 0; ++s) {
      const size_t l = *rc::gen::inRange<size_t>(0, alg.length());
      const int kind = *rc::gen::inRange(0, 3);
      if (kind == 0) {
        const Rational c = *rc::gen::suchThat(gen_scalar(f), [](const Rational& r) { return !r.is_zero(); });
        alg.terms[l].alpha = scale(f, c, alg.terms[l].alpha);
        alg.terms[l].gamma = scale(f, field_inverse(f, c), alg.terms[l].gamma);
      } else if (kind == 1) {
        BilinearTerm extra = alg.terms[l];
        extra.alpha = *gen_element(f, alg.dim);
        alg.terms[l].alpha = subtract(f, alg.terms[l].alpha, extra.alpha);
        alg.terms.push_back(std::move(extra));
      } else {
        std::rotate(alg.terms.begin(), alg.terms.begin() + long(l), alg.terms.end());
      }
    }
    alg.name += " (rewritten)";
    return alg;
  });
}

// The terms with α_l ≠ 0 and β_l ≠ 0 (where changing γ_l changes the algorithm's tensor).
inline std::vector<size_t> corruptible_terms(const BilinearAlgorithm& alg) {
  std::vector<size_t> usable;
  for (size_t l = 0; l < alg.length(); ++l)
    if (!alg.terms[l].alpha.empty() && !alg.terms[l].beta.empty()) usable.push_back(l);
  return usable;
}

// `alg` with c·b_k added to γ_l of one corruptible term: the algorithm's tensor changes by
// α_l ⊗ β_l ⊗ c b_k ≠ 0, so verification must fail. Requires corruptible_terms(alg) non-empty.
inline rc::Gen<BilinearAlgorithm> gen_corrupted_algorithm(const BilinearAlgorithm& original) {
  return rc::gen::exec([original] {
    BilinearAlgorithm alg = original;
    const std::vector<size_t> usable = corruptible_terms(alg);
    const size_t l = *rc::gen::elementOf(usable);
    const uint32_t k = *rc::gen::inRange<uint32_t>(0, uint32_t(alg.dim));
    const Rational c = *rc::gen::suchThat(gen_scalar(alg.field), [](const Rational& r) { return !r.is_zero(); });
    alg.terms[l].gamma = add(alg.field, alg.terms[l].gamma, scale(alg.field, c, basis_vector(k)));
    alg.name += " (corrupted)";
    return alg;
  });
}

}  // namespace qalg::verify
