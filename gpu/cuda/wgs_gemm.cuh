#pragma once
// Warp-specialised Hopper forward kernel (issue 7). Nsight Compute on wg_gemm.cuh (one role per
// thread: copy, then compute) showed warps stalled 40 % of the time on the loads of work-list
// metadata and row indices that every step's copy code waits for, at 1.6 TB/s. Here one producer
// warp does all of that and runs ahead; the consumer warpgroups only wait on barriers and issue
// wgmma, so metadata latency hides behind the pipeline.
//   producer (the last warp): walks the CTA's items; W tiles by the tensor-memory accelerator
//     (TMA, 128B swizzle, the N-major layout of wg_gemm.cuh), the gathered x rows by cp.async;
//     both complete on the stage's "full" mbarrier; a small per-stage header says which item the
//     stage belongs to, its coefficient, and whether it starts or ends the item
//   consumers (BM/64 warpgroups): wait "full", wgmma, release the previous stage on its "empty"
//     mbarrier once wgmma.wait_group says its reads are done; store each finished tile
// Resident diagonal block (RES > 0): Nsight Compute on the streaming version put the L2 at 69 % of
// its throughput at 84 µs, 40 % of it re-reading W_jj once per row type. With RES, a CTA takes a
// contiguous range of items (ordered (j, column tile) outer, type inner), and the term marked
// `diagonal` (x_j W_jj, at most RES·64 rows) is loaded once per (j, column tile) into a resident
// slot; its steps then stream only the x rows. One slot (not two) keeps two CTAs per SM: the
// producer looks one item ahead and flags the last stage that reads a slot's contents, after which
// the consumers release it for the next fill.
// A reduction step whose term has fewer than 64 rows left loads 8-row boxes, and boxes at row K
// (out of bounds, which TMA fills with zeros) for the rest: rows of the next input group must not
// enter the sum, not even as 0 · x (W may hold NaN or Inf). (With grouped widths, kGroupedTma
// below, the grouped maps zero-fill past the group instead, or kTrimTail slices the step.)
#include <cuda.h>

#include "mbarrier.cuh"
#include "row_list.cuh"
#include "wg_gemm.cuh"

namespace qalg::gpu::detail {

struct StageHeader {
  uint32_t item, flags;
  float coef;
  uint32_t res;  // kResident: the 64-row block of the resident tile this step multiplies
  uint32_t m_begin, m_count, n_begin, n_count;  // the item's tile, so consumers need no item load
};
// kFence: the consumers fence the generic proxy against the async proxy before this stage's wgmma
// (its x rows came by cp.async, or kFenceEveryStep).
enum StageFlags : uint32_t { kFirst = 1, kLast = 2, kEmpty = 4, kDone = 8, kResident = 16, kResRelease = 32, kFence = 64 };
// Bits kK16Shift … +2 of the flags: how many 16-deep slices of the stage the wgmma reduces over
// (1 … 3; 0: all four). Set on the trimmed last steps of a term (kTrimTail).
constexpr uint32_t kK16Shift = 8;
// kASlices: the stage's x rows came as those slices, each a box of 16 columns under the 32B
// swizzle, BM · 32 bytes apart (kTrimTail with x by TMA), not as one 128B-swizzled 64-column box.
constexpr uint32_t kASlices = 1u << 11;
// Bits kGroupMaskShift … +1 (GP): the boxes of the group-pair tile this step's wgmma reaches (the
// term's pair_mask: 1 the first group's 64 columns, 2 the second's, 3 both).
constexpr uint32_t kGroupMaskShift = 12;

// The barrier counts this thread's arrival once all its earlier cp.async copies have landed.
__device__ __forceinline__ void cp_async_arrive(uint64_t* bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(smem_addr(bar)) : "memory");
}
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, int32_t col, int32_t row, uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
          smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(col), "r"(row), "r"(smem_addr(bar))
      : "memory");
}

// The same box delivered to the same shared-memory offset of every CTA in cta_mask (the cluster's
// CTAs), each of whose barriers at bar's offset receives the bytes' completion.
__device__ __forceinline__ void tma_load_2d_multicast(void* dst, const CUtensorMap* map, int32_t col, int32_t row,
                                                      uint64_t* bar, uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(col), "r"(row), "r"(smem_addr(bar)), "h"(cta_mask)
      : "memory");
}

// One 64-deep forward step of a consumer warpgroup: its 64 A rows (K-major, at sa) times the
// stage's W tile (N-major, at sb), issued and committed (the caller waits). first: start the sum.
// NB = 2: also times the second W tile (at sb1) into acc1, in the same commit group.
// KS < 4: only the first KS 16-deep slices (a trimmed step: the W rows past them were not loaded).
// ASL > 0: A is in 16-deep slices under the 32B swizzle, ASL bytes apart (kASlices), sa at this
// warpgroup's rows of the first slice.
template <typename T, int BN, int NB = 1, int KS = kWgBK / 16, int ASL = 0>
__device__ __forceinline__ void forward_step(float (&acc)[BN / 2], float (&acc1)[NB == 2 ? BN / 2 : 1], uint32_t sa,
                                             uint32_t sb, uint32_t sb1, bool first) {
  wgmma_fence();
  fence_operands(acc);
  if constexpr (NB == 2) fence_operands(acc1);
#pragma unroll
  for (int k16 = 0; k16 < KS; ++k16) {
    const uint64_t da = ASL ? k_major_desc_sw32(sa + k16 * ASL) : k_major_desc(sa + k16 * 32);
    Wgmma<T, BN, 0, 1>::mma(acc, da, mn_major_desc(sb + k16 * 2048), (first && k16 == 0) ? 0 : 1);
    if constexpr (NB == 2)
      Wgmma<T, BN, 0, 1>::mma(acc1, da, mn_major_desc(sb1 + k16 * 2048), (first && k16 == 0) ? 0 : 1);
  }
  wgmma_commit();
  fence_operands(acc);
  if constexpr (NB == 2) fence_operands(acc1);
}
template <typename T, int BN>
__device__ __forceinline__ void forward_step(float (&acc)[BN / 2], uint32_t sa, uint32_t sb, bool first) {
  float none[1];
  forward_step<T, BN, 1>(acc, none, sa, sb, 0, first);
}

// NB = 2 (the gated FFN's gate/up, EPI kSiluMul): every stage holds the W tiles of both matrices.
template <int BM, int BN, int NB = 1>
constexpr size_t wgs_stage_bytes() {
  return size_t(BM + NB * BN) * 128;
}
template <int BM, int BN, int STAGES, int RES, int NB = 1>
constexpr size_t wgs_smem_bytes() {
  return STAGES * (wgs_stage_bytes<BM, BN, NB>() + 2 * sizeof(uint64_t) + sizeof(StageHeader)) +
         size_t(RES) * BN * 128 + 2 * sizeof(uint64_t) + 1024;
}

// TMA of one 64-row step of W (rows row0 .. row0 + valid − 1, columns col .. col + 63) into a
// 64 × 128-byte swizzled block; rows past `valid` come from row K, out of bounds, as zeros.
__device__ __forceinline__ void tma_w_block(unsigned char* dst, const CUtensorMap* m64, const CUtensorMap* m8,
                                            int32_t col, uint32_t row0, uint32_t valid, uint32_t K, uint64_t* bar) {
  if (valid >= 64) return tma_load_2d(dst, m64, col, int32_t(row0), bar);
#pragma unroll 1
  for (uint32_t r8 = 0; r8 < 64; r8 += 8) tma_load_2d(dst + r8 * 128, m8, col, int32_t(r8 < valid ? row0 + r8 : K), bar);
}

// The resident-eligible term of an item (diagonal, 1 .. RES·64 rows) as a key (its first W row and
// the tile's first column), or ~0 when there is none.
template <int RES>
__device__ __forceinline__ uint64_t resident_key(const GemmArgs& g, const WorkItem& w, uint32_t* term_index) {
  if constexpr (RES > 0) {
    for (uint32_t ti = 0; ti < w.term_count; ++ti) {
      const Term t = g.terms[w.term_begin + ti];
      if (t.diagonal && t.len && t.len <= RES * kWgBK) {
        if (term_index) *term_index = ti;
        return uint64_t(t.a) << 32 | w.n_begin;
      }
    }
  }
  return ~uint64_t(0);
}

__device__ __forceinline__ void tma_load_3d(void* dst, const CUtensorMap* map, int32_t c0, int32_t c1, int32_t c2,
                                            uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(
          smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(smem_addr(bar))
      : "memory");
}

__device__ __forceinline__ void tma_load_4d(void* dst, const CUtensorMap* map, int32_t c0, int32_t c1, int32_t c2,
                                            int32_t c3, uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];\n" ::"r"(
          smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(smem_addr(bar))
      : "memory");
}

