#pragma once
// The forward of the complete-graph law when the input groups are narrow (s <= 64: Qwen3-32B at
// q = 128 and 256 has s = 40 and 20). Why a kernel of its own: there each output element needs
// only 2s MACs, so the time is the write of Y (1.7 GB at M = 32768), and the general tiles lose
// it twice: a 64-deep reduction step is mostly zeros, and a 64x128 tile straddles two output
// groups, so it streams four x/W operand pairs for two groups' worth of columns (floor fraction
// 0.21 on 64x128w4). Here one CTA owns 64 rows of one type i and a run of whole output groups:
//   x_i (64 × s) is read once per CTA and kept as mma fragments for the whole run;
//   per output group j (or a piece of it, when r > kNarrowSplit): W_ij and W_jj (s × piece) come
//   by TMA (one thread, one mbarrier per stage) and x_j (64 × s) by cp.async, into one of STAGES
//   stages, padded with zeros to SK (s rounded up to 16, or for nl64x64 to 24 or 40); y_j = x_i W_ij + x_j W_jj (y_i = x_i W_ii)
//   is summed by mma.sync m16n8k16, staged per warp in shared memory and stored as whole row runs
//   (8- or 16-byte vectors).
// The first version (cp.async for everything, stores straight from the fragments) ran Qwen3-32B at
// M = 32768 in 2.5 ms: under Nsight Compute it issued ~1000 instructions per warp and group (address
// arithmetic of 8-byte copies and 4-byte stores) at 12 warps per SM, and half of its store sectors
// were partly written.
// A third version (call 5 of the thirteenth session, commit bf7c41f) staged through stmatrix at a
// wider pitch, wrote 16-byte runs with 8-byte edges, started each sum with a zero-accumulator mma
// and gave SK = 48 two stages: it issued fewer instructions but ran slower (M = 32768 1544-1585
// against 1414-1456 us, M = 8192 471-565 against 437-473), and this one was restored.
// Rows come from the batch's closed form (RowFormula): type i's k-th row is row(i · c + k).
#include "mma_primitives.cuh"
#include "mbarrier.cuh"
#include "narrow_units.hpp"
#include "wgs_gemm.cuh"  // tma_load_2d, fence_proxy_async
#include "work_list.hpp"

