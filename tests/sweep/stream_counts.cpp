// nauty's stream against an independent count: brute-force orbits of labelled digraphs under
// vertex permutations, and OEIS A000273 / A000595 (tests/sweep, label mpi).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>
#include <vector>

#include "qalg/algebra/errors.hpp"
#include "qalg/sweep/quiver_stream.hpp"

namespace qalg::sweep {
namespace {

// Adjacency bits of a quiver without parallel arrows: bit u*n+v for an arrow u -> v.
uint64_t adjacency(const Quiver& q) {
  const size_t n = q.vertex_count();
  uint64_t bits = 0;
  for (const auto& a : q.arrows) bits |= uint64_t(1) << (a.source * n + a.target);
  return bits;
}

// Smallest relabelling over all n! permutations: equal exactly for isomorphic digraphs.
uint64_t canonical(uint64_t bits, size_t n) {
  std::vector<size_t> p(n);
  std::iota(p.begin(), p.end(), 0);
  uint64_t best = ~uint64_t(0);
  do {
    uint64_t image = 0;
    for (size_t u = 0; u < n; ++u)
      for (size_t v = 0; v < n; ++v)
        if (bits >> (u * n + v) & 1) image |= uint64_t(1) << (p[u] * n + p[v]);
    best = std::min(best, image);
  } while (std::next_permutation(p.begin(), p.end()));
  return best;
}

// Isomorphism classes of all labelled digraphs on n vertices (loops optional), by brute force.
size_t brute_force_classes(size_t n, bool loops) {
  std::vector<size_t> cells;
  for (size_t u = 0; u < n; ++u)
    for (size_t v = 0; v < n; ++v)
      if (loops || u != v) cells.push_back(u * n + v);
  std::set<uint64_t> classes;
  for (uint64_t mask = 0; mask < (uint64_t(1) << cells.size()); ++mask) {
    uint64_t bits = 0;
    for (size_t c = 0; c < cells.size(); ++c)
      if (mask >> c & 1) bits |= uint64_t(1) << cells[c];
    classes.insert(canonical(bits, n));
  }
  return classes.size();
}

std::vector<Quiver> stream(const QuiverRange& r) {
  std::vector<Quiver> out;
  QuiverStream s(r);
  while (s.next()) {
    EXPECT_EQ(s.index(), out.size());
    out.push_back(s.quiver());
  }
  s.finish();
  return out;
}

// The stream has one quiver per isomorphism class: pairwise non-isomorphic, as many as classes.
void expect_one_per_class(size_t n, bool loops) {
  const auto qs = stream({unsigned(n), std::nullopt, loops});
  std::set<uint64_t> seen;
  for (const auto& q : qs) {
    EXPECT_EQ(q.vertex_count(), n);
    EXPECT_FALSE(q.has_parallel_arrows());
    EXPECT_TRUE(loops || !q.has_loops());
    EXPECT_TRUE(seen.insert(canonical(adjacency(q), n)).second) << "two isomorphic quivers in the stream";
  }
  EXPECT_EQ(qs.size(), brute_force_classes(n, loops)) << n << " vertices, loops " << loops;
}

TEST(SweepStream, LooplessOnePerIsomorphismClass) {
  for (size_t n = 1; n <= 4; ++n) expect_one_per_class(n, false);
}

TEST(SweepStream, WithLoopsOnePerIsomorphismClass) {
  for (size_t n = 1; n <= 3; ++n) expect_one_per_class(n, true);
}

TEST(SweepStream, KnownCounts) {
  // OEIS A000273 (digraphs) and A000595 (digraphs with loops allowed).
  const std::vector<size_t> loopless = {1, 3, 16, 218, 9608}, with_loops = {2, 10, 104, 3044};
  for (size_t n = 1; n <= loopless.size(); ++n) EXPECT_EQ(stream({unsigned(n), std::nullopt, false}).size(), loopless[n - 1]);
  for (size_t n = 1; n <= with_loops.size(); ++n) EXPECT_EQ(stream({unsigned(n), std::nullopt, true}).size(), with_loops[n - 1]);
}

// --max-arrows keeps exactly the quivers of the full stream with at most m arrows, in order.
RC_GTEST_PROP(SweepStream, MaxArrowsIsAFilterOfTheFullStream, ()) {
  const unsigned n = *rc::gen::inRange(1u, 5u), m = *rc::gen::inRange(0u, 13u);
  const bool loops = n <= 3 && *rc::gen::arbitrary<bool>();
  std::vector<uint64_t> expected, got;
  for (const auto& q : stream({n, std::nullopt, loops}))
    if (q.arrow_count() <= m) expected.push_back(canonical(adjacency(q), n));
  for (const auto& q : stream({n, m, loops})) got.push_back(canonical(adjacency(q), n));
  RC_ASSERT(got == expected);
}

TEST(SweepStream, ParsesNautyLinesAndRejectsBadOnes) {
  const Quiver q = parse_nauty_line("3 2 1 0 1  0 1 2 1", true);  // colours 1,0,1: loops at v1, v3
  ASSERT_EQ(q.arrow_count(), 4u);
  EXPECT_TRUE(q.has_loops());
  EXPECT_EQ(q.arrows[0].source, 0u);
  EXPECT_EQ(q.arrows[1].source, 2u);
  EXPECT_THROW(parse_nauty_line("3 2 0 1", false), InputError);
  EXPECT_THROW(parse_nauty_line("2 1 0 5", false), InputError);
  EXPECT_THROW(parse_nauty_line("2 x", false), InputError);
  EXPECT_THROW(nauty_pipeline({0, std::nullopt, false}), InputError);
  EXPECT_THROW(nauty_pipeline({11, std::nullopt, false}), InputError);
}

}  // namespace
}  // namespace qalg::sweep
