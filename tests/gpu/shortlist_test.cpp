// The calibration's shortlist (bench/gpu/shortlist.hpp): alone the three fastest; alternating the
// fastest variant of each of the four fastest tiles (order variants of one tile count once), then
// the fastest others, eight in all.
#include <algorithm>
#include <map>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "../../bench/gpu/shortlist.hpp"
#include "property.hpp"

using qalg::bench::shortlist;
using qalg::bench::variant_family;
using Picks = std::vector<size_t>;

TEST(Shortlist, FamiliesDropOrderSuffixes) {
  EXPECT_EQ(variant_family("fused-ws128x128-types-desc"), "fused-ws128x128");
  EXPECT_EQ(variant_family("fused-ws128x128-desc"), "fused-ws128x128");
  EXPECT_EQ(variant_family("fused-wsl64x128-types"), "fused-wsl64x128");
  EXPECT_EQ(variant_family("fused-64x128w4"), "fused-64x128w4");
  EXPECT_EQ(variant_family("diagonal-first"), "diagonal-first");
  EXPECT_EQ(variant_family("-types"), "-types");  // nothing before the suffix: kept whole
}

TEST(Shortlist, AloneTheThreeFastest) {
  EXPECT_EQ(shortlist({"fused-a", "fused-a-types", "fused-a-desc", "fused-b"}, false), (Picks{0, 1, 2}));
  EXPECT_EQ(shortlist({"fused-a"}, false), (Picks{0}));
  EXPECT_EQ(shortlist({}, false), Picks{});
}

TEST(Shortlist, AlternatingTheMeasuredCases) {
  // the H200 squares at n = 32768 (thirty-fifth session's call 6), fastest alone first: the
  // earlier rule's eight places went to two tiles; now wsp64x128-types (ninth) and ws64x128 are in
  const std::vector<std::string> squares = {
      "fused-ws128x128-types", "fused-ws128x128-types-desc", "fused-ws128x128", "fused-wsl64x128",
      "fused-ws128x128-desc", "fused-wsl64x128-desc", "fused-wsl64x128-types", "fused-wsl64x128-types-desc",
      "fused-wsp64x128-types", "fused-ws64x128"};
  EXPECT_EQ(shortlist(squares, true), (Picks{0, 1, 2, 3, 4, 5, 8, 9}));
  // Qwen3-32B at M = 2048 on an H100 (forty-first session, call 1, prime on): wsl64x128-desc,
  // sixth alone by 0.1 µs, is in
  const std::vector<std::string> q32 = {"fused-ws64x128",   "fused-wr64x128",       "fused-wr64x128-desc",
                                        "fused-ws64x128-desc", "fused-wsm128x128",  "fused-wsl64x128-desc",
                                        "fused-wsl64x128",  "fused-wsl64x192",      "fused-wsl64x192-desc",
                                        "fused-ws64x128-types"};
  const Picks p = shortlist(q32, true);
  EXPECT_EQ(p, (Picks{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(shortlist({"fused-a", "fused-a-types"}, true), (Picks{0, 1}));
  EXPECT_EQ(shortlist({}, true), Picks{});
}

// The laws, against an independent count: on a random sorted list of variants of a few tiles,
// (1) the picks are distinct positions, ascending; (2) there are min(8, n) of them; (3) each of the
// four tiles whose fastest variants come first has that variant picked; (4) every other pick is
// faster (earlier) than every position left out that is not such a tile's fastest.
QALG_PROPERTY(Shortlist, AlternatingLaws) {
  std::mt19937_64 rng(seed);
  const size_t tiles = 1 + rng() % 7, n = rng() % 16;
  std::vector<std::string> names;
  for (size_t i = 0; i < n; ++i) {
    static const char* const kOrders[] = {"", "-types", "-desc", "-types-desc"};
    names.push_back("fused-t" + std::to_string(rng() % tiles) + kOrders[rng() % 4]);
  }
  const Picks p = shortlist(names, true);
  PROP_ASSERT(std::is_sorted(p.begin(), p.end()));
  PROP_ASSERT(std::adjacent_find(p.begin(), p.end()) == p.end());
  PROP_ASSERT((p.empty() || p.back() < n));  // parenthesised: RC_ASSERT's capture would evaluate both sides
  PROP_ASSERT_EQ(p.size(), std::min<size_t>(8, n));
  std::map<std::string, size_t> first_of;  // tile -> position of its fastest variant
  std::vector<size_t> firsts;
  for (size_t i = 0; i < n; ++i)
    if (first_of.emplace(variant_family(names[i]), i).second) firsts.push_back(i);
  const std::set<size_t> reps(firsts.begin(), firsts.begin() + std::min<size_t>(4, firsts.size()));
  const std::set<size_t> picked(p.begin(), p.end());
  for (size_t r : reps) PROP_ASSERT(picked.count(r) == 1);
  size_t last_other_pick = 0, first_other_left = n;
  bool any_other = false;
  for (size_t i = 0; i < n; ++i) {
    if (reps.count(i)) continue;
    if (picked.count(i)) last_other_pick = i, any_other = true;
    else first_other_left = std::min(first_other_left, i);
  }
  PROP_ASSERT((!any_other || last_other_pick < first_other_left));
}