namespace qalg::gpu::detail {

constexpr int kNarrowBM = 64;       // rows per CTA: 4 strips of 16
constexpr int kNarrowSplit = 120;   // widest W box (columns): pieces of at most 120, or 112 when boxes start 4 early
// NS = warps per 16-row strip, each owning 128 / NS of the unit's columns: NS = 1 (tile nl64x128,
// 4 warps of 128 accumulator columns) or NS = 2 (nl64x64, 8 warps of 64: half the registers per
// thread, so twice the warps per SM for a kernel that Nsight Compute found latency-bound at 12).
template <int NS>
constexpr int kNarrowThreads = 128 * NS;
template <int NS>
constexpr int kNarrowAcc = 128 / NS;
// A warp's output staging: 16 rows at pitch bw (NS = 1) or at 64 + 8 (NS = 2; 144 bytes, an odd
// number of 16-byte units: the 8 rows of a fragment store land in distinct banks).
template <int NS>
constexpr int kNarrowOutPitch = NS == 1 ? kNarrowSplit : kNarrowAcc<NS> + 8;
template <int NS>
constexpr int kNarrowOut = 16 * kNarrowOutPitch<NS>;

struct NarrowLaw {
  uint32_t q = 0, s = 0, r = 0, c = 0;  // groups, widths, rows per type
  uint32_t pieces = 1, pw = 0;          // pieces per output group, their width (the last may be narrower)
  uint32_t bw = 0;                      // W box width: pw (+ 4) rounded up to an odd multiple of 8 (conflict-free ldmatrix)
  uint32_t vec16 = 0;                   // every row run starts on 16 bytes and is a multiple of 8 wide: 16-byte stores
  uint32_t run = 1;                     // (group, piece) units per CTA
  uint32_t row_blocks = 1, runs = 1;    // per type: ceil(c / 64) row blocks, ceil(q · pieces / run) runs
  uint32_t types_first = 0;             // CTA order: 0 = row block, run, type (fastest first); 1 = type, row block, run
  uint32_t lda = 0, ldc = 0;
  uint32_t stream = 0;                  // nl64x64: Y stored with the evict-first hint (st.global.cs)
  uint32_t zero_c = 0;                  // each unit's first mma step takes a zero accumulator (no zeroing)
  uint32_t box_cols = 0;                // TS: the output box's columns (2r, pw, or r)
  uint32_t tma_groups = 1;              // TS: output groups per box (2: pairs of r ≡ 4 mod 8; 1: one piece, or one group)
  uint32_t box_pieces = 1;              // TS, G = 1: pieces per box (1: a box per piece; `pieces`: a box per group, mode 3)
  uint32_t prefetch = 0;                // units past the stages' whose W and x are prefetched into L2 (0: none)
  uint32_t strided = 0, box_shift = 0;  // unit order (narrow_units.hpp): strided over boxes of 2^box_shift units
  NarrowOrder order;                    // the same as narrow_order(run, runs, box_shift, strided)
};

// Y is written once and never read here: stream = 1 stores it evict-first (an experiment,
// set_narrow_streaming_stores), so that L2 keeps W and x.
template <typename V>
__device__ __forceinline__ void narrow_store(V* p, V v, uint32_t stream) {
  if (stream) __stcs(p, v);
  else *p = v;
}

// Elements per shared-memory row of the x tiles: an odd number of 16-byte units (conflict-free
// ldmatrix): SK + 8 for SK a multiple of 16, SK itself for 24 and 40.
template <int SK>
constexpr int kNarrowXRow = SK % 16 == 0 ? SK + 8 : SK;
template <int SK>
constexpr int kNarrowXTile = kNarrowBM * kNarrowXRow<SK>;
// A W tile: s rows of the box's bw columns, dense (TMA), rows s..SK zero; sized for the widest box,
// WC columns (kNarrowSplit, or 104 for the group boxes of tma_store mode 3: bw <= WC), plus the
// columns a 16-wide ldmatrix reads past the last row's box.
template <int SK, int WC = kNarrowSplit>
constexpr int kNarrowWTile = SK * WC + 128;
template <int SK, int WC = kNarrowSplit>
constexpr int narrow_stage_elems() {
  return kNarrowXTile<SK> + 2 * kNarrowWTile<SK, WC>;
}
// x_i, the stages, the warps' staging (none with TS), (NS = 2) the 64 rows' offsets in Y, the
// barriers; with TS the CTA's output box (64 rows × L.box_cols) follows at the next 128 bytes, its
// size known at launch (narrow_box_offset + narrow_box_bytes).
template <int NS, bool TS>
constexpr int kNarrowOutElems = TS ? 0 : 4 * NS * kNarrowOut<NS>;
template <int SK, int STAGES, int NS, bool TS = false, int WC = kNarrowSplit>
constexpr size_t narrow_smem_bytes() {
  return size_t(kNarrowXTile<SK> + STAGES * narrow_stage_elems<SK, WC>() + kNarrowOutElems<NS, TS>) * 2 +
         (NS == 2 ? kNarrowBM * 8 : 0) + STAGES * 8;
}
template <int SK, int STAGES, int NS, bool TS, int WC = kNarrowSplit>
constexpr size_t narrow_box_offset() {
  return (narrow_smem_bytes<SK, STAGES, NS, TS, WC>() + 127) / 128 * 128;
}
constexpr size_t narrow_box_bytes(uint32_t box_cols) { return size_t(kNarrowBM) * box_cols * 2; }

// L2 prefetches (set_narrow_prefetch): a W box by the copy engine, no shared memory, no barrier;
// a 16-byte piece of an x row by its thread.
__device__ __forceinline__ void tma_prefetch_2d(const CUtensorMap* map, int32_t col, int32_t row) {
  asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];\n" ::"l"(reinterpret_cast<uint64_t>(map)),
               "r"(col), "r"(row)
               : "memory");
}
__device__ __forceinline__ void prefetch_l2(const void* p) { asm volatile("prefetch.global.L2 [%0];\n" ::"l"(p)); }

