// Flip-graph moves (issue 11): bit-packed arithmetic against coordinate-wise arithmetic, and every
// flip, reduction and plus transition keeps the scheme an exactly verified algorithm.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>

#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/tensor_product.hpp"
#include "qalg/rank/search/flip_walk.hpp"
#include "qalg/rank/search/scheme.hpp"
#include "rank_test_support.hpp"

namespace qalg {
namespace {

using search::Factor;
using search::Mode;

Field mode_field(Mode m) {
  return m == Mode::Z3 ? Field::rationals() : Field::prime(search::mode_characteristic(m));
}

rc::Gen<Mode> gen_mode() { return rc::gen::element(Mode::GF2, Mode::GF3, Mode::Z3); }

// A factor of length `dim` with entries in {−1, 0, 1} ({0, 1} for GF2).
rc::Gen<Factor> gen_factor(Mode m, size_t dim) {
  return rc::gen::map(rc::gen::container<std::vector<int>>(dim, rc::gen::inRange(-1, 2)),
                      [m](const std::vector<int>& e) {
                        Factor f;
                        for (size_t i = 0; i < e.size(); ++i) {
                          int v = m == Mode::GF2 ? e[i] * e[i] : e[i];
                          if (v == 1) f.pos |= uint64_t{1} << i;
                          if (v == -1) f.neg |= uint64_t{1} << i;
                        }
                        return f;
                      });
}

RC_GTEST_PROP(SearchFactor, AddScaledAgreesWithCoordinateArithmetic, ()) {
  const Mode m = *gen_mode();
  const Factor a = *gen_factor(m, 64), b = *gen_factor(m, 64);
  const int s = *rc::gen::element(1, -1);
  const auto sum = search::add_scaled(m, a, b, s);
  bool in_range = true;
  for (unsigned i = 0; i < 64; ++i) {
    const int v = a.at(i) + s * b.at(i);
    if (m == Mode::Z3 && (v < -1 || v > 1)) in_range = false;
    if (!sum) continue;
    if (m == Mode::GF2) RC_ASSERT(sum->at(i) == ((v % 2 + 2) % 2));
    if (m == Mode::GF3) RC_ASSERT(((sum->at(i) - v) % 3 + 3) % 3 == 0);
    if (m == Mode::Z3) RC_ASSERT(sum->at(i) == v);
  }
  RC_ASSERT(sum.has_value() == in_range);
  if (sum) RC_ASSERT((sum->pos & sum->neg) == 0);
}

RC_GTEST_PROP(SearchFactor, ParallelSignIsTheScalarRelatingTheFactors, ()) {
  const Mode m = *gen_mode();
  const Factor a = *gen_factor(m, 20);
  RC_PRE(!a.is_zero());
  RC_ASSERT(search::parallel_sign(a, a) == 1);
  if (m != Mode::GF2) RC_ASSERT(search::parallel_sign(a.negated(), a) == -1);
  const Factor b = *gen_factor(m, 20);
  if (int s = search::parallel_sign(a, b))
    for (unsigned i = 0; i < 20; ++i) RC_ASSERT(a.at(i) == s * b.at(i));
}

// A random scheme in mode m whose target is its own sum.
search::Scheme random_scheme(Mode m, size_t dim, size_t terms) {
  search::Scheme s{m, dim, {}};
  for (size_t t = 0; t < terms; ++t) {
    search::Term term{{*gen_factor(m, dim), *gen_factor(m, dim), *gen_factor(m, dim)}};
    if (term.f[0].is_zero() || term.f[1].is_zero() || term.f[2].is_zero()) continue;
    s.terms.push_back(term);
  }
  return s;
}

RC_GTEST_PROP(SearchScheme, CanonicalKeyIgnoresTermOrderAndSignChanges, ()) {
  const Mode m = *rc::gen::element(Mode::GF3, Mode::Z3);
  const size_t dim = *rc::gen::inRange<size_t>(1, 7);
  search::Scheme s = random_scheme(m, dim, *rc::gen::inRange<size_t>(1, 8));
  search::Scheme t = s;
  std::reverse(t.terms.begin(), t.terms.end());
  for (auto& term : t.terms) {
    const int a = *rc::gen::inRange(0, 3), b = (a + 1) % 3;  // negate two of the three factors
    term.f[a] = term.f[a].negated();
    term.f[b] = term.f[b].negated();
  }
  RC_ASSERT(search::scheme_tensor(s) == search::scheme_tensor(t));
  RC_ASSERT(search::canonical_key(s) == search::canonical_key(t));
}

RC_GTEST_PROP(SearchScheme, AlgorithmRoundTripKeepsEveryTerm, ()) {
  const Mode m = *gen_mode();
  search::Scheme s = random_scheme(m, *rc::gen::inRange<size_t>(1, 9), *rc::gen::inRange<size_t>(0, 8));
  BilinearAlgorithm alg = search::scheme_to_algorithm(s, mode_field(m), "round trip");
  auto back = search::scheme_from_algorithm(alg, m);
  RC_ASSERT(back.has_value());
  RC_ASSERT(back->terms == s.terms);
}

// Every scheme on a walk is an algorithm for the table over the mode's field (exact verifier).
void check_walk(const StructureTensor& rational, Mode m, uint64_t seed, int steps) {
  const Field f = mode_field(m);
  const StructureTensor table = search::table_over(rational, f);
  search::FlipWalk w(search::initial_scheme(rational, m), seed);
  for (int step = 1; step <= steps; ++step) {
    if (step % 25 == 0)
      w.plus_transition();
    else
      w.flip();
    if (step % 10 == 0 || step == steps) {
      auto v = verify_algorithm(search::scheme_to_algorithm(w.scheme(), f, "walk"), table);
      RC_ASSERT(v.verified);
    }
  }
}

RC_GTEST_PROP(FlipWalk, EveryMoveKeepsAGraphAlgebraSchemeCorrect, ()) {
  const Quiver q = *verify::gen_any_quiver({.max_vertices = 4, .max_arrows = 6});
  check_walk(graph_algebra(q, Field::rationals()), *gen_mode(), *rc::gen::arbitrary<uint64_t>(), 120);
}

RC_GTEST_PROP(FlipWalk, EveryMoveKeepsATensorProductSchemeCorrect, ()) {
  const verify::QuiverShape shape{.max_vertices = 2, .max_arrows = 3};
  const Quiver g = *verify::gen_any_quiver(shape), h = *verify::gen_any_quiver(shape);
  const StructureTensor product =
      tensor_product(graph_algebra(g, Field::rationals()), graph_algebra(h, Field::rationals()));
  check_walk(product, *gen_mode(), *rc::gen::arbitrary<uint64_t>(), 120);
}

TEST(FlipWalk, InitialSchemeOfQ2SquaredIsTheCanonicalLength36) {
  StructureTensor t = testing::graph_table("complete:2");
  StructureTensor t2 = tensor_power(t, 2);
  for (Mode m : {Mode::GF2, Mode::GF3, Mode::Z3}) {
    search::Scheme s = search::initial_scheme(t2, m);
    EXPECT_EQ(s.length(), 36u);
    EXPECT_TRUE(search::scheme_matches(s, search::dense_target(t2, m)));
  }
}

TEST(FlipWalk, TablesAboveDimension64AreRefusedWithAClearError) {
  StructureTensor t = testing::graph_table("complete:9");  // dim 81
  try {
    search::dense_target(t, Mode::Z3);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("dimension 81"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace qalg
