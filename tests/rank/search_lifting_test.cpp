// Lifting schemes to Q (issue 11): integer reading, Hensel lifting with rational reconstruction,
// and the field of validity; every algorithm that comes out is checked by the exact verifier.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "qalg/rank/search/lifting.hpp"
#include "rank_test_support.hpp"

namespace qalg {
namespace {

using search::Mode;

// The table Σ_l α_l ⊗ β_l ⊗ γ_l of an algorithm over Q, as a StructureTensor.
StructureTensor table_of(const BilinearAlgorithm& alg) {
  std::vector<std::string> names;
  for (size_t i = 0; i < alg.dim; ++i) names.push_back("b" + std::to_string(i));
  StructureTensor t(Field::rationals(), names);
  for (const auto& term : alg.terms)
    for (const auto& [i, a] : term.alpha)
      for (const auto& [j, b] : term.beta)
        for (const auto& [k, c] : term.gamma) t.add(i, j, k, a * b * c);
  t.finalize();
  return t;
}

// A rational algorithm with entries in {0, ±1} and, when `halves`, also ±1/2.
rc::Gen<BilinearAlgorithm> gen_small_algorithm(bool halves) {
  return rc::gen::exec([halves] {
    BilinearAlgorithm alg;
    alg.dim = *rc::gen::inRange<size_t>(1, 5);
    const int terms = *rc::gen::inRange(1, 6);
    auto entry = [&] {
      const int v = *rc::gen::inRange(-1, 2);
      const bool half = halves && *rc::gen::inRange(0, 4) == 0;
      return half ? Rational(v, 2) : Rational(v);
    };
    for (int l = 0; l < terms; ++l) {
      BilinearTerm term;
      for (SparseVector* v : {&term.alpha, &term.beta, &term.gamma})
        for (uint32_t i = 0; i < alg.dim; ++i)
          if (Rational c = entry(); !c.is_zero()) v->emplace_back(i, c);
      if (term.alpha.empty() || term.beta.empty() || term.gamma.empty()) continue;
      alg.terms.push_back(std::move(term));
    }
    return alg;
  });
}

// A {−1, 0, 1} scheme read modulo 3 comes back by integer reading, valid over every field.
RC_GTEST_PROP(SearchLifting, IntegerSchemesComeBackExactlyFromGF3, ()) {
  const BilinearAlgorithm alg = *gen_small_algorithm(false);
  RC_PRE(!alg.terms.empty());
  const StructureTensor t = table_of(alg);
  auto s = search::scheme_from_algorithm(alg, Mode::GF3);
  RC_ASSERT(s.has_value());
  auto lift = search::lift_to_rationals(*s, t);
  RC_ASSERT(lift.algorithm.has_value());
  RC_ASSERT(verify_algorithm(*lift.algorithm, t).verified);
  RC_ASSERT(lift.excluded_characteristics.empty());
  RC_ASSERT(lift.algorithm->length() == s->length());
}

// Schemes with halves read modulo 3 (1/2 ≡ −1): whenever lifting succeeds, the algorithm is
// exact over Q, keeps the support of the scheme, and excludes exactly the primes of its
// denominators.
RC_GTEST_PROP(SearchLifting, HenselLiftsKeepTheSupportAndVerify, ()) {
  const BilinearAlgorithm alg = *gen_small_algorithm(true);
  RC_PRE(!alg.terms.empty());
  const StructureTensor t = table_of(alg);
  auto s = search::scheme_from_algorithm(alg, Mode::GF3);
  RC_ASSERT(s.has_value());
  auto lift = search::lift_to_rationals(*s, t);
  if (!lift.algorithm) {
    RC_ASSERT(!lift.failure.empty());
    return;
  }
  RC_ASSERT(verify_algorithm(*lift.algorithm, t).verified);
  RC_ASSERT(lift.algorithm->length() == s->length());
  auto back = search::scheme_from_algorithm(*lift.algorithm, Mode::GF3);
  RC_ASSERT(back.has_value());
  for (size_t l = 0; l < s->terms.size(); ++l)
    for (int p = 0; p < 3; ++p)
      RC_ASSERT(back->terms[l].f[p].support() == s->terms[l].f[p].support());
  for (ulong p : lift.excluded_characteristics) RC_ASSERT(p != 3);
}

TEST(SearchLifting, OneHalfIsRecoveredFromMinusOneModuloThree) {
  BilinearAlgorithm alg;
  alg.dim = 1;
  alg.terms.push_back({{{0, Rational(1, 2)}}, {{0, Rational(1)}}, {{0, Rational(1)}}});
  const StructureTensor t = table_of(alg);  // c_00^0 = 1/2
  auto s = search::scheme_from_algorithm(alg, Mode::GF3);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->terms[0].f[0].at(0), -1);  // 1/2 ≡ 2 ≡ −1 (mod 3)
  auto lift = search::lift_to_rationals(*s, t);
  ASSERT_TRUE(lift.algorithm.has_value()) << lift.failure;
  EXPECT_TRUE(verify_algorithm(*lift.algorithm, t).verified);
  EXPECT_EQ(lift.excluded_characteristics, std::vector<ulong>{2});
  EXPECT_NE(lift.method.find("Hensel"), std::string::npos);
  EXPECT_NE(search::validity_statement(lift.excluded_characteristics).find("other than 2"),
            std::string::npos);
}

TEST(SearchLifting, ASchemeForAnotherTableIsNotLifted) {
  const StructureTensor t = testing::graph_table("complete:2");
  search::Scheme s = search::initial_scheme(t, Mode::GF3);
  s.terms.pop_back();
  EXPECT_FALSE(search::lift_to_rationals(s, t).algorithm.has_value());
}

}  // namespace
}  // namespace qalg