// Flags of wgs_forward_kernel's `copy` argument.
// (Tenth session: freeing each stage as soon as its own wgmma completed, instead of one step
// later, measured 1.7B 29.4 -> 30.0 us and 8B 59.6-60.2 -> 60.2-60.9 on the H200: dropped.)
// kFenceEveryStep (twelfth session, to compare): fence.proxy.async before every step's wgmma, as
// before; without it only steps whose x rows came by cp.async fence (with both operands by TMA the
// mbarrier's completion already orders the copy engine's writes before wgmma's reads, the pattern
// of CUTLASS's TMA mainloops).
// kPairClusterScope (CL = 2, eighteenth session, to compare): the producers' waits on "empty" acquire
// and the remote arrivals release at cluster scope; else both at the default CTA scope.
// (kPrefetchL2, the eighteenth session's L2 prefetch of the next item's steps, and kWarpArrive, one
// "empty" arrival per consumer warp, were timed in the nineteenth session's first call and removed:
// the prefetch made the square n = 32768 3099 against 2195 µs and Qwen3-8B 84.4 against 61.0; the
// per-warp release moved nothing by more than the spread and the n = 32768 square to 2426.)
// kAblate* (nineteenth session, timing only: the results are WRONG while set): leave one part of
// the kernel out and time the rest, to find what bounds it (METHOD.md, "time variants that leave
// one stage out"): kAblateNoLoad, the producer issues no copies (its barriers complete with zero
// bytes); kAblateNoMma, the consumers issue no wgmma; kAblateNoStore, no epilogue stores.
// kTmaStore (nineteenth session): the epilogue writes the finished tile into the item's last stage
// (its operands are dead once that step's wgmma is done), in the 128B-swizzled layout of 64-column
// boxes, and one thread stores it by TMA (tmapC: Y as tensor_map_typed_rows); the stage is released
// once the copy engine has read it. Why: timed with parts left out (bench suite ablate, call 1 of
// the session), the stores cost more than anything else: the square n = 32768 took 2195 µs whole
// and 1335 without its stores, and the epilogue alone wrote C at 1.5 TB/s (Qwen3-8B: 61.0 against
// 40.5 µs, Y at 1.2 TB/s), while the loads alone streamed at 3.5 TB/s. Used where the host passes
// the flag: rows in closed form, BM = 64 (the pairs too since the twenty-third session: see
// settle_store; BM = 128 since the thirtieth, one 128-row box per 64 columns, unless
// set_ws_tma_store_tall(false)); per item, where the rows past the
// tile's are past its type (TMA clips those) and either every 64-column block of the tile is whole
// or r_group != 0: then tmapC splits Y's columns into (column within group, group) for groups of
// r_group columns (equal output widths), and a box reaching past the tile's group is clipped there
// (tiles never straddle groups, and a tile narrower than BN ends at its group's end).
// kTrimTail (twentieth session; with kGroupedTma, where tmap8 / tmapU8 are the grouped maps with
// 16-row boxes): a term's last step with valid < 64 rows loads ceil(valid / 16) boxes of 16 W rows
// (rows past the group still zero-filled by the copy engine) and its wgmma reduces over only those
// slices (flag bits kK16Shift); where x comes by TMA, its columns come as as many 16-column boxes
// through tmapA16 (32B swizzle, kASlices) instead of one 64-column box. Why: timed with its parts left out (nineteenth session), the
// Qwen3-4B projection's copies alone took 42.6 µs against 39.1 for Qwen3-8B's, which moves 1.7
// times the bytes: both walk 12288 steps of the same boxes, and the 4B's second step of every
// 80-wide term is a 64-row W box of which 48 rows are the copy engine's zero fill.
enum CopyFlags : uint32_t {
  kRowsTma = 1, kGroupedTma = 2, kFenceEveryStep = 4, kPairClusterScope = 8, kTmaStore = 16,
  kAblateNoLoad = 32, kAblateNoMma = 64, kAblateNoStore = 128, kTrimTail = 256, kNarrowW = 512,
  kExitAfterRead = 1024, kPrimeFirst = 2048, kPrimeItem = 4096, kLawFirst = 8192, kLawReversed = 16384
};
// kLawFirst (fifty-third session; set_ws_law_first, on by default since its H100 A/B): where the list is the
// complete-graph law's in closed form (WorkList::law, checked item by item on the host:
// work_list.hpp law_list_order; kLawReversed: its items last first), the producer computes its first
// item and that item's terms from its CTA index (law_item, law_term_sorted in g.law) instead of loading
// them, so that with kPrimeFirst its first copies follow griddepcontrol.wait at once. Compiled (LF)
// into instantiations of their own of the 128-row tiles of the plain forward only (ws128x64: the
// Qwen3-30B expert, one item per CTA; ws128x128: DeepSeek-V3), so that no other kernel's producer
// carries its registers (the twenty-second session's law items for every item cost the other tiles so). Why: the
// thirty-seventh session's stamps put the first item's load at 0.3 µs (30B, alone) to 0.45 µs
// (flushed) and 0.8 µs (DeepSeek-V3) after the wait, on the path of every CTA's first copies; prime
// (the first term's copies straight after that load) gained 2-3 % on the 30B expert.
// (The next items still come from the list, loaded while the first one's copies run.)
// kPrimeFirst (thirty-seventh session; set_ws_prime_first): the producer issues its first item's first
// term's whole 64-row steps (all but the item's last step) straight from the item and its terms,
// before the general per-item work (the other terms' steps counted, the next items' loads, the step
// loop's flags), where x comes by TMA (plain, ungrouped widths; no resident slot, pairs, packed terms
// or gated form); the step loop then resumes that term after them. Why: the kernel's %globaltimer stamps
// (bench suite stamps; results/gpu/history/session37/call4, H200) put the first copies 1.0-1.5 µs
// after the first item had arrived (alone: Qwen3-30B expert 0.74 -> 1.76 µs from the CTA's start,
// DeepSeek-V3 1.31 -> 2.50), with no memory round trip on that path: one warp walking ~500
// instructions of SASS (0x850 -> 0x1900, then 0x6100 -> 0x7000 of ws128x64) between the item's
// arrival and its first copy, while the first stage is what every consumer waits for.
// (kPrefetchMaps, thirty-seventh session: the producer's lane 0 prefetched every tensor map first
// thing, before its first item's load. Timed on an H100 (results/gpu/history/session37/call3, the
// residue suite, two rounds): DeepSeek-V3 ws128x128-types-desc after dense 30.6 µs against 29.8-30.2,
// flushed 36.1 against 35.8-35.9 (one round: the other's calibration picked ws128x64); the Qwen3-30B
// expert 9.5 / 9.5 against 9.3-9.6, flushed 13.2-13.3 both ways; and the kernel's stamps put the
// first stage's arrival no earlier. Removed, as the twentieth session's prefetch of the same maps,
// timed warm only.)
// kExitAfterRead (thirty-third session; set_ws_exit_after_read, off by default, NOT yet run on a
// GPU): with the TMA stores, thread 0 waits at the end only until its last stores have read their
// tile from shared memory (cp.async.bulk.wait_group.read, as CUTLASS's TMA-store epilogues and this
// project's narrow kernel end), not until they are written, so the CTA ends a write round trip
// earlier; the grid's completion still waits for every write, and a grid launched after it by PDL
// sees them (griddepcontrol.wait). Why: Nsight Compute's PM sampling of DeepSeek-V3's projection
// (H100, this session's call 4) showed ~3 µs at the end of each run with no DRAM reads.
// kNarrowW (twentieth session; on by default since the twenty-first session's first call: Qwen3-4B
// 44.8 -> 43.7 µs, the Qwen3-30B expert's wider tiles 12.9 -> 12.1): an item narrower than BN (a
// group's last column tile, e.g. 48 of 128 at Qwen3-4B's r = 304, 32 at Qwen3-32B's r = 800) loads
// only the ceil(n_count / 64) W boxes its columns reach.
// The wgmma still spans BN columns: those of the boxes not loaded read stale shared memory, which
// reaches only accumulator columns past n_count (a product's column n depends only on B's column
// n), and no epilogue stores those. Why: the copies bound these kernels (Qwen3-4B: copies alone
// 35.0 of 44.7 µs after kTrimTail), and such a tile otherwise copies a whole 128-column W box per
// step of which 80 columns (4B) or 96 (32B) are the next group's.
// (kLeanArrivals, twenty-first session, measured in the twenty-second and removed in the
// twenty-third: a step whose copies were all TMA completed its `full` barrier with one arrival of
// count 32 from lane 0, and each consumer warp freed a stage with one counted arrival after
// __syncwarp, instead of one arrival per thread. Whole kernels -1 to +3 %, Qwen3-32B ws64x128 7 %
// faster, the skeleton (copies, wgmma, stores left out) -2 to +12 %; its runtime branch stayed in
// the consumers' release even when off.)
// (kEarlyRelease, twenty-second session, measured and removed: a consumer warp whose next stage had
// not landed waited for its last wgmma and freed the stage that wgmma read before waiting, instead
// of holding it until the next stage's wgmma was issued. Why tried: Nsight Compute on the Qwen3-32B
// projection put 37 % of all warp samples on the consumers' wait for `full`. Qwen3-32B wsl64x128
// 149.8 -> 142.7 and 150.6 -> 147.9 µs, the 2-stage wsl64x192 7-15 % faster on four of seven shapes,
// the other tiles mostly 0-8 % slower and the gated FFNs 1-7 %; and its branch, even when off, raised ptxas's spills of
// wsl64x192 from 14 to 62 bytes and of the 2-stage gate/up tiles from 0-22 to 54. Kept out.
// Tried again in the thirty-third session as a compile-time variant of the BF16 streaming tiles, so
// that no other kernel changed (commit 9932ab2, after Nsight Compute on DeepSeek-V3 put 24-33 % of
// all samples on the consumers' `full` wait): correct on an H100 (tests, memcheck, racecheck) and
// slower on every one of 24 tile x shape pairs, 0.995-1.148 of the time without it (Qwen3-32B
// wsl64x128 164.9 -> 174.3 µs), every gated FFN 1-8 % slower. Removed again: the consumers' wgmma
// overlap across steps is worth more than an earlier hand-back of the stage.)
// (kStoreEvictFirst, twenty-sixth session, measured and removed: the TMA stores of Y with the L2
// policy evict-first (cache_hint 0x12F0000000000000), so that X and W, whose blocks several items
// read, stay in the L2 while Y, written once, leaves first. Three rounds against the default in one
// call (results/gpu/history/session26/call3): square n = 32768 0.982 warm / 0.980 flushed, n = 16384
// 1.008 / 0.996, the M = 2048 projections 0.987-1.014, Qwen3-8B's tiles 1.7-3.8 % slower, all within
// the spread of the same call's rows it cannot touch (Qwen3-32B at M = 8192, on the narrow kernel,
// 0.954). The diff is store_hint.patch there.)
// (A prefetch.tensormap of every map at the start, as CUTLASS's TMA kernels do, was timed in the
// twentieth session's fifth call: no row gained beyond the spread, the Qwen3-30B expert 9.9 against
// 10.0 µs; removed.)

