#pragma once
// The gated FFN's decode (one row of type i) in one launch, for the complete-graph law: gate/up
// tiles (h_j = SiLU(x W_g)·(x W_u) over the rows of groups i and j) and down tiles (y_j over h's
// groups i and j) in one grid. Why: with the down projection launched after gate/up (programmatic
// dependent launch, launch_ffn.cu), the decode is a chain of fixed latencies, and the second
// kernel's share of it was ~2 µs on every paper shape (twelfth-session "parts" lines: the whole
// FFN decode 6.8-7.4 µs against its down projection alone 4.7-5.2), though its bytes are under a µs.
// Here a down tile waits only for the gate/up tiles of its two h groups, by counters in global
// memory, not for the whole gate/up grid to finish and be flushed.
// Deadlock-free for any grid size and residency: each CTA draws tickets in order (gate/up tiles
// first, then down tiles) until none is left, so a CTA waits on a group only after every gate/up
// tile has been drawn by a CTA that is running and never waits itself.
// A down tile issues its first batch of W loads before it waits (gemv_run's wait()), as the PDL
// form does. h is read from L2 (ld.global.cg): it is written during this grid.
// CTAs of THREADS threads; a part whose shape has fewer runs THREADS / its threads tiles side by
// side, each on its own named barrier (bar.sync 1 + k).
// Counters (DevicePlan::Impl::ffn_sync of the down plan, 2 + q of them, each on its own 128-byte
// line, kFfnSyncStride words apart, so that polling one does not queue behind atomics on another):
// [0] tickets drawn, [1] CTAs finished, [2 + g] gate/up tiles of h group g stored. Zero between
// calls: the last CTA to finish clears them. One call at a time per plan uses them (as split-K's
// slots, work_list.hpp).
// Gate/up tiles are drawn group i first (every down tile reads h_i), then i + 1, ... (mod q).
#include "decode_gemv.cuh"

