// Known answers of the flip-graph search (issue 11, SPEC §3) with small fixed budgets:
// k[x]/(x²) ⊗ k[x]/(x²) reaches its Alder–Strassen bound 7 over GF(3) and lifts to Q; the search
// never reports less than R(Q_q) = 2q² − q; results do not depend on the number of threads; a
// scheme below a claimed lower bound stops the search.
#include <gtest/gtest.h>

#include "qalg/algebra/known_algebras.hpp"
#include "qalg/algebra/tensor_product.hpp"
#include "qalg/rank/search/certify.hpp"
#include "qalg/rank/search/flip_search.hpp"
#include "qalg/rank/search/lifting.hpp"
#include "rank_test_support.hpp"

namespace qalg {
namespace {

using search::Mode;

StructureTensor loop_squared() { return tensor_power(testing::graph_table("cycle:1"), 2); }

search::SearchOptions small_budget(uint64_t seed, size_t lower_bound) {
  search::SearchOptions o;
  o.seed = seed;
  o.lower_bound = lower_bound;
  o.threads = 2;
  o.time_limit_s = 60;  // a safety net only: the batch budget ends the run
  o.max_batches = 40;
  o.batch = 16;
  o.walk.max_flips = 20'000;
  o.walk.plateau = 1'000;
  return o;
}

search::SearchResult run(const StructureTensor& t, Mode m, const search::SearchOptions& o) {
  return search::flip_search(search::initial_scheme(t, m), search::dense_target(t, m), o);
}

TEST(SearchKnownAnswers, LoopSquaredHasAlderStrassenBound7) {
  const StructureTensor t = loop_squared();
  EXPECT_EQ(t.dim(), 4u);
  EXPECT_EQ(search::proven_lower_bound(t), 7u);
  EXPECT_EQ(search::initial_scheme(t, Mode::GF3).length(), 9u);  // the product algorithm
}

TEST(SearchKnownAnswers, LoopSquaredReaches7OverGF3AndLiftsToAVerifiedRationalAlgorithm) {
  const StructureTensor t = loop_squared();
  const auto r = run(t, Mode::GF3, small_budget(7, search::proven_lower_bound(t)));
  ASSERT_EQ(r.best_length, 7u) << r.stop_reason;
  EXPECT_EQ(r.stop_reason, "lower bound reached");
  std::string note;
  auto cert = search::certify_best(r.pool, t, 7, "test", note);
  ASSERT_TRUE(cert.has_value()) << note;
  EXPECT_TRUE(cert->over_rationals) << note;
  EXPECT_EQ(cert->algorithm.length(), 7u);
  EXPECT_TRUE(cert->algorithm.field.is_rationals());
  EXPECT_TRUE(verify_algorithm(cert->algorithm, t).verified);
}

// Over GF(2) the rank of k[x]/(x²) ⊗ k[x]/(x²) is 8 (SPEC §3): the search must stop at 8, and
// every length-8 scheme it keeps is a correct GF(2) algorithm.
TEST(SearchKnownAnswers, LoopSquaredStopsAt8OverGF2) {
  const StructureTensor t = loop_squared();
  const StructureTensor t2 = search::table_over(t, Field::prime(2));
  search::SearchOptions o = small_budget(3, search::proven_lower_bound(t2));
  o.max_batches = 4;  // it cannot reach 7: keep the exhausted budget small
  o.walk.max_flips = 5'000;
  const auto r = run(t, Mode::GF2, o);
  EXPECT_EQ(r.best_length, 8u) << r.stop_reason;
  for (const auto& s : r.pool)
    EXPECT_TRUE(verify_algorithm(search::scheme_to_algorithm(s, Field::prime(2), "gf2"), t2).verified);
}

// An integer algorithm reduces to one over GF(2), where the rank is 8: the Z3 search (exact
// over Z) therefore cannot go below 8 either, and a length-7 algorithm over Q needs a
// denominator divisible by 2.
TEST(SearchKnownAnswers, LoopSquaredOverZ3ReachesTheGF2Rank8) {
  const StructureTensor t = loop_squared();
  search::SearchOptions o = small_budget(5, search::proven_lower_bound(t));
  o.max_batches = 4;
  o.walk.max_flips = 5'000;
  const auto r = run(t, Mode::Z3, o);
  EXPECT_EQ(r.best_length, 8u) << r.stop_reason;
  std::string note;
  auto cert = search::certify_best(r.pool, t, 7, "test", note);
  ASSERT_TRUE(cert.has_value()) << note;
  EXPECT_EQ(cert->algorithm.length(), 8u);
  EXPECT_TRUE(verify_algorithm(cert->algorithm, t).verified);
}

TEST(SearchKnownAnswers, LengthSevenRationalAlgorithmExcludesCharacteristic2) {
  const StructureTensor t = loop_squared();
  const auto r = run(t, Mode::GF3, small_budget(11, 7));
  ASSERT_EQ(r.best_length, 7u);
  bool lifted = false;
  for (const auto& s : r.pool) {
    search::LiftResult lift = search::lift_to_rationals(s, t);
    if (!lift.algorithm) continue;
    lifted = true;
    EXPECT_TRUE(verify_algorithm(*lift.algorithm, t).verified);
    EXPECT_NE(std::find(lift.excluded_characteristics.begin(), lift.excluded_characteristics.end(),
                        ulong{2}),
              lift.excluded_characteristics.end());
  }
  EXPECT_TRUE(lifted);
}

// 2×2 matrices: from 8 products to Strassen's 7 = the Alder–Strassen bound 2·4 − 1 over GF(2),
// lifted to an algorithm over Q that the exact verifier accepts.
TEST(SearchKnownAnswers, TwoByTwoMatricesReachStrassensSevenOverGF2) {
  const StructureTensor t = matrix_algebra(2, Field::rationals());
  EXPECT_EQ(search::initial_scheme(t, Mode::GF2).length(), 8u);
  const auto r = run(t, Mode::GF2, small_budget(1, search::proven_lower_bound(t)));
  ASSERT_EQ(r.best_length, 7u) << r.stop_reason;
  std::string note;
  auto cert = search::certify_best(r.pool, t, 7, "test", note);
  ASSERT_TRUE(cert.has_value()) << note;
  EXPECT_TRUE(cert->over_rationals);
  EXPECT_TRUE(verify_algorithm(cert->algorithm, t).verified);
}

// R(Q_q) = 2q² − q (SPEC §3): even with the lower-bound stop disabled, no shorter scheme appears.
TEST(SearchKnownAnswers, SmallCompleteGraphAlgebrasNeverGoBelowTheCanonicalLength) {
  for (unsigned q : {2u, 3u}) {
    const StructureTensor t = testing::graph_table("complete:" + std::to_string(q));
    for (Mode m : {Mode::GF2, Mode::GF3, Mode::Z3}) {
      search::SearchOptions o = small_budget(q, 0);
      o.max_batches = 3;
      o.walk.max_flips = 5'000;
      const auto r = run(t, m, o);
      EXPECT_EQ(r.best_length, 2 * q * q - q) << search::mode_name(m);
      for (const auto& s : r.pool) EXPECT_TRUE(search::scheme_matches(s, search::dense_target(t, m)));
    }
  }
}

TEST(SearchSafety, ASchemeBelowAClaimedLowerBoundStopsTheSearch) {
  const StructureTensor t = loop_squared();
  const auto found = run(t, Mode::GF3, small_budget(7, 7));
  ASSERT_EQ(found.best_length, 7u);
  // Pretend the bound were 8: the length-7 scheme must be refused as a bug, not reported.
  EXPECT_THROW(search::flip_search(found.pool.front(), search::dense_target(t, Mode::GF3),
                                   small_budget(1, 8)),
               search::SearchBugError);
}

TEST(SearchSafety, AStartThatIsNotAnAlgorithmIsRefused) {
  const StructureTensor t = loop_squared();
  search::Scheme s = search::initial_scheme(t, Mode::Z3);
  s.terms.pop_back();
  EXPECT_THROW(search::flip_search(s, search::dense_target(t, Mode::Z3), small_budget(1, 7)),
               search::SearchBugError);
}

TEST(SearchReproducibility, SameSeedSameSchemesForOneAndTwoThreads) {
  const StructureTensor t = tensor_power(testing::graph_table("complete:2"), 2);
  search::SearchOptions o = small_budget(42, 28);
  o.max_batches = 3;
  o.batch = 4;
  o.walk.max_flips = 3'000;
  o.threads = 1;
  const auto one = run(t, Mode::GF2, o);
  o.threads = 2;
  const auto two = run(t, Mode::GF2, o);
  ASSERT_EQ(one.best_length, two.best_length);
  ASSERT_EQ(one.pool.size(), two.pool.size());
  for (size_t i = 0; i < one.pool.size(); ++i)
    EXPECT_EQ(search::canonical_key(one.pool[i]), search::canonical_key(two.pool[i]));
  EXPECT_EQ(one.flips, two.flips);
}

}  // namespace
}  // namespace qalg