// Diagnostics (thirty-seventh session; set_ws_stamps, the bench's stamps suite): where a CTA's start
// goes. Nsight Compute's PM sampling of DeepSeek-V3 flushed put ~1.5 µs more before the first DRAM
// reads in qalg's kernel than in the Triton peer's; these %globaltimer stamps say which part of the
// start it is (the item's load, the first copies, the first stage's arrival). Compiled only with
// QALG_WS_STAMPS (the measured build has none of this code); slots per CTA:
//   0 entry (thread 0)            1 producer after griddepcontrol.wait   2 producer, first item loaded
//   3 producer, first stage issued 4 consumer, first stage landed         5 consumer, kDone seen
//   6 consumer, last stores done   7 producer, last stage issued          8 producer, first item's last step
//   found (its terms in hand)      9 producer, first stage free + header  10 thread 0, barriers made
//   11 producer warp's start (after __syncthreads)                        12 consumer start (thread 0)
//   (13-15 unused)
constexpr int kWsStampSlots = 16;
#ifdef QALG_WS_STAMPS
// dep: a value the stamp must wait for (the asm reads it, so it issues only once that load is back)
__device__ __forceinline__ void ws_stamp(const GemmArgs& g, int slot, uint32_t dep = 0) {
  if (g.stamps) {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t) : "r"(dep) : "memory");
    g.stamps[blockIdx.x * kWsStampSlots + slot] = t;
  }
}
#define QALG_WS_STAMP(...) ws_stamp(g, __VA_ARGS__)
#else
#define QALG_WS_STAMP(...) ((void)0)
#endif

