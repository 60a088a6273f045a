// to_edge_list ∘ parse_edge_list is the identity on quivers read from edge lists, including the
// default names of parallel arrows, "s->t#2" (found by fuzz/fuzz_edge_list: the '#' in the name
// was read back as a comment, issue 12).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "qalg/algebra/quiver_input.hpp"
#include "qalg/verify/generators.hpp"

using namespace qalg;

namespace {

void expect_same(const Quiver& a, const Quiver& b) {
  RC_ASSERT(a.vertices == b.vertices);
  RC_ASSERT(a.arrows.size() == b.arrows.size());
  for (size_t n = 0; n < a.arrows.size(); ++n) {
    RC_ASSERT(a.arrows[n].source == b.arrows[n].source);
    RC_ASSERT(a.arrows[n].target == b.arrows[n].target);
    RC_ASSERT(a.arrows[n].name == b.arrows[n].name);
  }
}

}  // namespace

TEST(EdgeListRoundTrip, ParallelArrowsKeepTheirDefaultNames) {
  Quiver q = parse_edge_list("x y\nx y\nx y\nx x\nx x\n", "mem");
  ASSERT_EQ(q.arrows.size(), 5u);
  EXPECT_EQ(q.arrows[2].name, "x->y#3");
  EXPECT_EQ(q.arrows[4].name, "x->x#2");
  Quiver back = parse_edge_list(to_edge_list(q), "round-trip");
  ASSERT_EQ(back.arrows.size(), 5u);
  for (size_t n = 0; n < 5; ++n) EXPECT_EQ(back.arrows[n].name, q.arrows[n].name);
}

TEST(EdgeListRoundTrip, CommentsStillStartAtAWord) {
  Quiver q = parse_edge_list("# header\nx y a#1 # trailing comment\n#y z\n", "mem");
  ASSERT_EQ(q.arrows.size(), 1u);
  EXPECT_EQ(q.arrows[0].name, "a#1");
  EXPECT_EQ(q.vertices, (std::vector<std::string>{"x", "y"}));
}

// Random quivers written without arrow names (loops and parallel arrows included): the reader's
// default names must survive the writer.
RC_GTEST_PROP(EdgeListRoundTrip, UnnamedArrowsSurviveTheWriter, ()) {
  const Quiver g = *verify::gen_quiver();
  std::string text;
  for (const auto& v : g.vertices) text += v + "\n";
  for (const auto& a : g.arrows) text += g.vertices[a.source] + " " + g.vertices[a.target] + "\n";
  const Quiver q = parse_edge_list(text, "mem");
  expect_same(q, parse_edge_list(to_edge_list(q), "round-trip"));
}