namespace qalg::gpu::detail {

constexpr uint32_t kFfnSyncHead = 2, kFfnSyncStride = 32;

struct FfnDecodeArgs {
  uint32_t gu_tiles = 0, dn_tiles = 0;  // tiles of each part (gemv_tile numbering)
  uint32_t gu_per_group = 0;            // gate/up tiles per group of h
  uint32_t groups = 0;                  // q
  uint32_t type = 0;                    // i: its gate/up tiles are drawn first
  uint32_t* sync = nullptr;             // the counters above
};

// Polled relaxed (an acquire load at gpu scope also invalidates the SM's L1, every time), then one
// acquire fence once the counts are there.
__device__ __forceinline__ uint32_t ld_relaxed_gpu(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void fence_acq_rel_gpu() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }
// Returns the old value, so that its thread knows the add was performed (see the last CTA's clear).
__device__ __forceinline__ uint32_t atom_release_gpu_add(uint32_t* p, uint32_t v) {
  uint32_t old;
  asm volatile("atom.release.gpu.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}

// The barrier of the THREADS threads of one side-by-side tile: barrier.sync without .aligned,
// i.e. counted per thread, because gemv_run's threads reach wait() from two places (in the first
// batch, or after no batch at all) and a polling thread 0 leaves its warp diverged. (bar.sync is
// the .aligned form, counted per warp: a warp whose other 31 threads arrived counted as 32 while
// thread 0 still polled, so the barrier opened early and the next one never did — the first
// version hung on the Qwen3-30B expert's shapes.)
template <int THREADS>
struct NamedSync {
  uint32_t id;
  __device__ __forceinline__ void operator()() const {
    asm volatile("barrier.sync %0, %1;" ::"r"(id), "n"(THREADS) : "memory");
  }
};
struct NoWait {
  __device__ __forceinline__ void operator()() const {}
};
// A down tile's wait for h groups i and j: the tile's thread 0 polls their counters, then
// the tile's threads meet at their barrier (gemv_run calls wait() once in every thread), so that
// one thread per tile, not every thread, polls global memory.
template <int THREADS>
struct HiddenReady {
  const uint32_t* ready_i;
  const uint32_t* ready_j;
  uint32_t need;
  NamedSync<THREADS> sync;
  int tid;
  __device__ __forceinline__ void operator()() const {
    if (tid == 0) {
      for (;;) {  // both loads in flight at once, then the test
        const uint32_t a = ld_relaxed_gpu(ready_i), b = ld_relaxed_gpu(ready_j);
        if (a >= need && b >= need) break;
      }
      fence_acq_rel_gpu();  // acquire: the counted tiles' h stores are visible from here on
    }
    sync();
  }
};

template <typename GU, typename DN>
constexpr int ffn_decode_threads() {
  constexpr int a = GU::cols / 8 * GU::lanes, b = DN::cols / 8 * DN::lanes;
  return a > b ? a : b;
}
// CTAs per SM the registers must allow: each part keeps at least the register budget its own
// shape's bounds give it (S::min_blocks CTAs of its threads).
template <typename GU, typename DN>
constexpr int ffn_decode_min_blocks() {
  constexpr int t = ffn_decode_threads<GU, DN>();
  constexpr int a = GU::min_blocks * (GU::cols / 8 * GU::lanes) / t, b = DN::min_blocks * (DN::cols / 8 * DN::lanes) / t;
  constexpr int m = a < b ? a : b;
  return m < 1 ? 1 : m;
}

template <typename T, typename GU, typename DN>
__global__ void __launch_bounds__(ffn_decode_threads<GU, DN>(), ffn_decode_min_blocks<GU, DN>())
    ffn_decode_kernel(GemmArgs up, GemmArgs down, FfnDecodeArgs f) {
  constexpr int kThreads = ffn_decode_threads<GU, DN>();
  constexpr int kGuThreads = GU::cols / 8 * GU::lanes, kDnThreads = DN::cols / 8 * DN::lanes;
  constexpr int kGuSide = kThreads / kGuThreads, kDnSide = kThreads / kDnThreads;
  static_assert(kGuSide * kGuThreads == kThreads && kDnSide * kDnThreads == kThreads, "whole tiles per CTA");
  static_assert(kGuSide <= 8 && kDnSide <= 8, "named barriers 1..8");
  __shared__ union {
    GemvRed<2, GU::cols, GU::lanes> gu[kGuSide];
    GemvRed<1, DN::cols, DN::lanes> dn[kDnSide];
  } red;
  __shared__ uint32_t ticket;
  __shared__ volatile uint32_t counted;  // written, never read: see the gate/up count below
  const uint32_t gu_ctas = (f.gu_tiles + kGuSide - 1) / kGuSide, dn_ctas = (f.dn_tiles + kDnSide - 1) / kDnSide;
  for (;;) {
    if (threadIdx.x == 0) ticket = atomicAdd(f.sync, 1u);  // relaxed: only the value matters
    __syncthreads();
    const uint32_t t = ticket;
    if (t >= gu_ctas + dn_ctas) break;
    if (t < gu_ctas) {
      const int side = threadIdx.x / kGuThreads, tid = threadIdx.x % kGuThreads;
      const uint32_t drawn = t * kGuSide + side;
      if (drawn < f.gu_tiles) {
        const uint32_t tile = (drawn + f.type * f.gu_per_group) % f.gu_tiles;  // group i first
        const GemvTile w = gemv_tile<GU::cols>(up, tile);
        const NamedSync<kGuThreads> sync{uint32_t(1 + side)};
        gemv_run<T, 2, kSiluMul, GU::cols, GU::unroll, GU::lanes, false>(up, w, red.gu[side], tid, NoWait{}, sync);
        sync();  // every thread's h stores happen before thread 0's release below (PTX memory model:
                 // the barrier orders them at CTA scope, the release is cumulative)
        // The returned value, kept, makes thread 0 wait until the add is performed before the CTA goes on.
        if (tid == 0) counted = atom_release_gpu_add(f.sync + (kFfnSyncHead + w.j) * kFfnSyncStride, 1);
      }
    } else {
      const int side = threadIdx.x / kDnThreads, tid = threadIdx.x % kDnThreads;
      const uint32_t tile = (t - gu_ctas) * kDnSide + side;
      if (tile < f.dn_tiles) {
        const GemvTile w = gemv_tile<DN::cols>(down, tile);
        const NamedSync<kDnThreads> sync{uint32_t(1 + side)};
        const HiddenReady<kDnThreads> wait{f.sync + (kFfnSyncHead + w.i) * kFfnSyncStride,
                                           f.sync + (kFfnSyncHead + w.j) * kFfnSyncStride, f.gu_per_group, sync, tid};
        gemv_run<T, 1, kStore, DN::cols, DN::unroll, DN::lanes, true>(down, w, red.dn[side], tid, wait, sync);
      }
    }
    __syncthreads();  // red and ticket are reused by the next tile
  }
  // The last CTA clears the counters. Relaxed (no fence on every CTA's way out): each CTA's adds to
  // them returned their values (tickets, `counted`) and its polls theirs before this add, so when
  // the last one sees gridDim.x - 1 every other operation on them has been performed.
  if (threadIdx.x == 0 && atomicAdd(f.sync + kFfnSyncStride, 1u) == gridDim.x - 1)
    for (uint32_t k = 0; k < kFfnSyncHead + f.groups; ++k) f.sync[k * kFfnSyncStride] = 0;
}

}  // namespace qalg::gpu::detail