// TMA store of one box from shared memory (its bulk group committed by the caller).
__device__ __forceinline__ void tma_store_3d(const CUtensorMap* map, const void* src, int32_t c0, int32_t c1, int32_t c2) {
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];\n" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(smem_addr(src)), "r"(c0), "r"(c1), "r"(c2)
               : "memory");
}
__device__ __forceinline__ void tma_store_4d(const CUtensorMap* map, const void* src, int32_t c0, int32_t c1, int32_t c2,
                                             int32_t c3) {
  asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5}], [%1];\n" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(smem_addr(src)), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
               : "memory");
}
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
// Shared memory read by this thread's committed bulk stores may be written again.
__device__ __forceinline__ void bulk_wait_read() { asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory"); }
// This thread's committed bulk stores are complete (written to global memory).
__device__ __forceinline__ void bulk_wait_all() { asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory"); }
// The consumer warpgroups alone (THREADS = 2 · BM; the producer warp runs on): named barrier 1.
template <int THREADS>
__device__ __forceinline__ void consumers_sync() { asm volatile("bar.sync 1, %0;\n" ::"n"(THREADS) : "memory"); }

// The m64nBN fragment values (value(i), or zeros) written into a 128B-swizzled tile of BN / 64
// boxes of BM rows × 64 columns at `out` (CHUNK = BM · 128 bytes apart, as the copy engine lays out
// one BM-row box): this thread's rows m0 = 64·wg + 16·warp + lane/4 and m0 + 8, columns 8c + 2k,
// 8c + 2k + 1. The eight rows of a warp's store differ in (row mod 8), so the swizzle spreads their
// chunks over all 32 banks.
template <typename T, int BN, int CHUNK = kWgChunk, typename Value>
__device__ __forceinline__ void stage_tile(Value value, unsigned char* out, uint32_t m0, bool zero) {
  const uint32_t k = threadIdx.x % 4;
#pragma unroll
  for (int c = 0; c < BN / 8; ++c)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const uint32_t r = m0 + 8 * h;
      const uint32_t v = zero ? 0u : pack2<T>(value(c * 4 + h * 2), value(c * 4 + h * 2 + 1));
      *reinterpret_cast<uint32_t*>(out + (c / 8) * CHUNK + swz128(r, c % 8) + k * 4) = v;
    }
}

// Forward only (A = gathered rows of X, K-major; B = W, N-major). tmap64 / tmap8: W as a K × N
// tensor, boxes of 64 columns × 64 rows / × 8 rows, 128B swizzle.
// kRowsTma (batches whose row list has a closed form, g.row_formula): tmapA is X as
// tensor_map_typed_rows, and a full 64-deep step's x rows are ONE copy-engine box instead of BM · 8
// cp.async by the producer warp (the peer's loads need no thread either); steps a term leaves
// partly empty keep the cp.async path, which zero-fills past the term (columns of the next input
// group must not enter the sum). Row offsets come from the formula too, not from loads.
// kGroupedTma (every input group s wide, s a multiple of 8; every term is one whole group, as in
// the forward lists): tmap64 is W as tensor_map_grouped_rows and tmapA (with kRowsTma) X as
// tensor_map_grouped_typed_rows, so EVERY step, partly empty ones included, is one box per operand
// block: the copy engine zero-fills the rows / columns past the group. (Seventh session; run on
// the GPU since, the Qwen3-4B and -32B rows' path.)
// MINB: CTAs per SM the registers must allow (the "wsl" tiles, 3-4 per SM).
// EPI = kSiluMul (the gated FFN's gate and up in one pass over the x tiles, NB = 2): tmapU64 /
// tmapU8 are the up matrix (g.B1) as tmap64 / tmap8 are the gate matrix (g.B0); every step
// multiplies the stage's x rows by both W tiles, and the epilogue stores SiLU(gate)·up. Why: the
// mma.sync gate/up kernel (tc_gemm.cuh) took about three quarters of the Qwen3-8B FFN at M = 2048
// (229 µs against 60 for one warp-specialised projection of the same shape). With kGroupedTma the
// U maps are grouped too (eleventh session: before, the gated kernel never took the grouped maps,
// so the Qwen3-4B and DeepSeek-V3 gate/up, s = 80 and 224, gathered the x rows of every partly
// empty step by cp.async and their W by 8-row boxes). Else the U maps are unused (RES = 0).
// CL = 2 (the paired tiles "wsp", launched in clusters of two CTAs). Why: by the seventeenth
// session's traffic model the square product at n = 32768 reads 12.9 GB from L2 per call (5.9 TB/s
// at 2176 us; the L2 read ceiling measured 7.7 TB/s), half of it W tiles that the two 64-row halves
// of one 128-row type each read. Here the two CTAs of a cluster take items 2p and 2p + 1, which the
// host has checked are such halves (same column tile, same terms: WorkList::pairs), and each copies
// its 32-row half of every 64-column W box (tmap8 holds 32-row boxes here) into both CTAs' shared
// memory by TMA multicast: W leaves L2 once per pair. Each CTA keeps its own x rows, stages and
// consumers; a stage is refilled only once both CTAs' consumers have released it, so every consumer
// warp also arrives (lane 0) on the other CTA's "empty" barrier. Every step is a whole 64-row box
// (the host checks that every term's length is a multiple of 64): no 8-row boxes.
// PACK (twenty-fourth session; launched for grouped trimmed plans with x by TMA only, as
// set_ws_pack_terms says (by default where s mod 64 = 32): its unpacked path is slower than the
// plain kernel's by its second loop): a term's partly filled last step is packed with
// the next term's first rows (same item, same coefficient) as 16-row slices, so an item of two
// 160-row terms (Qwen3-32B, s = 160) takes 5 steps, not 6 (64, 64, 32 + 32, 64, 64), and two 80-row
// terms (Qwen3-4B) 3, not 4; whole steps after a packed one start at any row (the grouped maps).
// Why: call 2 of the session found the 32B projection bound by the depth of copies in flight per
// SM (9 stages of 24 KB), not by steps or tensor-core columns: 64x160 tiles with 11 % fewer
// columns and 29 % fewer steps ran slower at 2 stages × 3 CTAs; a half-empty step holds a stage.
// GP (thirty-first session; the "wsg" tiles, BN = 128): items of a group-pair list (work_list.hpp
// pair_group_items): two output groups of at most 64 columns, each in a 64-column box of its own.
// A step's W boxes are those of its term's pair_mask, through tmapU64 = W's column groups
// (tensor_map_column_groups: a box at column 0 of group j, clipped at r), and its wgmma spans the
// whole tile (mask 3: the row term, x_i read once for both groups) or one box's 64 columns of the
// accumulator (mask 1 or 2). The accumulator is zeroed at an item's first step (no step need
// reach both boxes); the tile goes out by TMA, box b to its group (r_group, the C map of groups),
// so the host launches GP only with the TMA stores (kTmaStore with r_group) and x by TMA.
// RP (thirty-second session; the "wsm" tiles, BM = BN = 128): items of a row-pair list (work_list.hpp
// pair_row_items): two row ranges of at most 64 rows with the same columns, each in a 64-row half
// of its own, computed by one consumer warpgroup each. A step's x rows are those of its term's
// pair_mask (half 0 at rows 0-63 of the stage's A block, half 1 at 64-127; tmapA has 64-row boxes),
// its W boxes those of the item's columns; a shared step (mask 3: for the complete-graph law the
// diagonal term x_j W_jj of two types) feeds both warpgroups from one W box, an own step one
// warpgroup (the other passes the stage on). Grouped widths (kGroupedTma) go through the grouped
// maps, a term's last partial step as 16-row slices under kTrimTail, as in the plain kernel. The
// accumulators are zeroed at an item's first step;
// each half goes out by its own TMA stores (tmapC with 64-row boxes), so the host launches RP only
// with the TMA stores of groups (r_group) and x by TMA.
// LF: compiled with kLawFirst (see there): its own instantiation, so that the kernels launched without
// it keep their registers (in ws128x64, capped at 96 by two CTAs per SM, the path spilled 8 bytes).
template <typename T, int BM, int BN, int STAGES, int RES, int MINB = 1, int EPI = kStore, int CL = 1, bool PACK = false,
          bool GP = false, bool RP = false, bool LF = false>
__global__ void __launch_bounds__(BM * 2 + 32, MINB)
    wgs_forward_kernel(GemmArgs g, uint32_t count, uint32_t K, const __grid_constant__ CUtensorMap tmap64,
                       const __grid_constant__ CUtensorMap tmap8, const __grid_constant__ CUtensorMap tmapA,
                       const __grid_constant__ CUtensorMap tmapU64, const __grid_constant__ CUtensorMap tmapU8,
                       const __grid_constant__ CUtensorMap tmapC, const __grid_constant__ CUtensorMap tmapA16,
                       uint32_t copy, uint32_t s_group, uint32_t r_group) {
  constexpr int NB = EPI == kSiluMul ? 2 : 1;
  static_assert(NB == 1 || RES == 0, "the gated form streams both W tiles (no resident slot)");
  static_assert(CL == 1 || (CL == 2 && NB == 1 && RES == 0), "pairs: the plain forward, W streamed");
  static_assert(!PACK || (RES == 0 && CL == 1), "packed terms: W streamed, no clusters");
  static_assert(!GP || (RES == 0 && CL == 1 && NB == 1 && !PACK && BN == 128), "group pairs: two 64-column boxes");
  static_assert(!RP || (BM == 128 && RES == 0 && CL == 1 && NB == 1 && !PACK && !GP), "row pairs: two 64-row halves");
  const bool rows_tma = copy & kRowsTma, grouped = copy & kGroupedTma, fence_every_step = copy & kFenceEveryStep;
  const bool trim_tail = grouped && (copy & kTrimTail);
  const bool narrow_w = CL == 1 && (copy & kNarrowW);  // (pairs multicast whole boxes)
  const bool no_load = copy & kAblateNoLoad;
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __trap();
#endif
  constexpr int R = BN / 2;
  constexpr uint32_t kStage = wgs_stage_bytes<BM, BN, NB>(), kABytes = BM * 128, kBBytes = BN * 128;
  extern __shared__ unsigned char wgs_smem_raw[];
  unsigned char* smem = wgs_smem_raw + ((1024u - (smem_addr(wgs_smem_raw) & 1023u)) & 1023u);
  unsigned char* resident = smem + STAGES * kStage;  // RES blocks of kBBytes
  uint64_t* full = reinterpret_cast<uint64_t*>(resident + RES * kBBytes);
  uint64_t* empty = full + STAGES;
  uint64_t* res_full = empty + STAGES;
  uint64_t* res_empty = res_full + 1;
  StageHeader* header = reinterpret_cast<StageHeader*>(res_empty + 1);
  constexpr int kConsumers = BM * 2;
  if (threadIdx.x == 0) QALG_WS_STAMP(0);
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(&full[s], 1 + 32);  // the producer's expect_tx arrival + 32 cp.async arrivals
      // CL = 2: and one arrival per consumer warp of the other CTA
      mbar_init(&empty[s], kConsumers + (CL > 1 ? kConsumers / 32 : 0));
    }
    mbar_init(res_full, 1), mbar_init(res_empty, kConsumers);
    mbar_init_fence();
    QALG_WS_STAMP(10);
  }
  __syncthreads();
  if constexpr (CL > 1) cluster_sync();  // the other CTA's barriers exist before any multicast or arrival

  // The role through a shuffle (kConsumers is a multiple of 32: every lane holds lane 0's value), so
  // ptxas can tell the branch is warp-uniform, as CUTLASS's canonical_warp_group_idx does: with a
  // plain threadIdx test it serialised every wgmma of the consumers (ptxas C7518, "WG.DP in
  // divergent path"; seen in the fifth session's build log, in every wgs and wst instantiation).
  if (__shfl_sync(0xffffffffu, threadIdx.x >= kConsumers, 0)) {  // ---- producer warp ----
    const int lane = threadIdx.x % 32;
    if (lane == 0) QALG_WS_STAMP(11);
    const T* A = static_cast<const T*>(g.A);
    uint32_t stage = 0, phase = 0, res_par = 0;
    uint64_t key = ~uint64_t(0);  // what the resident slot holds
    // This lane's rows: chunk (lane % 8) of rows lane / 8 + 4 i. (As 32-bit row indices, c155ff1,
    // ptxas spilled less, but together with the law-grid items the kernels ran slower in the
    // twenty-third session's A/Bs against this form; reverted with them, not timed alone.)
    int64_t aoff[BM / 4];
    // kTmaRowsOnly (thirty-fourth session, ws128x128 two per SM): x's rows only by TMA, the host
    // launching it only where rows_tma and every step goes by TMA (grouped widths, or a common width
    // that is a multiple of 64: whole steps). At two CTAs of 9
    // warps per SM ptxas caps registers at 96 (measured with probe kernels; perhaps 5 warps on one of its four register files), and
    // the cp.async path's 32 row offsets spilled 198 bytes.
    constexpr bool kTmaRowsOnly = BM == 128 && BN == 128 && MINB == 2 && !RP && !GP && !PACK && NB == 1;
#ifdef QALG_WS_STAMPS
    bool stamped_stage = false, stamped_steps = false;
#endif
    auto next_stage = [&](uint32_t item, const WorkItem& w, uint32_t flags, float coef, uint32_t res) -> uint32_t {
      if (CL > 1 && (copy & kPairClusterScope)) mbar_wait_cluster(&empty[stage], phase ^ 1);
      else mbar_wait(&empty[stage], phase ^ 1);
      if (lane == 0) header[stage] = StageHeader{item, flags, coef, res, w.m_begin, w.m_count, w.n_begin, w.n_count};
#ifdef QALG_WS_STAMPS
      if (!stamped_stage && lane == 0) QALG_WS_STAMP(9);
      stamped_stage = true;
#endif
      return stage;
    };
#ifdef QALG_WS_STAMPS
    bool stamped_first = false;
#endif
    auto finish_stage = [&]() {
      cp_async_arrive(&full[stage]);
#ifdef QALG_WS_STAMPS
      if (!stamped_first && lane == 0) QALG_WS_STAMP(3);
      stamped_first = true;
#endif
      if (++stage == STAGES) stage = 0, phase ^= 1;
    };
    // RES: a contiguous range of items per CTA (so consecutive items share W_jj); else round robin.
    const uint32_t per = RES ? (count + gridDim.x - 1) / gridDim.x : 1;
    const uint32_t first_item = RES ? blockIdx.x * per : blockIdx.x, stride = RES ? 1 : gridDim.x;
    const uint32_t end_item = RES ? min(count, first_item + per) : count;
    // Work-list metadata two items ahead. Why: Nsight Compute on the Qwen3-30B expert's forward
    // (seventh session; 1-2 items of 2 steps per CTA) put half of all stall cycles on loads of
    // global data (L1TEX scoreboard) at 6-25 % of every throughput: the producer walked item → its
    // terms → their lengths as a chain of dependent L2 round trips before each item's first copy.
    // Now item n + 2 is loaded while item n is issued, and lane l holds term l of items n and n + 1
    // (read by shuffles; items with more than 32 terms load theirs).
    auto lane_term = [&](const WorkItem& x) { return lane < x.term_count ? g.terms[x.term_begin + lane] : Term{}; };
    // x (H, the gate/up's output) may come from the grid this one depends on: every copy after the
    // wait. The consumers need no wait: they store Y only from what these copies brought.
    // PACK: an item's steps with the terms packed (see PACK above). Every lane walks the same cursor
    // (term, row); a step of 16-row slices is walked twice, first to count its slices and find
    // whether it is the item's last, then to issue its copies.
    auto pack_item = [&](uint32_t item, const WorkItem& w, auto& term, auto& group) {
      const uint32_t nbw = narrow_w ? min(uint32_t(BN / 64), (w.n_count + 63) / 64) : uint32_t(BN / 64);
      const uint32_t tq = g.row_formula.by_c.div(w.m_begin);
      const int32_t ri = int32_t(w.m_begin - tq * g.row_formula.c), ty = int32_t(tq);
      auto skip_empty = [&](uint32_t& ti) {
        while (ti < w.term_count && term(ti).len == 0) ++ti;
      };
      // Slices from (ti, kk) while the stage has room and the coefficient stays coef; with sA, their
      // copies too. Returns the number of slices (1 … 4).
      auto slices = [&](uint32_t& ti, uint32_t& kk, float coef, unsigned char* sA, uint64_t* bar) -> uint32_t {
        uint32_t n = 0;
#pragma unroll 1
        while (n < 4 && ti < w.term_count) {
          const Term u = term(ti);
          if (n > 0 && u.coef != coef) break;
#pragma unroll 1
          for (; n < 4 && kk < u.len; ++n, kk += 16) {
            if (sA) {  // (every lane takes this loop alike: the shuffle is converged)
              const int32_t a = group(ti, u);
              if (lane == 0) tma_load_4d(sA + n * BM * 32, &tmapA16, int32_t(kk), a, ri, ty, bar);
              if (lane < nbw)
                tma_load_3d(sA + kABytes + lane * kWgChunk + n * 16 * 128, &tmap8, int32_t(w.n_begin + lane * 64),
                            int32_t(kk), a, bar);
              if (NB == 2 && lane >= 16 && lane < 16 + nbw)  // the up matrix's slice after the gate's
                tma_load_3d(sA + kABytes + kBBytes + (lane - 16) * kWgChunk + n * 16 * 128, &tmapU8,
                            int32_t(w.n_begin + (lane - 16) * 64), int32_t(kk), a, bar);
            }
          }
          if (kk < u.len) break;
          ++ti, kk = 0, skip_empty(ti);
        }
        return n;
      };
      uint32_t ti = 0, kk = 0;
      skip_empty(ti);
      bool first = true;
#pragma unroll 1
      while (ti < w.term_count) {
        const Term t = term(ti);
        const uint32_t flags0 = (first ? kFirst : 0) | (fence_every_step ? kFence : 0);
        first = false;
        if (t.len - kk >= kWgBK) {  // a whole step from row kk (any row: the grouped maps)
          const int32_t a = group(ti, t), k0 = int32_t(kk);
          kk += kWgBK;
          if (kk == t.len) ++ti, kk = 0, skip_empty(ti);
          const uint32_t s = next_stage(item, w, flags0 | (ti < w.term_count ? 0 : kLast), t.coef, 0);
          unsigned char* sA = smem + s * kStage;
          if (lane == 0) {
            mbar_arrive_expect_tx(&full[s], no_load ? 0 : NB * nbw * 64 * kWgBK * 2 + kABytes);
            if (!no_load) tma_load_4d(sA, &tmapA, k0, a, ri, ty, &full[s]);
          }
          if (!no_load && lane < nbw)
            tma_load_3d(sA + kABytes + lane * kWgChunk, &tmap64, int32_t(w.n_begin + lane * 64), k0, a, &full[s]);
          if (NB == 2 && !no_load && lane >= 16 && lane < 16 + nbw)
            tma_load_3d(sA + kABytes + kBBytes + (lane - 16) * kWgChunk, &tmapU64, int32_t(w.n_begin + (lane - 16) * 64),
                        k0, a, &full[s]);
        } else {  // 16-row slices: the rest of this term, then the next terms' first rows
          uint32_t ti1 = ti, kk1 = kk;
          const uint32_t n = slices(ti1, kk1, t.coef, nullptr, nullptr);
          const uint32_t flags = flags0 | (ti1 < w.term_count ? 0 : kLast) | kASlices | (n & 3u) << kK16Shift;
          const uint32_t s = next_stage(item, w, flags, t.coef, 0);
          unsigned char* sA = smem + s * kStage;
          if (lane == 0) mbar_arrive_expect_tx(&full[s], no_load ? 0 : n * (BM * 32 + NB * nbw * 16 * 64 * 2));
          if (no_load) ti = ti1, kk = kk1;
          else slices(ti, kk, t.coef, sA, &full[s]);
        }
        finish_stage();
      }
    };
    grid_dependency_wait();
    if (lane == 0) QALG_WS_STAMP(1);
    // term_stride (set_ws_term_stride; work_list.hpp terms_in_item_order): every item has a slot of
    // that many terms (padded with Term{}), item i's at i · term_stride, so the first item's terms
    // (lanes past its term_count read Term{}, as lane_term gives them) are read beside the item, not
    // after it: one round trip before the CTA's first copy instead of two. Their load comes first in
    // the code (so that ptxas issues it before it waits for the item's) and through a pointer (as a
    // branch on term_stride, ptxas spilled 36-92 bytes in three of the probe's kernels).
    // kLawFirst (see above): the first item and its terms in closed form (term_begin then holds the
    // law's (i, j), read by nothing: the step loop reads an item's terms from tw while it has <= 32).
    constexpr bool kLawFirstTile = LF && BM == 128 && CL == 1 && NB == 1 && RES == 0 && !GP && !RP && !PACK;
    const bool law_first = kLawFirstTile && (copy & kLawFirst) && first_item < end_item;
    const Term* t0 = g.term_stride != 0 && !law_first ? g.terms + uint64_t(first_item) * g.term_stride : nullptr;
    const Term tw0 = t0 && first_item < end_item && lane < g.term_stride ? t0[lane] : Term{};
    WorkItem w = law_first ? law_item(g.law, copy & kLawReversed ? count - 1 - first_item : first_item, BM, BN)
                 : first_item < end_item ? g.items[first_item]
                                         : WorkItem{};
    // (the closed form's terms before the next item's load, so that their temporaries are dead by
    // then; the list's after it, so that both items' loads are in flight before the terms' waits)
    Term tw = law_first && lane < w.term_count ? law_term_sorted(g.law, w, lane) : Term{};
    WorkItem wn = first_item + stride < end_item ? g.items[first_item + stride] : WorkItem{};
    if (!law_first) tw = t0 ? tw0 : lane_term(w);
    if (lane == 0) QALG_WS_STAMP(2, w.m_begin + w.term_count);
    // kPrimeFirst (see above): the first item's first term's whole steps (all but the item's last
    // step), issued here; with kPrimeItem every term's whole steps in order, the item's last step
    // among them (its kLast from the warp's vote), up to the first partly empty step. (prime_ti,
    // prime_kk) tell the step loop where that item resumes; primed, whether a step went out.
    uint32_t prime_ti = 0, prime_kk = 0;
    bool primed = false;
    // (not PACK: its kernels run only on grouped widths, where nothing is primed; with the code they spilled)
    if constexpr (CL == 1 && NB == 1 && RES == 0 && !GP && !RP && !PACK) {
      if ((copy & kPrimeFirst) && rows_tma && !grouped && !no_load && first_item < end_item && w.term_count != 0 &&
          w.term_count <= 32) {
        const bool whole_item = copy & kPrimeItem;
        const uint32_t nonzero = __ballot_sync(0xffffffffu, tw.len != 0);
        const uint32_t last_ti = nonzero ? highest_lane(nonzero) : 0u;
        const uint32_t n_terms = whole_item ? w.term_count : 1u;
        const uint32_t nbw = narrow_w ? min(uint32_t(BN / 64), (w.n_count + 63) / 64) : uint32_t(BN / 64);
        const uint32_t tq = g.row_formula.by_c.div(w.m_begin);
        const int32_t ri = int32_t(w.m_begin - tq * g.row_formula.c), ty = int32_t(tq);
        // (every lane walks the same cursor: the shuffles and the stage waits stay converged)
#pragma unroll 1
        while (prime_ti < n_terms) {
          const uint32_t len = __shfl_sync(0xffffffffu, tw.len, prime_ti);
          if (prime_kk + kWgBK > len) {
            if (prime_kk < len) break;  // a partly empty step: the step loop's (zero fill, trimmed tail)
            ++prime_ti, prime_kk = 0;
            continue;
          }
          const bool last = prime_ti == last_ti && prime_kk + kWgBK == len;
          if (last && !whole_item) break;  // kPrimeFirst alone: the last step stays the step loop's
          const uint32_t a = __shfl_sync(0xffffffffu, tw.a, prime_ti);
          const float coef = __shfl_sync(0xffffffffu, tw.coef, prime_ti);
          const uint32_t s = next_stage(first_item, w,
                                        (primed ? 0 : kFirst) | (last ? kLast : 0) | (fence_every_step ? kFence : 0),
                                        coef, prime_kk / kWgBK);
          primed = true;
          unsigned char* sA = smem + s * kStage;
          if (lane == 0) {
            mbar_arrive_expect_tx(&full[s], nbw * 64 * kWgBK * 2 + kABytes);
            tma_load_3d(sA, &tmapA, int32_t(a + prime_kk), ri, ty, &full[s]);
          }
          if (lane < nbw) tma_load_2d(sA + kABytes + lane * kWgChunk, &tmap64, int32_t(w.n_begin + lane * 64),
                                      int32_t(a + prime_kk), &full[s]);
          finish_stage();
          prime_kk += kWgBK;
        }
      }
    }
    for (uint32_t item = first_item; item < end_item; item += stride) {
      const bool has_next = item + stride < end_item;
      const WorkItem wnn = item + 2 * stride < end_item ? g.items[item + 2 * stride] : WorkItem{};
      const Term tn = lane_term(wn);  // wn arrived during the previous item
      auto term = [&](uint32_t ti) -> Term {
        if (w.term_count > 32) return g.terms[w.term_begin + ti];
        return Term{__shfl_sync(0xffffffffu, tw.a, ti), __shfl_sync(0xffffffffu, tw.len, ti),
                    __shfl_sync(0xffffffffu, tw.coef, ti), __shfl_sync(0xffffffffu, tw.diagonal, ti)};
      };
      // The grouped maps' group index a / s of each term, once per item, every lane its own term.
      // Why: s is a kernel argument, and a 32-bit division by it is ~20 dependent instructions
      // (I2F, MUFU.RCP, F2I, IMADs); written at each copy, the step loop ran two of them before the
      // copies of every step (SASS of 05591e7's wsl64x128: four such sequences on the step path).
      const uint32_t gw = grouped ? tw.a / s_group : 0u;
      auto group = [&](uint32_t ti, const Term& t) -> int32_t {
        if (w.term_count > 32) return int32_t(t.a / s_group);
        return int32_t(__shfl_sync(0xffffffffu, gw, ti));
      };
      uint32_t rterm = ~0u;
      const uint64_t k = resident_key<RES>(g, w, &rterm);
      const uint64_t k_next = has_next ? resident_key<RES>(g, wn, nullptr) : ~uint64_t(0);
      if (k != ~uint64_t(0) && k != key) {  // fill the slot once the consumers released it
        const Term t = term(rterm);
        const int32_t rg = grouped ? group(rterm, t) : 0;  // (every lane: a shuffle)
        mbar_wait(res_empty, res_par ^ 1);
        res_par ^= 1;
        if (lane == 0) mbar_arrive_expect_tx(res_full, RES * BN * kWgBK * 2);
        if (lane < BN / 64)
#pragma unroll
          for (int r = 0; r < RES; ++r) {
            if (grouped)  // rows r·64 … of the group; past s (or past the term) the copy engine writes zeros
              tma_load_3d(resident + r * kBBytes + lane * kWgChunk, &tmap64, int32_t(w.n_begin + lane * 64),
                          int32_t(r * kWgBK), rg, res_full);
            else
              tma_w_block(resident + r * kBBytes + lane * kWgChunk, &tmap64, &tmap8, int32_t(w.n_begin + lane * 64),
                          t.a + r * kWgBK, t.len > r * kWgBK ? t.len - r * kWgBK : 0, K, res_full);
          }
        key = k;
      }
      // The item's last step (term last_ti, row last_kk), whether it has any, and whether some step
      // is partly empty (x rows by cp.async unless grouped): with at most 32 terms (one per lane in
      // tw) from the warp's votes (work_list.hpp highest_lane), else term by term.
      uint32_t last_ti = 0, last_kk = 0;
      bool partial = false, empty = true;
      if (w.term_count <= 32) {
        const uint32_t nonzero = __ballot_sync(0xffffffffu, tw.len != 0);
        partial = __ballot_sync(0xffffffffu, tw.len % kWgBK != 0) != 0;
        empty = nonzero == 0;
        last_ti = empty ? 0u : highest_lane(nonzero);
        last_kk = last_step_row(__shfl_sync(0xffffffffu, tw.len, last_ti), kWgBK);
      } else {
#pragma unroll 1
        for (uint32_t ti = 0; ti < w.term_count; ++ti) {
          const uint32_t len = term(ti).len;
          if (len) empty = false, last_ti = ti, last_kk = last_step_row(len, kWgBK);
          partial |= len % kWgBK != 0;
        }
      }
#ifdef QALG_WS_STAMPS
      if (!stamped_steps && lane == 0) QALG_WS_STAMP(8, last_ti + last_kk + uint32_t(partial));
      stamped_steps = true;
#endif
      // This lane's row offsets, only where some step gathers x rows by cp.async: with rows by TMA
      // and whole steps (every Qwen3 shape) the 16 row formulas per item were dead work on the
      // producer's path between items.
      if (!kTmaRowsOnly && (!rows_tma || (partial && !grouped))) {
#pragma unroll
        for (int i = 0; i < BM / 4; ++i) {
          const uint32_t r = lane / 8 + 4 * i;
          aoff[i] = r < w.m_count ? int64_t(list_row(g, w.m_begin + r)) * int64_t(g.lda) : -1;
        }
      }
      if (empty) {  // no terms: the consumers still store a zero tile
        next_stage(item, w, kFirst | kLast | kEmpty, 1.0f, GP || RP ? w.slot : 0u);  // (GP, RP: both boxes' zeros)
        if (lane == 0) mbar_arrive_expect_tx(&full[stage], 0);
        finish_stage();
      }
      if constexpr (PACK) {
        if (grouped && trim_tail && rows_tma) {
          pack_item(item, w, term, group);
          w = wn, wn = wnn, tw = tn;
          continue;
        }
      }
      if constexpr (GP || RP) {
        // (Defined here, not with the producer's other lambdas: its captures, unused elsewhere,
        // changed the register allocation of every other instantiation, e.g. wsl64x128 0 -> 4 bytes
        // spilled.) GP, RP: an item of the group-pair or row-pair list (see GP, RP above). GP: every step whole;
        // lane 0 copies the x rows, lane b < 2 W's box b (group b's columns) where the term's mask
        // reaches box b. RP: lane h < 2 copies half h's x rows where the mask reaches half h, lanes <
        // nbw the W boxes, once for both halves; with grouped widths (kGroupedTma) through the grouped
        // maps (a step past the group's end zero-filled) and a term's last, partial step as 16-row
        // slices where kTrimTail is on (x slices half h at h · 64 · 32 bytes into each BM · 32-byte
        // slice, as the consumers' a_sl reads them). The item's slot (GP: 1 + the second group's first
        // column; RP: 1 + the second half's first row) rides in the header's res field to the epilogue.
        auto pair_item = [&](uint32_t item, const WorkItem& w, auto& term, auto& group, uint32_t last_ti,
                             uint32_t last_kk) {
          const uint32_t m_x = RP && lane == 1 && w.slot ? w.slot - 1 : w.m_begin;  // this lane's x rows
          const uint32_t tq = g.row_formula.by_c.div(m_x);
          const int32_t ri = int32_t(m_x - tq * g.row_formula.c), ty = int32_t(tq);
          [[maybe_unused]] const int32_t jb = GP ? int32_t(lane == 0 ? w.n_begin / r_group : w.slot ? (w.slot - 1) / r_group : 0u) : 0;
          const uint32_t nbw = narrow_w ? min(uint32_t(BN / 64), (w.n_count + 63) / 64) : uint32_t(BN / 64);
          bool first = true;
#pragma unroll 1
          for (uint32_t ti = 0; ti < w.term_count; ++ti) {
            const Term t = term(ti);
            const uint32_t mask = pair_mask(t);
            const int32_t tg = RP && grouped ? group(ti, t) : 0;  // (every lane: a shuffle)
#pragma unroll 1
            for (uint32_t kk = 0; kk < t.len; kk += kWgBK) {
              const uint32_t n16 = RP && trim_tail && t.len - kk <= 3 * 16 ? (t.len - kk + 15) / 16 : 0;  // RP: (as below)
              const uint32_t flags = (first ? kFirst : 0) | (ti == last_ti && kk == last_kk ? kLast : 0) |
                                     (fence_every_step ? kFence : 0) | mask << kGroupMaskShift | n16 << kK16Shift |
                                     (n16 ? kASlices : 0);
              const uint32_t s = next_stage(item, w, flags, t.coef, w.slot);
              first = false;
              unsigned char* sA = smem + s * kStage;
              const bool reached = lane < 2 && (mask >> lane & 1u);  // box / half `lane`
              if constexpr (GP) {
                if (lane == 0) {
                  mbar_arrive_expect_tx(&full[s], no_load ? 0 : kABytes + uint32_t(__popc(mask)) * 64 * kWgBK * 2);
                  if (!no_load) tma_load_3d(sA, &tmapA, int32_t(t.a + kk), ri, ty, &full[s]);
                }
                if (!no_load && reached) tma_load_3d(sA + kABytes + lane * kWgChunk, &tmapU64, 0, jb, int32_t(t.a + kk), &full[s]);
              } else if (n16) {  // RP, a trimmed last step: n16 slices of 16 rows of x and of W
                if (lane == 0)
                  mbar_arrive_expect_tx(&full[s], no_load ? 0 : uint32_t(__popc(mask)) * n16 * 64 * 32 + nbw * n16 * 16 * 128);
#pragma unroll 1
                for (uint32_t b = 0; b < n16 && !no_load; ++b) {
                  if (reached) tma_load_4d(sA + b * BM * 32 + lane * 64 * 32, &tmapA16, int32_t(kk + b * 16), tg, ri, ty, &full[s]);
                  if (lane < nbw)
                    tma_load_3d(sA + kABytes + lane * kWgChunk + b * 16 * 128, &tmap8, int32_t(w.n_begin + lane * 64),
                                int32_t(kk + b * 16), tg, &full[s]);
                }
              } else {  // RP, a whole step (grouped: the box past the group's end zero-filled)
                if (lane == 0)
                  mbar_arrive_expect_tx(&full[s], no_load ? 0 : uint32_t(__popc(mask)) * (kABytes / 2) + nbw * kWgChunk);
                if (!no_load && reached) {
                  if (grouped) tma_load_4d(sA + lane * (kABytes / 2), &tmapA, int32_t(kk), tg, ri, ty, &full[s]);
                  else tma_load_3d(sA + lane * (kABytes / 2), &tmapA, int32_t(t.a + kk), ri, ty, &full[s]);
                }
                if (!no_load && lane < nbw) {
                  if (grouped)
                    tma_load_3d(sA + kABytes + lane * kWgChunk, &tmap64, int32_t(w.n_begin + lane * 64), int32_t(kk), tg,
                                &full[s]);
                  else
                    tma_load_2d(sA + kABytes + lane * kWgChunk, &tmap64, int32_t(w.n_begin + lane * 64), int32_t(t.a + kk),
                                &full[s]);
                }
              }
              finish_stage();
            }
          }
        };
        pair_item(item, w, term, group, last_ti, last_kk);
        w = wn, wn = wnn, tw = tn;
        continue;
      }
      bool first = !primed, released = false;
#pragma unroll 1
      for (uint32_t ti = prime_ti; ti < w.term_count; ++ti) {
        const Term t = term(ti);
        const int32_t tg = grouped ? group(ti, t) : 0;  // (once per term)
        const bool res = ti == rterm;
#pragma unroll 1
        for (uint32_t kk = ti == prime_ti ? prime_kk : 0; kk < t.len; kk += kWgBK) {
          // The last step reading the slot before it is refilled (next item, other key) releases it.
          const bool release = res && kk + kWgBK >= t.len && k_next != key;
          released |= release;
          const uint32_t valid = t.len - kk;
          const bool a_tma = rows_tma && (valid >= kWgBK || grouped);
          // kTrimTail: n16 16-row slices (0: the whole 64-row step). Only tails of at most 48 rows:
          // the consumers reduce over 1, 2 or 3 slices (a step's K16 field; 4 would read as 3 and
          // drop rows 48 … 63 of a 49-63-row tail, s ≡ 56 mod 64, as it did until the thirty-second
          // session), and a longer tail is the whole zero-filled box's bytes anyway.
          const uint32_t n16 = trim_tail && valid <= 3 * 16 ? (valid + 15) / 16 : 0;
          // kNarrowW: the W boxes (64-column blocks) this item's columns reach
          const uint32_t nbw = narrow_w ? min(uint32_t(BN / 64), (w.n_count + 63) / 64) : uint32_t(BN / 64);
          const uint32_t w_rows = n16 ? n16 * 16 : kWgBK;
          const bool a_slices = n16 && a_tma;  // x as n16 boxes of 16 columns (32B swizzle)
          const uint32_t flags = (first ? kFirst : 0) | (ti == last_ti && kk == last_kk ? kLast : 0) |
                                 (res ? kResident : 0) | (release ? kResRelease : 0) |
                                 (!a_tma || fence_every_step ? kFence : 0) | n16 << kK16Shift |
                                 (a_slices ? kASlices : 0);
          const uint32_t s = next_stage(item, w, flags, t.coef, kk / kWgBK);
          first = false;
          unsigned char* sA = smem + s * kStage;
          if (no_load) {  // timing only: the stage completes with zero bytes
            if (lane == 0) mbar_arrive_expect_tx(&full[s], 0);
            finish_stage();
            continue;
          }
          if (lane == 0) {
            mbar_arrive_expect_tx(&full[s], (res ? 0 : NB * nbw * 64 * w_rows * 2) +
                                                (a_slices ? n16 * BM * 32 : a_tma ? kABytes : 0));
            if (a_tma) {  // rows_tma: the batch's rows have a closed form, c > 0
              const uint32_t tq = g.row_formula.by_c.div(w.m_begin);
              const int32_t ri = int32_t(w.m_begin - tq * g.row_formula.c), ty = int32_t(tq);
              if (a_slices) {
#pragma unroll 1
                for (uint32_t b = 0; b < n16; ++b)
                  tma_load_4d(sA + b * BM * 32, &tmapA16, int32_t(kk + b * 16), tg, ri, ty, &full[s]);
              } else if (grouped) tma_load_4d(sA, &tmapA, int32_t(kk), tg, ri, ty, &full[s]);
              else tma_load_3d(sA, &tmapA, int32_t(t.a + kk), ri, ty, &full[s]);
            }
          }
          if constexpr (CL > 1) {  // this CTA's 32-row half of each 64-column block, into both CTAs
            if (lane < BN / 64) {  // (the rank is read where it is used: one register fewer live in the loop)
              const uint32_t rank = cluster_ctarank();
              tma_load_2d_multicast(sA + kABytes + lane * kWgChunk + rank * 32 * 128, &tmap8,
                                    int32_t(w.n_begin + lane * 64), int32_t(t.a + kk + rank * 32), &full[s], 3);
            }
          } else if (!res && lane < nbw) {  // one lane per 64-column block of the W tile
            if (n16) {
#pragma unroll 1
              for (uint32_t b = 0; b < n16; ++b)
                tma_load_3d(sA + kABytes + lane * kWgChunk + b * 16 * 128, &tmap8, int32_t(w.n_begin + lane * 64),
                            int32_t(kk + b * 16), tg, &full[s]);
            } else if (grouped)
              tma_load_3d(sA + kABytes + lane * kWgChunk, &tmap64, int32_t(w.n_begin + lane * 64), int32_t(kk),
                          tg, &full[s]);
            else
              tma_w_block(sA + kABytes + lane * kWgChunk, &tmap64, &tmap8, int32_t(w.n_begin + lane * 64), t.a + kk,
                          valid, K, &full[s]);
          }
          if constexpr (NB == 2) {  // the up matrix's tile after the gate's
            if (lane >= 16 && lane < 16 + nbw) {
              unsigned char* dst = sA + kABytes + kBBytes + (lane - 16) * kWgChunk;
              if (n16) {
#pragma unroll 1
                for (uint32_t b = 0; b < n16; ++b)
                  tma_load_3d(dst + b * 16 * 128, &tmapU8, int32_t(w.n_begin + (lane - 16) * 64), int32_t(kk + b * 16),
                              tg, &full[s]);
              } else if (grouped)
                tma_load_3d(dst, &tmapU64, int32_t(w.n_begin + (lane - 16) * 64), int32_t(kk), tg, &full[s]);
              else
                tma_w_block(dst, &tmapU64, &tmapU8, int32_t(w.n_begin + (lane - 16) * 64), t.a + kk, valid, K, &full[s]);
            }
          }
          if (!kTmaRowsOnly && !a_tma) {
#pragma unroll
            for (int i = 0; i < BM / 4; ++i) {
              const uint32_t r = lane / 8 + 4 * i, kc = lane % 8;
              const bool ok = aoff[i] >= 0 && kk + kc * 8 < t.len;
              cp_async16(sA + swz128(r, kc), ok ? A + aoff[i] + t.a + kk + kc * 8 : A, ok);
            }
          }
          finish_stage();
        }
      }
      if (released) key = ~uint64_t(0);  // a later item with the same key must refill the slot
      prime_ti = prime_kk = 0, primed = false;  // (the first item only)
      w = wn, wn = wnn, tw = tn;
    }
    // Programmatic dependent launch (the gated FFN's down projection after its gate/up): once every
    // CTA's producer has issued its last copy, a grid launched after this one may start, and it waits
    // for this one in its producer (griddepcontrol.wait above). Without the launch attribute both are
    // no-ops (PTX griddepcontrol). Not at the start: that (call 2 of the twenty-first session) slowed
    // the 1.7B, 4B and DS-V3 FFNs by 4-6 %.
    grid_launch_dependents();
    if (lane == 0) QALG_WS_STAMP(7);
    next_stage(0, WorkItem{}, kDone, 1.0f, 0);
    if (lane == 0) mbar_arrive_expect_tx(&full[stage], 0);
    finish_stage();
    cp_async_wait<0>();
    if constexpr (CL > 1) cluster_sync();  // stay until the other CTA has made its last arrival here
    return;
  }

  // ---- consumer warpgroups ----
  const int wg = threadIdx.x / 128, lane = threadIdx.x % 32, warp = (threadIdx.x % 128) / 32;
  const uint32_t m0 = wg * 64 + warp * 16 + lane / 4, m1 = m0 + 8;
  const uint32_t smem_base = smem_addr(smem), res_base = smem_addr(resident);
  float acc[R];
  float acc1[NB == 2 ? R : 1];  // NB = 2: the up matrix's sums
  uint32_t stage = 0, phase = 0, prev = 0, res_par = 0;
  bool have_prev = false, first = true, res_ready = false;
  float coef = 1.0f;
  uint32_t m_count = 0, n_begin = 0, n_count = 0;
  uint32_t n_second = 0;  // GP: 1 + the second group's first column; RP: 1 + the second half's first row (0: none)
  uint64_t row0 = 0, row1 = 0;
  // Frees a stage for the producer (CL = 2: for both CTAs' producers; when lane 0 arrives for its
  // warp, every lane has read the stage's header and the warpgroup's wgmma on it is complete).
  auto release = [&](uint32_t st) {
    mbar_arrive(&empty[st]);
    if constexpr (CL > 1) {
      __syncwarp();
      if (lane == 0) mbar_arrive_remote(&empty[st], cluster_ctarank() ^ 1, copy & kPairClusterScope);
    }
  };
  const bool no_mma = copy & kAblateNoMma, no_store = copy & kAblateNoStore;
  const bool tma_store = copy & kTmaStore;
  constexpr int kOutChunk = BM * 128;  // one BM-row box of 64 columns in the staged tile
  static_assert(BM * BN * 2 <= kStage, "kTmaStore: the finished tile fits the stage it is staged in");
  uint32_t m_begin = 0;
  // kTmaStore: the stage a finished tile was stored from, until thread 0 has seen the copy engine
  // read it; then thread 0 releases it for all the consumers. Why deferred: waiting for the read
  // before going on left the warpgroup idle once per tile; here thread 0 waits while the next
  // step's wgmma runs.
  // CL = 2 (twenty-third session; before, the pairs kept the per-thread stores, which the TMA stores
  // beat by 6-22 % wherever tiles had whole 64-column boxes, nineteenth session, call 2; the pairs
  // were measured against the lean tiles only before that, eighteenth session): the other CTA's producer multicasts
  // its half of each W box into this CTA's stage too, and it may refill the stage only once this
  // CTA's consumers have also arrived on ITS "empty" barrier (one arrival per warp, as release does).
  // So thread 0 makes those four remote arrivals as well, after the read: until then the other
  // producer cannot write into the tile being stored.
  int store_stage = -1;
  auto settle_store = [&]() {
    if (store_stage >= 0) {
      if (threadIdx.x == 0) {
        bulk_wait_read(), mbar_arrive_count(&empty[store_stage], kConsumers);
        if constexpr (CL > 1) {
          const uint32_t other = cluster_ctarank() ^ 1;
#pragma unroll
          for (int w = 0; w < kConsumers / 32; ++w)
            mbar_arrive_remote(&empty[store_stage], other, copy & kPairClusterScope);
        }
      }
      store_stage = -1;
    }
  };
