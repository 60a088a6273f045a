// The narrow-group law kernel's automatic run (gpu/cuda/narrow_run.hpp): the SPEC shapes' runs
// worked out by hand, and the rule against a second, plainer model of the GPU's CTA dispatch (a
// clock stepping through slots) written here. And its unit order (gpu/cuda/narrow_units.hpp): every
// unit taken exactly once in either order, boxes whole and in order within one CTA, the strided
// order's CTAs at one contiguous stretch per step, the contiguous order the kernel's old runs.
#include <algorithm>
#include <random>
#include <vector>

#include "cuda/narrow_run.hpp"
#include "cuda/narrow_units.hpp"
#include "property.hpp"

namespace {
using qalg::gpu::detail::narrow_auto_run;
using qalg::gpu::detail::narrow_dispatch_time;
using qalg::gpu::detail::narrow_box_shift;
using qalg::gpu::detail::narrow_strided_fits;
using qalg::gpu::detail::narrow_unit;
using qalg::gpu::detail::narrow_unit_count;

// The same dispatch as narrow_dispatch_time, the other way round: time steps one unit at a time;
// at each step every slot that is free takes the next CTA in launch order (types, then runs, then
// row blocks); a CTA of u units holds its slot for u + 1 steps.
uint64_t stepped_time(uint64_t types, uint32_t row_blocks, uint32_t per_block, uint32_t run, uint64_t slots) {
  std::vector<uint32_t> lengths;
  for (uint64_t i = 0; i < types; ++i)
    for (uint32_t u0 = 0; u0 < per_block; u0 += run)
      for (uint32_t rb = 0; rb < row_blocks; ++rb) lengths.push_back(std::min(run, per_block - u0) + 1);
  std::vector<uint32_t> busy(slots, 0);  // steps left
  size_t next = 0;
  uint64_t t = 0;
  for (;; ++t) {
    bool running = false;
    for (auto& b : busy) {
      if (b == 0 && next < lengths.size()) b = lengths[next++];
      running |= b != 0;
    }
    if (!running) return t;
    for (auto& b : busy)
      if (b != 0) --b;
  }
}

// Worked out by hand (results/gpu/README.md, twenty-seventh session), 132 SMs: Qwen3-32B at M =
// 8192 (q = 128, s = 40: 3 CTAs per SM; 128 types of one 64-row block, 256 units each) takes runs
// of 86 (384 CTAs, one wave: 87 unit times) in place of 16 (2048 CTAs, 6 waves: 102); at M = 32768
// (q = 256, two row blocks per type, 8192 CTAs at 16: 20.7 waves) 16 stays; the FFN down
// projections at M = 2048 keep the small-grid rule (the Qwen3-30B expert's 1024 units: 4;
// DeepSeek-V3's 2048: 8).
TEST(NarrowAutoRun, PaperShapes) {
  EXPECT_EQ(narrow_auto_run(128, 1, 256, 3, 132), 86u);
  EXPECT_EQ(narrow_auto_run(256, 2, 256, 3, 132), 16u);
  EXPECT_EQ(narrow_auto_run(32, 1, 32, 3, 132), 4u);
  EXPECT_EQ(narrow_auto_run(32, 1, 64, 2, 132), 8u);
  EXPECT_EQ(narrow_auto_run(1, 1, 1, 3, 132), 1u);
  EXPECT_EQ(narrow_dispatch_time(128, 1, 256, 86, 396), 87u);
  EXPECT_EQ(narrow_dispatch_time(128, 1, 256, 16, 396), 6u * 17);
}

// The two dispatch models agree.
QALG_PROPERTY(NarrowAutoRun, DispatchModelsAgree) {
  std::mt19937_64 rng(seed);
  const uint64_t types = 1 + rng() % 40, slots = 1 + rng() % 50;
  const uint32_t row_blocks = 1 + uint32_t(rng() % 4), per_block = 1 + uint32_t(rng() % 60), run = 1 + uint32_t(rng() % 20);
  PROP_ASSERT_EQ(narrow_dispatch_time(types, row_blocks, per_block, run, slots), stepped_time(types, row_blocks, per_block, run, slots));
}

// Any grid: the run is 1 or even, at most 16 unless the grid is wide, and where it is not 16 in a
// grid of 16-unit runs, at least 5 % faster than 16 in the stepped model.
QALG_PROPERTY(NarrowAutoRun, OtherThanSixteenOnlyWhereFaster) {
  std::mt19937_64 rng(seed);
  const uint32_t sms = 4 + uint32_t(rng() % 40), per_sm = 2 + uint32_t(rng() % 3);
  const uint64_t types = 1 + rng() % 150;
  const uint32_t row_blocks = 1 + uint32_t(rng() % 3), per_block = 1 + uint32_t(rng() % 200);
  const uint32_t run = narrow_auto_run(types, row_blocks, per_block, per_sm, sms);
  PROP_ASSERT(run >= 1);
  PROP_ASSERT(run == 1 || run % 2 == 0);
  PROP_ASSERT(run <= std::max<uint32_t>(16, per_block + 1));
  if (run > 16) {
    const uint64_t slots = uint64_t(per_sm) * sms;
    PROP_ASSERT(stepped_time(types, row_blocks, per_block, run, slots) * 20 <=
                stepped_time(types, row_blocks, per_block, 16, slots) * 19);
  }
}

// Either order, any (total, run, box) it applies to: the row block's CTAs take every unit once;
// no CTA more than `run`; a box's units consecutive, in order, in one CTA. Contiguous: CTA c's
// n-th unit is c · run + n (the kernel before the switch). Strided: at step n every CTA that still
// has units is at box step n / box, and together they cover one contiguous range of boxes.
QALG_PROPERTY(NarrowUnits, EveryUnitOnceBoxesWholeStridedContiguousPerStep) {
  std::mt19937_64 rng(seed);
  const uint32_t bs = uint32_t(rng() % 3), box = 1u << bs;
  const uint32_t total = box * (1 + uint32_t(rng() % 80)), run = box * (1 + uint32_t(rng() % 24));
  const uint32_t runs = (total + run - 1) / run;
  for (uint32_t strided : {0u, 1u}) {
    if (strided && !narrow_strided_fits(total, run, bs)) {
      PROP_ASSERT(run >= total);  // the only reason here: run and total are multiples of the box
      continue;
    }
    std::vector<uint32_t> seen(total, 0);
    uint32_t most = 0;
    for (uint32_t c = 0; c < runs; ++c) {
      const uint32_t count = narrow_unit_count(total, c, run, runs, bs, strided);
      PROP_ASSERT(count <= run);
      most = std::max(most, count);
      for (uint32_t n = 0; n < count; ++n) {
        const uint32_t u = narrow_unit(n, c, run, runs, bs, strided);
        PROP_ASSERT(u < total);
        ++seen[u];
        if (!strided) PROP_ASSERT_EQ(u, c * run + n);
        if (strided) {
          PROP_ASSERT_EQ(u % box, n % box);  // a box's units in order
          if (n % box) PROP_ASSERT_EQ(u, narrow_unit(n - 1, c, run, runs, bs, strided) + 1);
          PROP_ASSERT_EQ(u / box, c + (n / box) * runs);
        }
      }
      if (strided) PROP_ASSERT(count % box == 0);
    }
    for (uint32_t u = 0; u < total; ++u) PROP_ASSERT_EQ(seen[u], 1u);
    if (strided) {  // per box step, the CTAs with units there cover boxes [step · runs, ...) without a gap
      for (uint32_t n = 0; n < most; n += box) {
        std::vector<uint32_t> at;
        for (uint32_t c = 0; c < runs; ++c)
          if (n < narrow_unit_count(total, c, run, runs, bs, strided)) at.push_back(narrow_unit(n, c, run, runs, bs, strided) / box);
        std::sort(at.begin(), at.end());
        for (size_t k = 0; k < at.size(); ++k) PROP_ASSERT_EQ(at[k], (n / box) * runs + uint32_t(k));
      }
    }
  }
}

// The SPEC shape it is for: Qwen3-32B at M = 32768 (q = 256, r = 100: pairs of groups in one TMA
// box, runs of 16 units, 16 CTAs per row block). Strided, CTA 3 takes the pairs 3, 19, 35, … (units
// 6, 7, 38, 39, …), and at its first step the 16 CTAs write units 0 … 31: 3200 columns' bytes of
// every row; contiguous, CTA 3 takes units 48 … 63.
TEST(NarrowUnits, QwenThirtyTwoBAtM32768) {
  EXPECT_TRUE(narrow_strided_fits(256, 16, 1));
  EXPECT_EQ(narrow_unit_count(256, 3, 16, 16, 1, 1), 16u);
  EXPECT_EQ(narrow_unit(0, 3, 16, 16, 1, 1), 6u);
  EXPECT_EQ(narrow_unit(1, 3, 16, 16, 1, 1), 7u);
  EXPECT_EQ(narrow_unit(2, 3, 16, 16, 1, 1), 38u);
  EXPECT_EQ(narrow_unit(15, 3, 16, 16, 1, 1), 3u * 2 + 7 * 32 + 1);
  EXPECT_EQ(narrow_unit(0, 3, 16, 16, 1, 0), 48u);
  EXPECT_EQ(narrow_unit_count(256, 3, 16, 16, 1, 0), 16u);
  // M = 8192 (q = 128, two pieces per group, the automatic run of 86: 3 CTAs per row block, the
  // last with 84 units): strided by groups
  EXPECT_TRUE(narrow_strided_fits(256, 86, 1));
  EXPECT_EQ(narrow_unit_count(256, 0, 86, 3, 1, 1), 86u);
  EXPECT_EQ(narrow_unit_count(256, 2, 86, 3, 1, 1), 84u);
  EXPECT_EQ(narrow_unit(2, 1, 86, 3, 1, 1), 8u);
  // not where the box does not divide the run, nor with one CTA per row block
  EXPECT_FALSE(narrow_strided_fits(256, 15, 1));
  EXPECT_FALSE(narrow_strided_fits(16, 16, 0));
  // the boxes: M = 32768's pairs of one-piece groups (TMA stores, G = 2); M = 8192's two pieces by
  // lanes or in one group box; one piece by lanes; three pieces (r = 260) none
  EXPECT_EQ(narrow_box_shift(true, 2, 1), 1);
  EXPECT_EQ(narrow_box_shift(false, 1, 2), 1);
  EXPECT_EQ(narrow_box_shift(true, 1, 2), 1);
  EXPECT_EQ(narrow_box_shift(false, 2, 1), 0);  // (G = 2 set but its stores not taken: lanes)
  EXPECT_EQ(narrow_box_shift(false, 1, 3), -1);
}
}  // namespace
