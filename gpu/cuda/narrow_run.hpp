#pragma once
// Host-side: how many (group, piece) units each CTA of the narrow-group law kernel takes (its
// "run"), when the caller leaves it automatic. Pure arithmetic, so that tests/gpu checks it on
// machines without a GPU (narrow_run_test.cpp).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

namespace qalg::gpu::detail {

// Unit times until the last CTA ends when each CTA, in the kernel's launch order (a type's runs in
// turn, its row blocks fastest within a run), takes the first free one of `slots`, and a CTA of u
// units lasts u + 1 (the 1: its prologue, x_i and the first unit's load with nothing to overlap).
inline uint64_t narrow_dispatch_time(uint64_t types, uint32_t row_blocks, uint32_t per_block, uint32_t run, uint64_t slots) {
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<>> free_at;
  for (uint64_t s = 0; s < slots; ++s) free_at.push(0);
  uint64_t end = 0;
  for (uint64_t i = 0; i < types; ++i)
    for (uint32_t u0 = 0; u0 < per_block; u0 += run)
      for (uint32_t rb = 0; rb < row_blocks; ++rb) {
        const uint64_t t = free_at.top() + std::min(run, per_block - u0) + 1;
        free_at.pop(), free_at.push(t), end = std::max(end, t);
      }
  return end;
}

// types × row_blocks: the (type, 64-row block) pairs; per_block: the units each owns (q · pieces);
// ctas_per_sm: CTAs of the kernel's shape that fit one SM.
//
// Small grids: about two CTAs per SM, each pipelining its units, at most 16 units per CTA; a run
// above 1 rounded up to even (so that the pair boxes of the TMA stores apply). Why, measured by
// QALG_NARROW_RUN on the FFN down projections at M = 2048, q = 32 (session 15, call 4,
// history/ffn_runs_session15_call4): the Qwen3-30B expert's (s = 24, 1024 units) took 12.9 /
// 12.6 / 11.0 / 10.3 / 13.3 us at runs 1 / 2 / 3 / 4 / 8 and DeepSeek-V3's (s = 64, 2048 units)
// 39.7 / 35.1 / 34.6 / 30.9 / 30.2; the previous rule (two waves of 3 CTAs per SM) gave them runs
// 1 and 2 (13.2 and 35.2 us); this one gives 4 and 8.
//
// Wider grids (runs of 16), under 20 waves: CTAs of equal runs start and end together, in waves of
// ctas_per_sm · sms, so part of the last wave's slots idle. At Qwen3-32B M = 8192 (128 types of
// one block, 256 units each, 3 · 132 slots) a run of 16 makes 2048 CTAs, 5.2 waves: 6 · 17 = 102
// unit times by narrow_dispatch_time, against 87 for a run of 86 (384 CTAs, one wave); so the
// runs 16, 24 and 32 timed level there (fourteenth session): 96 or more each. The even run with the
// shortest dispatch time is taken where it saves 5 % against 16. From 20 waves on the last one
// costs under 5 % (Qwen3-32B at M = 32768: 8192 CTAs, 20.7 waves): 16 kept without a search.
inline uint32_t narrow_auto_run(uint64_t types, uint32_t row_blocks, uint32_t per_block, uint32_t ctas_per_sm, uint32_t sms) {
  sms = std::max(sms, 1u);
  const uint64_t blocks = types * row_blocks, units = blocks * per_block, want_ctas = 2ull * sms;
  uint64_t run = std::clamp<uint64_t>((units + want_ctas - 1) / want_ctas, 1, 16);
  if (run > 1) run += run % 2;
  const uint64_t slots = uint64_t(std::max(ctas_per_sm, 1u)) * sms;
  if (run < 16 || per_block <= run || blocks * ((per_block + run - 1) / run) >= 20 * slots) return uint32_t(run);
  const uint64_t base = narrow_dispatch_time(types, row_blocks, per_block, uint32_t(run), slots);
  uint64_t best = run, best_time = base;
  for (uint64_t r = run + 2; r < uint64_t(per_block) + 2; r += 2) {
    const uint64_t t = narrow_dispatch_time(types, row_blocks, per_block, uint32_t(r), slots);
    if (t < best_time) best = r, best_time = t;
  }
  return uint32_t(best_time * 20 <= base * 19 ? best : run);
}

}  // namespace qalg::gpu::detail