#ifdef QALG_WS_STAMPS
  bool stamped_first = false;
  if (threadIdx.x == 0) QALG_WS_STAMP(12);
#endif
#pragma unroll 1
  while (true) {
    mbar_wait(&full[stage], phase);
#ifdef QALG_WS_STAMPS
    if (!stamped_first && threadIdx.x == 0) QALG_WS_STAMP(4);
    stamped_first = true;
#endif
    const StageHeader h = header[stage];
    // No wgmma is in flight here (the item's last step waited), but ptxas cannot prove it on this
    // exit path and otherwise injects "warpgroup.wait 0" at the loop head, i.e. before EVERY step
    // (ptxas C7517 on every wgs_forward_kernel until the seventh session; the SASS had
    // WARPGROUP.DEPBAR.LE gsb0, 0x0 at the back-edge), so no step's wgmma overlapped the wait for
    // the next stage. This wait costs nothing and lets the loop keep one wgmma in flight.
    if (h.flags & kDone) {
      if (threadIdx.x == 0) QALG_WS_STAMP(5);
      wgmma_wait<0>();
      settle_store();
      if (tma_store && threadIdx.x == 0) {  // the last tile's stores, before the CTA ends
        if (copy & kExitAfterRead) bulk_wait_read();
        else bulk_wait_all();
      }
      if (threadIdx.x == 0) QALG_WS_STAMP(6);
      break;
    }
    if (h.flags & kFirst) {  // rows of this thread's two outputs, needed only at the epilogue
      m_count = h.m_count, n_begin = h.n_begin, n_count = h.n_count, m_begin = h.m_begin;
      row0 = m0 < m_count ? list_row(g, h.m_begin + m0) : 0;  // closed form where there is one: no load
      row1 = m1 < m_count ? list_row(g, h.m_begin + m1) : 0;
      first = true;
      coef = h.coef;
      if constexpr (GP || RP) {  // a step may reach one box only: every sum starts from zero
        n_second = h.res;
        // (nothing is in flight here, the last item's epilogue waited; without the wait ptxas cannot
        // tell and serialises every wgmma, C7515, as for rescale_accumulators)
        wgmma_wait<0>();
        fence_operands(acc);
#pragma unroll
        for (int i = 0; i < R; ++i) acc[i] = 0.0f;
      }
    } else if (h.coef != coef) {
      if constexpr (NB == 2) {  // both sums at once (two rescale_accumulators: ptxas C7515)
        wgmma_wait<0>();
        fence_operands(acc);
        fence_operands(acc1);
        const float f = coef / h.coef;
#pragma unroll
        for (int i = 0; i < R; ++i) acc[i] *= f, acc1[i] *= f;
        coef = h.coef;
      } else {
        rescale_accumulators(acc, coef, h.coef);
      }
    }
    if ((h.flags & kEmpty) && !GP && !RP) {
      settle_store();
      release(stage);
    } else {  // (GP, RP: an empty item's stage is kept, as a step's, for its zero tile's TMA store)
      if (h.flags & kFence) fence_proxy_async();
      const uint32_t sa = smem_base + stage * kStage;
      uint32_t sb = sa + kABytes;
      if (h.flags & kResident) {
        if (!res_ready) mbar_wait(res_full, res_par), res_par ^= 1, res_ready = true;
        sb = res_base + h.res * kBBytes;
      }
      if constexpr (GP) {
        const uint32_t gm = (__shfl_sync(0xffffffffu, h.flags, 0) >> kGroupMaskShift) & 3u;  // (warp-uniform)
        const uint32_t a_wg = sa + wg * 64 * 128;
        // Each box's 64 columns as an accumulator of its own, also where a step reaches both (two
        // m64n64 products in one commit group, as the gated FFN's gate and up): with one m64n128
        // product over both halves beside the halves' own, ptxas serialised every wgmma (C7511).
        float(&lo)[R / 2] = *reinterpret_cast<float(*)[R / 2]>(&acc[0]);
        float(&hi)[R / 2] = *reinterpret_cast<float(*)[R / 2]>(&acc[R / 2]);
        if (no_mma || gm == 0) {  // (an empty item: no wgmma)
        } else if (gm == 3) {
          forward_step<T, 64, 2>(lo, hi, a_wg, sb, sb + kWgChunk, false);
        } else if (gm == 1) {
          forward_step<T, 64>(lo, a_wg, sb, false);
        } else {
          forward_step<T, 64>(hi, a_wg, sb + kWgChunk, false);
        }
      } else if (RP && !no_mma &&
                 !((__shfl_sync(0xffffffffu, h.flags, 0) >> (kGroupMaskShift + wg)) & 1u)) {  // (warp-uniform)
        // RP: a step that does not reach this warpgroup's half commits no wgmma here, so the
        // wait<1> below would leave the previous step's in flight while release(prev) frees its
        // stage to the producer: wait for it.
        wgmma_wait<0>();
      } else if (!no_mma) {
        // (through a shuffle, so that ptxas sees a warp-uniform branch around the wgmma)
        const uint32_t hf = __shfl_sync(0xffffffffu, h.flags, 0);
        const uint32_t ks = (hf >> kK16Shift) & 7u;
        const uint32_t a_wg = sa + wg * 64 * 128, a_sl = sa + wg * 64 * 32;  // 128B layout / 16-column slices
        constexpr int kSl = BM * 32;
        // ks: 0 (a whole step; PACK with kASlices: 4 slices) or 1 … 3 slices. The producers never
        // slice more than 48 rows (a 4 here would take the 3-slice branch and drop rows: the
        // s ≡ 56 mod 64 bug fixed in the thirty-second session).
        if (ks == 0 && (!PACK || !(hf & kASlices))) forward_step<T, BN, NB>(acc, acc1, a_wg, sb, sb + kBBytes, first);
        else if (PACK && ks == 0) forward_step<T, BN, NB, 4, kSl>(acc, acc1, a_sl, sb, sb + kBBytes, first);
        else if (hf & kASlices) {
          if (ks == 1) forward_step<T, BN, NB, 1, kSl>(acc, acc1, a_sl, sb, sb + kBBytes, first);
          else if (ks == 2) forward_step<T, BN, NB, 2, kSl>(acc, acc1, a_sl, sb, sb + kBBytes, first);
          else forward_step<T, BN, NB, 3, kSl>(acc, acc1, a_sl, sb, sb + kBBytes, first);
        } else if (ks == 1) forward_step<T, BN, NB, 1>(acc, acc1, a_wg, sb, sb + kBBytes, first);
        else if (ks == 2) forward_step<T, BN, NB, 2>(acc, acc1, a_wg, sb, sb + kBBytes, first);
        else forward_step<T, BN, NB, 3>(acc, acc1, a_wg, sb, sb + kBBytes, first);
      }
      first = false;
      settle_store();  // (while this step's wgmma runs)
      if (h.flags & kResRelease) {  // the slot's last reader: free it once this wgmma is done
        wgmma_wait<0>();
        mbar_arrive(res_empty);
        res_ready = false;
      } else {
        wgmma_wait<1>();
      }
      if (have_prev) release(prev);
      prev = stage, have_prev = true;
    }
    if (h.flags & kLast) {
      wgmma_wait<0>();
      fence_operands(acc);
      if constexpr (NB == 2) fence_operands(acc1);
      // kTmaStore: this item's tile through its last stage (not for an empty item: its stage is
      // already released) where the copy engine can write it whole.
      bool by_tma = false;
      uint32_t tq = 0, ri = 0;
      if (tma_store && (GP || RP || !(h.flags & kEmpty)) && (r_group != 0 || n_count % 64 == 0)) {
        tq = g.row_formula.by_c.div(m_begin), ri = m_begin - tq * g.row_formula.c;
        // (RP: each half is a 64-row box or its type's tail, pair_row_items, stored by a box of its own)
        by_tma = RP || m_count == BM || ri + m_count >= g.row_formula.c;
      }
      if constexpr (GP || RP) {  // the host launches GP, RP only with these stores (no other epilogue writes both)
        if (!by_tma || r_group == 0) __trap();
      }
      if (have_prev && !by_tma) release(prev), have_prev = false;
      if (no_store) {
        if (have_prev) release(prev), have_prev = false;
      } else if (by_tma) {
        unsigned char* out = smem + stage * kStage;  // prev == stage: the item's last stage
        // BM = 128 with BN > 64: the tile reaches past the stage's x rows into its W block, which
        // the other warpgroup's last wgmma may still be reading (each writes only its own x rows
        // below that)
        if constexpr (BM > 64 && BM * BN * 2 > kABytes) consumers_sync<kConsumers>();
        if constexpr (NB == 2)
          stage_tile<T, BN, kOutChunk>([&](int i) { return silu_mul(acc[i] * coef, acc1[i] * coef); }, out, m0, first);
        else
          stage_tile<T, BN, kOutChunk>([&](int i) { return acc[i] * coef; }, out, m0, first);
        fence_proxy_async();  // the generic-proxy writes, before the copy engine reads them
        consumers_sync<kConsumers>();
        if (threadIdx.x == 0) {
          if constexpr (GP) {  // box b at column 0 of its group, clipped at r
            tma_store_4d(&tmapC, out, 0, int32_t(n_begin / r_group), int32_t(ri), int32_t(tq));
            if (n_second)
              tma_store_4d(&tmapC, out + kOutChunk, 0, int32_t((n_second - 1) / r_group), int32_t(ri), int32_t(tq));
          } else if (r_group) {  // (column within group, group, index, type): a box past the group is clipped
            const uint32_t j = n_begin / r_group, c0 = n_begin - j * r_group;
            // RP: half 1 (rows 64-127 of the staged tile) to its own rows, 64-row boxes (tmapC)
            const uint32_t tq1 = RP && n_second ? g.row_formula.by_c.div(n_second - 1) : 0u;
            const uint32_t ri1 = RP && n_second ? n_second - 1 - tq1 * g.row_formula.c : 0u;
#pragma unroll 1
            for (uint32_t b = 0; b * 64 < n_count; ++b) {
              tma_store_4d(&tmapC, out + b * kOutChunk, int32_t(c0 + b * 64), int32_t(j), int32_t(ri), int32_t(tq));
              if (RP && n_second)
                tma_store_4d(&tmapC, out + b * kOutChunk + 64 * 128, int32_t(c0 + b * 64), int32_t(j), int32_t(ri1),
                             int32_t(tq1));
            }
          } else {
#pragma unroll 1
            for (uint32_t b = 0; b < n_count / 64; ++b)
              tma_store_3d(&tmapC, out + b * kOutChunk, int32_t(n_begin + b * 64), int32_t(ri), int32_t(tq));
          }
          bulk_commit();
        }
        store_stage = int(stage), have_prev = false;  // released by settle_store once read
      } else if constexpr (NB == 2) {  // SiLU(gate)·up (an empty sum stores zeros, as SiLU(0)·0)
        fence_operands(acc1);
        store_values<T, BN>([&](int i) { return silu_mul(acc[i] * coef, acc1[i] * coef); }, g.C, g.ldc, row0, row1,
                            m0 < m_count, m1 < m_count, n_begin, n_count, first);
      } else {
        store_fragments<T, BN>(acc, g.C, g.ldc, row0, row1, m0 < m_count, m1 < m_count, n_begin, n_count, coef, first);
      }
    }
    if (++stage == STAGES) stage = 0, phase ^= 1;
  }
  if constexpr (CL > 1) cluster_sync();
}

}  // namespace qalg::gpu::detail
