// The calibration's shortlist (bench/gpu/shortlist.hpp): alone the three fastest; alternating the
// fastest until three tiles (order variants of one tile count once) are in, 3 to 8 variants.
#include <gtest/gtest.h>

#include "../../bench/gpu/shortlist.hpp"

using qalg::bench::shortlist_size;
using qalg::bench::variant_family;

TEST(Shortlist, FamiliesDropOrderSuffixes) {
  EXPECT_EQ(variant_family("fused-ws128x128-types-desc"), "fused-ws128x128");
  EXPECT_EQ(variant_family("fused-ws128x128-desc"), "fused-ws128x128");
  EXPECT_EQ(variant_family("fused-wsl64x128-types"), "fused-wsl64x128");
  EXPECT_EQ(variant_family("fused-64x128w4"), "fused-64x128w4");
  EXPECT_EQ(variant_family("diagonal-first"), "diagonal-first");
  EXPECT_EQ(variant_family("-types"), "-types");  // nothing before the suffix: kept whole
}

TEST(Shortlist, AloneThreeAlternatingUntilThreeTiles) {
  // the H200 squares at n = 32768 (thirty-fifth session's call 6), fastest alone first
  const std::vector<std::string> squares = {
      "fused-ws128x128-types", "fused-ws128x128-types-desc", "fused-ws128x128", "fused-wsl64x128",
      "fused-ws128x128-desc", "fused-wsl64x128-desc", "fused-wsl64x128-types", "fused-wsl64x128-types-desc",
      "fused-wsp64x128-types", "fused-ws64x128"};
  EXPECT_EQ(shortlist_size(squares, false), 3u);
  EXPECT_EQ(shortlist_size(squares, true), 8u);  // the cap: wsl64x128 (fourth) is in, a third tile is not
  const std::vector<std::string> mixed = {"fused-a", "fused-b", "fused-c", "fused-d"};
  EXPECT_EQ(shortlist_size(mixed, true), 3u);  // three tiles in three variants
  const std::vector<std::string> two = {"fused-a", "fused-a-types", "fused-b", "fused-a-desc", "fused-c", "fused-d"};
  EXPECT_EQ(shortlist_size(two, true), 5u);  // the third tile is the fifth variant
  EXPECT_EQ(shortlist_size({"fused-a", "fused-a-types"}, true), 2u);
  EXPECT_EQ(shortlist_size({"fused-a"}, false), 1u);
  EXPECT_EQ(shortlist_size({}, true), 0u);
}