// The TMA store of the output box (TS): one thread issues it (wgs_gemm.cuh tma_store_4d, then
// bulk_commit) after the CTA's barrier; the box may be written again once the copy engine has read
// it (bulk_wait_read).

// SK = s rounded up to 16, or (nl64x64, s = 20 or 40) to 8 past a multiple of 16: the last
// reduction step is then an m16n8k8 mma (a quarter or a fifth less padding work and shared memory).
template <int SK>
constexpr int kNarrowK16 = SK / 16;
template <int SK>
constexpr bool kNarrowTail = SK % 16 == 8;

// The A operand of this warp's 16 rows (strip warp % 4) over SK columns: k16 steps and the k8 tail.
template <int SK>
struct NarrowA {
  uint32_t k16[kNarrowK16<SK>][4];
  uint32_t k8[2];
};

__device__ __forceinline__ void narrow_ldmatrix_x2(uint32_t (&r)[2], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(smem_addr(p)));
}
template <typename T>
__device__ __forceinline__ void narrow_mma1688(float (&d)[4], const uint32_t (&a)[2], uint32_t b);
template <>
__device__ __forceinline__ void narrow_mma1688<__nv_bfloat16>(float (&d)[4], const uint32_t (&a)[2], uint32_t b) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(b));
}
template <>
__device__ __forceinline__ void narrow_mma1688<__half>(float (&d)[4], const uint32_t (&a)[2], uint32_t b) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(b));
}

template <int SK>
__device__ __forceinline__ void narrow_a_frags(const void* sx_, NarrowA<SK>& af) {
  const auto* sx = static_cast<const uint16_t*>(sx_);
  const int lane = threadIdx.x % 32, m = ((threadIdx.x / 32) % 4) * 16;
#pragma unroll
  for (int k = 0; k < kNarrowK16<SK>; ++k)
    ldmatrix_x4(af.k16[k], sx + (m + lane % 16) * kNarrowXRow<SK> + k * 16 + (lane / 16) * 8);
  if constexpr (kNarrowTail<SK>) narrow_ldmatrix_x2(af.k8, sx + (m + lane % 16) * kNarrowXRow<SK> + kNarrowK16<SK> * 16);
}
// d = A · B with a zero accumulator (the first step of a unit: no 32-register zeroing).
template <typename T>
__device__ __forceinline__ void narrow_mma16816_zero(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1);
template <>
__device__ __forceinline__ void narrow_mma16816_zero<__nv_bfloat16>(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                                                    uint32_t b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%10,%10,%10};\n"
               : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "f"(0.0f));
}
template <>
__device__ __forceinline__ void narrow_mma16816_zero<__half>(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%10,%10,%10};\n"
               : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "f"(0.0f));
}

// ldmatrix per batch of B fragments in narrow_mma: 1, the interleaved order. Batches of 2
// (-DQALG_NARROW_GROUP=2) ran level at M = 32768 and slower at M = 8192, where SK = 40 then
// spills (session 14, call 4: 1201-1208 against 1190-1213 us, 355-360 against 344-345).
#ifndef QALG_NARROW_GROUP
#define QALG_NARROW_GROUP 1
#endif

