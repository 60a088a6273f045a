// Type schedules (SPEC §4).
#include <gtest/gtest.h>

#include "qalg/gpu/schedule.hpp"

namespace qalg::gpu {
namespace {

TEST(Schedule, CyclicIsPositionModQ) {
  auto t = TypeSchedule::cyclic(3).row_types(7);
  EXPECT_EQ(t, (std::vector<uint32_t>{0, 1, 2, 0, 1, 2, 0}));
}

TEST(Schedule, IntervalsAreBlocksOfLength) {
  // q = 4, L = 2: τ(p) = floor((p mod 8) / 2)
  auto t = TypeSchedule::intervals(4, 2).row_types(11);
  EXPECT_EQ(t, (std::vector<uint32_t>{0, 0, 1, 1, 2, 2, 3, 3, 0, 0, 1}));
  // the paper's model: q = 4, L = 192
  auto paper = TypeSchedule::intervals(4, 192);
  EXPECT_EQ(paper.type_of(191), 0u);
  EXPECT_EQ(paper.type_of(192), 1u);
  EXPECT_EQ(paper.type_of(4 * 192 - 1), 3u);
  EXPECT_EQ(paper.type_of(4 * 192), 0u);
}

TEST(Schedule, ExplicitIsValidated) {
  auto s = TypeSchedule::explicit_types(3, {2, 0, 1, 1});
  EXPECT_EQ(s.row_types(4), (std::vector<uint32_t>{2, 0, 1, 1}));
  EXPECT_THROW(s.row_types(5), std::invalid_argument);
  try {
    TypeSchedule::explicit_types(3, {0, 3});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("row 1 has type 3, not < q = 3"), std::string::npos) << e.what();
  }
  EXPECT_THROW(TypeSchedule::cyclic(0), std::invalid_argument);
  EXPECT_THROW(TypeSchedule::intervals(2, 0), std::invalid_argument);
}

}  // namespace
}  // namespace qalg::gpu