// acc += A · (the W tile at sw, pitch bw) over the warp's ACC columns from cb (ZERO: acc = that,
// for the unit's first product); n8 tiles past the piece's width are skipped in pairs (k16) or
// fours (k8) (warp-uniform guards, not breaks: the loops must unroll so that acc stays in
// registers). lane_off / lane_off8: this lane's ldmatrix.trans offsets in the tile (16 k rows ×
// 16 columns; 8 k rows × 32 columns). The B fragments of QALG_NARROW_GROUP ldmatrix (two in the
// k8 step) are loaded before their mma (the asm statements keep their order). Nsight Compute
// (session 14) found 40 % of nl64x64's stall cycles at M = 32768 short-scoreboard waits, but
// batching them did not change its time: the waits are hidden by the other warps.
template <typename T, int SK, int ACC, bool ZERO>
__device__ __forceinline__ void narrow_mma(const NarrowA<SK>& af, const T* sw, uint32_t bw, uint32_t lane_off,
                                           uint32_t lane_off8, uint32_t cb, uint32_t width, float (&acc)[ACC / 8][4]) {
  constexpr int kPairs = ACC / 16, kGroup = QALG_NARROW_GROUP;
#pragma unroll
  for (int k = 0; k < kNarrowK16<SK>; ++k) {
    const T* row = sw + lane_off + k * 16 * bw + cb;
#pragma unroll
    for (int g = 0; g < kPairs; g += kGroup) {
      uint32_t bf[kGroup][4];
#pragma unroll
      for (int h = 0; h < kGroup; ++h)
        if (g + h < kPairs && cb + uint32_t((g + h) * 16) < width) ldmatrix_x4_trans(bf[h], row + (g + h) * 16);
#pragma unroll
      for (int h = 0; h < kGroup; ++h) {
        const int np = g + h;
        if (np < kPairs && cb + uint32_t(np * 16) < width) {
          if (ZERO && k == 0) {
            narrow_mma16816_zero<T>(acc[2 * np], af.k16[k], bf[h][0], bf[h][1]);
            narrow_mma16816_zero<T>(acc[2 * np + 1], af.k16[k], bf[h][2], bf[h][3]);
          } else {
            mma16816<T>(acc[2 * np], af.k16[k], bf[h][0], bf[h][1]);
            mma16816<T>(acc[2 * np + 1], af.k16[k], bf[h][2], bf[h][3]);
          }
        }
      }
    }
  }
  if constexpr (kNarrowTail<SK>) {
    constexpr int kQuads = ACC / 32;
    const T* row = sw + lane_off8 + kNarrowK16<SK> * 16 * bw + cb;
    uint32_t bf[kQuads][4];
#pragma unroll
    for (int nq = 0; nq < kQuads; ++nq)
      if (cb + uint32_t(nq * 32) < width) ldmatrix_x4_trans(bf[nq], row + nq * 32);
#pragma unroll
    for (int nq = 0; nq < kQuads; ++nq) {
      if (cb + uint32_t(nq * 32) < width) {
#pragma unroll
        for (int t = 0; t < 4; ++t) narrow_mma1688<T>(acc[4 * nq + t], af.k8, bf[nq][t]);
      }
    }
  }
}

// TS (NS = 2 only): Y is staged in the CTA's box (64 rows × box_cols, dense) and written by one TMA
// store through ymap (tensor_map_grouped_typed_rows_plain over groups of G · r columns; rows past c
// and columns past G · r are not written):
//   G = 2 (r ≡ 4 mod 8): a unit is one of two adjacent output groups, whose 2r columns start on 16
//     bytes; the box holds both and is stored after the second;
//   G = 1 (r ≡ 0 mod 8): the box holds one unit (a piece of pw columns) and is stored after it, or
//     (box_pieces = pieces, mode 3) one whole group, its pieces at p · pw, stored after the last:
//     row runs of r columns (400 bytes at r = 200) instead of pw.
// One box, not two: a second would cost the third CTA per SM. Why TMA: with lane stores nl64x64
// ran Qwen3-32B at M = 32768 (r = 100) in 1208-1215 us, with the G = 2 boxes in 975-978
// (session 15, call 1): the copy engine writes whole lines of the 200-byte row runs.
// PF: compiled with the L2 prefetches (set_narrow_prefetch; only the SK = 40 shapes: the code costs
// the others registers even where it is off).
template <typename T, int SK, int STAGES, int VEC, int MINB, int NS, bool TS = false, int WC = kNarrowSplit, bool PF = false>
__global__ void __launch_bounds__(kNarrowThreads<NS>, MINB)
    narrow_law_kernel(NarrowLaw L, RowFormula f, const T* X, T* Y, const __grid_constant__ CUtensorMap wmap,
                      const __grid_constant__ CUtensorMap ymap) {
  static_assert(!TS || NS == 2, "TMA stores: nl64x64 only");
  constexpr int kThreads = kNarrowThreads<NS>, kAcc = kNarrowAcc<NS>;
  constexpr int kXPer = (kNarrowBM * SK / VEC + kThreads - 1) / kThreads;
  constexpr int kStage = narrow_stage_elems<SK, WC>();
  constexpr int kWTile = kNarrowWTile<SK, WC>;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  T* smem = reinterpret_cast<T*>(smem_raw);
  T* sxi = smem;
  T* stages = smem + kNarrowXTile<SK>;
  T* sout = stages + STAGES * kStage + (threadIdx.x / 32) * kNarrowOut<NS>;  // not TS
  int64_t* srow = reinterpret_cast<int64_t*>(stages + STAGES * kStage + kNarrowOutElems<NS, TS>);  // NS = 2
  T* box = reinterpret_cast<T*>(smem_raw + narrow_box_offset<SK, STAGES, NS, TS, WC>());  // TS
  uint64_t* full = reinterpret_cast<uint64_t*>(reinterpret_cast<unsigned char*>(srow) + (NS == 2 ? kNarrowBM * 8 : 0));

  uint32_t idx = blockIdx.x, rb, run, i;
  if (L.types_first) {
    i = idx % L.q, idx /= L.q;
    rb = idx % L.row_blocks, run = idx / L.row_blocks;
  } else {  // the row blocks of one run adjacent: the second reads W_ij from L2
    rb = idx % L.row_blocks, idx /= L.row_blocks;
    run = idx % L.runs, i = idx / L.runs;
  }
  const uint32_t k0 = rb * kNarrowBM;
  const uint32_t units = narrow_unit_count(L.q * L.pieces, run, L.run, L.runs, L.box_shift, L.strided);
  // The CTA's n-th unit (L.order is a kernel parameter: only the base is held in a register).
  const uint32_t base = run * L.order.base_step;
  auto unit_of = [&](uint32_t n) { return narrow_unit_at(n, base, L.order); };

  // Zero shared memory once where s < SK: columns s..SK of the x tiles and rows s..SK of the W
  // tiles are never copied into and must be zeros (not stale NaN bits) for the padded reduction.
  // Where s = SK nothing needs it: what else is read uninitialised (x rows past c, W columns past
  // a box's width) reaches only outputs that are not stored. (Short-lived CTAs, runs of 1-2 units,
  // would otherwise spend a good part of their time on it.)
  if (L.s < uint32_t(SK)) {
    constexpr int kVecs = int((narrow_smem_bytes<SK, STAGES, NS, TS, WC>() - STAGES * 8) / 16);  // not the barriers (nor the box)
    uint4* p = reinterpret_cast<uint4*>(smem_raw);
    for (int v = threadIdx.x; v < kVecs; v += kThreads) p[v] = make_uint4(0, 0, 0, 0);
  }
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) mbar_init(&full[s], 1);
    mbar_init_fence();
  }
  __syncthreads();
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, strip = warp % 4;
  // NS = 2: the CTA's 64 row offsets (· ldc, -1 past the type's rows) in shared memory, read by
  // the stores after the main loop's first barrier (NS = 1 keeps them in lanes and shuffles).
  if constexpr (NS == 2) {
    if (threadIdx.x < kNarrowBM) {
      const uint32_t k = k0 + threadIdx.x;
      srow[threadIdx.x] = k < L.c ? int64_t(f.row(i * L.c + k)) * int64_t(L.ldc) : -1;
    }
  }

  int64_t xoff[kXPer];  // this thread's x copy rows (· lda) plus its column, -1 past the type's rows or s
  uint32_t xdst[kXPer];
#pragma unroll
  for (int e = 0; e < kXPer; ++e) {
    const int c = int(threadIdx.x) + e * kThreads, row = c / (SK / VEC), kc = (c % (SK / VEC)) * VEC;
    const uint32_t k = k0 + uint32_t(row);
    xoff[e] = row < kNarrowBM && k < L.c && uint32_t(kc) < L.s ? int64_t(f.row(i * L.c + k)) * int64_t(L.lda) + kc : -1;
    xdst[e] = uint32_t(row * kNarrowXRow<SK> + kc);
  }
  // NS = 1: lane l < 16 holds the offset (· ldc) of this warp's row l, -1 past the type's rows.
  int64_t yoff_l = -1;
  if constexpr (NS == 1) {
    const uint32_t k = k0 + uint32_t(strip * 16 + lane % 16);
    yoff_l = k < L.c ? int64_t(f.row(i * L.c + k)) * int64_t(L.ldc) : -1;
  }
  const uint32_t lane_off = ((lane % 8) + ((lane / 8) % 2) * 8) * L.bw + (lane / 16) * 8;
  const uint32_t lane_off8 = (lane % 8) * L.bw + (lane / 8) * 8;
  const uint32_t cb = uint32_t(warp / 4) * kAcc;  // this warp's first column of the unit
  const uint32_t opitch = NS == 1 ? L.bw : uint32_t(kNarrowOutPitch<NS>);

  // TS: whether unit u is the last of its box (then the box is stored after it, and the next unit
  // waits for that store to have read it before writing the box again).
  auto ends_box = [&](uint32_t u) {
    if (L.tma_groups == 2) return (u / L.pieces) % 2 == 1;
    return L.box_pieces == 1 || u % L.box_pieces == L.box_pieces - 1;
  };
  // set_narrow_prefetch: unit u's W_ij and W_jj boxes and x_j into L2 (a unit L.prefetch past the
  // stages' last, so that its DRAM reads overlap more units than the stages hold: the kernel at
  // M = 8192 has one unit in flight per CTA).
  auto prefetch_unit = [&](uint32_t u) {
    const uint32_t j = u / L.pieces, p = u % L.pieces;
    const int32_t n0 = int32_t(j * L.r + p * L.pw) & ~7;
    if (threadIdx.x == 0) {
      tma_prefetch_2d(&wmap, n0, int32_t(i * L.s));
      if (j != i) tma_prefetch_2d(&wmap, n0, int32_t(j * L.s));
    }
    if (j != i && p == 0) {  // x_j once per group (its pieces read the same x_j)
#pragma unroll
      for (int e = 0; e < kXPer; ++e)
        if (xoff[e] >= 0) prefetch_l2(X + xoff[e] + j * L.s);
    }
  };
  auto load_unit = [&](uint32_t u, uint32_t slot) {
    T* st = stages + slot * kStage;
    const uint32_t j = u / L.pieces, p = u % L.pieces;
    const int32_t n0 = int32_t(j * L.r + p * L.pw) & ~7;  // a box starts on 16 bytes (TMA), 4 columns early if need be
    if (threadIdx.x == 0) {
      mbar_arrive_expect_tx(&full[slot], L.s * L.bw * 2 * (j != i ? 2 : 1));
      tma_load_2d(st + kNarrowXTile<SK>, &wmap, n0, int32_t(i * L.s), &full[slot]);
      if (j != i) tma_load_2d(st + kNarrowXTile<SK> + kWTile, &wmap, n0, int32_t(j * L.s), &full[slot]);
    }
    if (j != i) {
#pragma unroll
      for (int e = 0; e < kXPer; ++e)
        if (xoff[e] >= 0) cp_async_vec<VEC>(st + xdst[e], X + xoff[e] + j * L.s, true);
    }
  };

#pragma unroll
  for (int e = 0; e < kXPer; ++e)
    if (xoff[e] >= 0) cp_async_vec<VEC>(sxi + xdst[e], X + xoff[e] + i * L.s, true);
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (uint32_t(s) < units) load_unit(unit_of(s), s);
    cp_async_commit();
  }

  NarrowA<SK> afi;
  float acc[kAcc / 8][4];
  for (uint32_t n = 0; n < units; ++n) {
    // TS: the box is written again in this step; if a store went out after the last step, it must
    // have read the box (the launch keeps every box within one CTA's units: G = 2 with the run and
    // its start even, group boxes with both multiples of the pieces; the strided order moves whole
    // boxes of 2 or `pieces` units).
    if constexpr (TS) {
      if (threadIdx.x == 0 && n >= 1 && ends_box(unit_of(n - 1))) bulk_wait_read();
    }
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    if (n == 0) narrow_a_frags<SK>(sxi, afi);
    // The stage computed in the previous step is free: every warp passed the barrier above.
    if (n + STAGES - 1 < units) load_unit(unit_of(n + STAGES - 1), (n + STAGES - 1) % STAGES);
    cp_async_commit();
    if constexpr (PF) {  // the units the stages reach later: the first step all, then the one new
      for (uint32_t k = n == 0 ? STAGES : STAGES - 1 + L.prefetch; k <= STAGES - 1 + L.prefetch; ++k)
        if (n + k < units) prefetch_unit(unit_of(n + k));
    }

    const uint32_t slot = n % STAGES, u = unit_of(n), j = u / L.pieces, p = u % L.pieces;
    const uint32_t n0 = j * L.r + p * L.pw, width = min(L.pw, L.r - p * L.pw);
    // The tile's columns start at n0 - sh (its box's start): sh = 4 columns of the previous group
    // are computed and not stored.
    const uint32_t sh = n0 & 7, wd = sh + width;
    const T* st = stages + slot * kStage;
    mbar_wait(&full[slot], (n / STAGES) & 1);
    // NS = 2, a unit narrower than 65 columns: the second warp of a strip has none (warp-uniform;
    // not a `continue`: with TS every thread must reach the pair's barrier below).
    if (cb < wd) {
      if (L.zero_c) {
        narrow_mma<T, SK, kAcc, true>(afi, st + kNarrowXTile<SK>, L.bw, lane_off, lane_off8, cb, wd, acc);
      } else {
#pragma unroll
        for (int t = 0; t < kAcc / 8; ++t)
#pragma unroll
          for (int e = 0; e < 4; ++e) acc[t][e] = 0.0f;
        narrow_mma<T, SK, kAcc, false>(afi, st + kNarrowXTile<SK>, L.bw, lane_off, lane_off8, cb, wd, acc);
      }
      if (j != i) {
        NarrowA<SK> afj;
        narrow_a_frags<SK>(st, afj);
        narrow_mma<T, SK, kAcc, false>(afj, st + kNarrowXTile<SK> + kWTile, L.bw, lane_off, lane_off8, cb, wd, acc);
      }
      if constexpr (TS) {
        // Into the box: G = 2, group j's columns at (j mod 2) · r, tile columns below sh are the
        // previous group's (not stored); G = 1, the unit's columns from 0 (sh = 0). Pitch 2r: with
        // r = 100, 100 words, so a fragment's 8 rows fall in distinct banks (pw = 96 has 4-way
        // conflicts: a dense box has no padding).
        const uint32_t bc = (j % L.tma_groups) * L.r + (L.box_pieces > 1 ? p * L.pw : 0u) - sh;
#pragma unroll
        for (int t = 0; t < kAcc / 8; ++t) {
          const uint32_t col = cb + uint32_t(t * 8 + 2 * (lane % 4)), row = uint32_t(strip * 16 + lane / 4);
          if (cb + uint32_t(t * 8) < wd && col >= sh && col < wd) {
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              __align__(4) T pair[2] = {from_float<T>(acc[t][2 * h]), from_float<T>(acc[t][2 * h + 1])};
              *reinterpret_cast<uint32_t*>(box + (row + 8 * h) * L.box_cols + bc + col) =
                  *reinterpret_cast<const uint32_t*>(pair);
            }
          }
        }
      } else {
        // Stage this warp's 16 rows × its columns in shared memory (pitch opitch, an odd multiple of
        // 16 bytes: the 8 rows of a fragment store land in distinct banks) ...
#pragma unroll
        for (int t = 0; t < kAcc / 8; ++t) {
          if (cb + uint32_t(t * 8) < wd) {
            const uint32_t col = uint32_t(t * 8 + 2 * (lane % 4)), row = uint32_t(lane / 4);
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              __align__(4) T pair[2] = {from_float<T>(acc[t][2 * h]), from_float<T>(acc[t][2 * h + 1])};
              *reinterpret_cast<uint32_t*>(sout + (row + 8 * h) * opitch + col) = *reinterpret_cast<const uint32_t*>(pair);
            }
          }
        }
        __syncwarp();
        // ... then write each row's run of its columns with whole vectors.
        if constexpr (NS == 1) {
          if (L.vec16) {  // half a warp per row, 16 bytes per lane (sh = 0)
            for (int rr = 0; rr < 16; rr += 2) {
              const int row = rr + lane / 16, chunk = lane % 16;
              const int64_t yo = __shfl_sync(0xffffffffu, yoff_l, row);
              if (yo >= 0 && uint32_t(chunk * 8) < width)
                *reinterpret_cast<uint4*>(Y + yo + n0 + chunk * 8) = *reinterpret_cast<const uint4*>(sout + row * opitch + chunk * 8);
            }
          } else {  // a warp per row, 8 bytes per lane
            for (int row = 0; row < 16; ++row) {
              const int64_t yo = __shfl_sync(0xffffffffu, yoff_l, row);
              if (yo >= 0 && uint32_t(lane * 4) < width)
                *reinterpret_cast<uint2*>(Y + yo + n0 + lane * 4) =
                    *reinterpret_cast<const uint2*>(sout + row * opitch + sh + lane * 4);
            }
          }
        } else {
          // Tile column tc (from the box start n0 - sh) is stored where sh <= tc < wd.
          const int64_t* rows = srow + strip * 16;
          if (L.vec16) {  // 8 lanes per row (64 columns), 4 rows per step
#pragma unroll
            for (int rr = 0; rr < 16; rr += 4) {
              const int row = rr + lane / 8;
              const uint32_t lc = uint32_t(lane % 8) * 8, tc = cb + lc;
              const int64_t yo = rows[row];
              if (yo >= 0 && tc < wd)
                narrow_store(reinterpret_cast<uint4*>(Y + yo + n0 + tc), *reinterpret_cast<const uint4*>(sout + row * opitch + lc), L.stream);
            }
          } else {  // 16 lanes per row, 8 bytes each, 2 rows per step
#pragma unroll
            for (int rr = 0; rr < 16; rr += 2) {
              const int row = rr + lane / 16;
              const uint32_t lc = uint32_t(lane % 16) * 4, tc = cb + lc;
              const int64_t yo = rows[row];
              if (yo >= 0 && tc >= sh && tc < wd)
                narrow_store(reinterpret_cast<uint2*>(Y + yo + (n0 - sh) + tc), *reinterpret_cast<const uint2*>(sout + row * opitch + lc),
                             L.stream);
            }
          }
        }
        __syncwarp();
      }  // not TS
    }  // cb < wd
    if constexpr (TS) {
      // The box staged by every warp (G = 2: the pair's second group; group boxes: the last piece):
      // it goes out in one store.
      if (ends_box(u)) {
        fence_proxy_async();  // wg_gemm.cuh
        __syncthreads();
        if (threadIdx.x == 0)
          tma_store_4d(&ymap, box, int32_t(L.box_pieces > 1 ? 0u : p * L.pw), int32_t(j / L.tma_groups), int32_t(k0), int32_t(i)),
              bulk_commit();
      }
    }
  }
  cp_async_wait<0>();
  if constexpr (TS) {
    if (threadIdx.x == 0) bulk_wait_read();
  }
}

}  // namespace qalg::gpu::detail
