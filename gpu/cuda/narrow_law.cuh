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
//   stages, padded with zeros to SK = s rounded up to 16; y_j = x_i W_ij + x_j W_jj (y_i = x_i W_ii)
//   is summed by mma.sync m16n8k16, staged per warp in shared memory and stored as whole row runs
//   (8- or 16-byte vectors).
// The first version (cp.async for everything, stores straight from the fragments) ran Qwen3-32B at
// M = 32768 in 2.5 ms: under Nsight Compute it issued ~1000 instructions per warp and group (address
// arithmetic of 8-byte copies and 4-byte stores) at 12 warps per SM, and half of its store sectors
// were partly written.
// Rows come from the batch's closed form (RowFormula): type i's k-th row is row(i · c + k).
#include "mma_primitives.cuh"
#include "mbarrier.cuh"
#include "wg_gemm.cuh"   // pack2
#include "wgs_gemm.cuh"  // tma_load_2d
#include "work_list.hpp"

#include <type_traits>

namespace qalg::gpu::detail {

constexpr int kNarrowBM = 64;       // rows per CTA: 4 warps of 16
constexpr int kNarrowSplit = 120;   // widest W box (columns): pieces of at most 120, or 112 when boxes start 4 early
constexpr int kNarrowAcc = 128;     // columns of a warp's accumulators (16 n8 tiles)
constexpr int kNarrowThreads = 128;

struct NarrowLaw {
  uint32_t q = 0, s = 0, r = 0, c = 0;  // groups, widths, rows per type
  uint32_t pieces = 1, pw = 0;          // pieces per output group, their width (the last may be narrower)
  uint32_t bw = 0;                      // W box width: pw (+ 4) rounded up to an odd multiple of 8 (conflict-free ldmatrix)
  uint32_t op = 0;                      // output staging pitch: the tile's 16-column pairs plus 8 (odd multiple of 8)
  uint32_t run = 1;                     // (group, piece) units per CTA
  uint32_t row_blocks = 1, runs = 1;    // per type: ceil(c / 64) row blocks, ceil(q · pieces / run) runs
  uint32_t types_first = 0;             // CTA order: 0 = row block, run, type (fastest first); 1 = type, row block, run
  uint32_t lda = 0, ldc = 0;
};

// Elements per shared-memory row of the x tiles (padding of 8: conflict-free ldmatrix).
template <int SK>
constexpr int kNarrowXRow = SK + 8;
template <int SK>
constexpr int kNarrowXTile = kNarrowBM * kNarrowXRow<SK>;
// A W tile: s rows of the box's bw columns, dense (TMA), rows s..SK zero; sized for the widest box
// plus the columns a 16-wide ldmatrix reads past the last row's box.
template <int SK>
constexpr int kNarrowWTile = SK * kNarrowSplit + 128;
constexpr int kNarrowOut = 16 * (kNarrowAcc + 8);  // a warp's output staging: 16 rows × op
template <int SK>
constexpr int narrow_stage_elems() {
  return kNarrowXTile<SK> + 2 * kNarrowWTile<SK>;
}
template <int SK, int STAGES>
constexpr size_t narrow_smem_bytes() {
  return size_t(kNarrowXTile<SK> + STAGES * narrow_stage_elems<SK>() + 4 * kNarrowOut) * 2 + STAGES * 8;
}

__device__ __forceinline__ void stmatrix_x4(void* p, uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};\n" ::"r"(smem_addr(p)), "r"(r0), "r"(r1),
               "r"(r2), "r"(r3)
               : "memory");
}
// d = a · b (no accumulator input: the first product of a unit starts its sum).
template <typename T>
__device__ __forceinline__ void mma16816_first(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  constexpr bool bf = std::is_same_v<T, __nv_bfloat16>;
  if constexpr (bf)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%10,%10,%10};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "f"(0.0f));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%10,%10,%10};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "f"(0.0f));
}

// A fragments of this warp's 16 rows over SK columns of sx.
template <int SK>
__device__ __forceinline__ void narrow_a_frags(const void* sx_, uint32_t (&af)[SK / 16][4]) {
  const auto* sx = static_cast<const uint16_t*>(sx_);
  const int lane = threadIdx.x % 32, m = (threadIdx.x / 32) * 16;
#pragma unroll
  for (int k = 0; k < SK / 16; ++k)
    ldmatrix_x4(af[k], sx + (m + lane % 16) * kNarrowXRow<SK> + k * 16 + (lane / 16) * 8);
}
// acc += A · (the W tile at sw, pitch bw); n8 tile pairs past the piece's width are skipped
// (warp-uniform guards, not breaks: the loops must unroll so that acc stays in registers).
// lane_off: this lane's ldmatrix.trans offset in the tile.
template <typename T, int SK, bool FIRST>
__device__ __forceinline__ void narrow_mma(const uint32_t (&af)[SK / 16][4], const T* sw, uint32_t bw, uint32_t lane_off,
                                           uint32_t width, float (&acc)[kNarrowAcc / 8][4]) {
#pragma unroll
  for (int k = 0; k < SK / 16; ++k) {
    const T* row = sw + lane_off + k * 16 * bw;
#pragma unroll
    for (int np = 0; np < kNarrowAcc / 16; ++np) {
      if (uint32_t(np * 16) < width) {
        uint32_t bf[4];
        ldmatrix_x4_trans(bf, row + np * 16);
        if (FIRST && k == 0) {
          mma16816_first<T>(acc[2 * np], af[k], bf[0], bf[1]);
          mma16816_first<T>(acc[2 * np + 1], af[k], bf[2], bf[3]);
        } else {
          mma16816<T>(acc[2 * np], af[k], bf[0], bf[1]);
          mma16816<T>(acc[2 * np + 1], af[k], bf[2], bf[3]);
        }
      }
    }
  }
}

template <typename T, int SK, int STAGES, int VEC, int MINB>
__global__ void __launch_bounds__(kNarrowThreads, MINB)
    narrow_law_kernel(NarrowLaw L, RowFormula f, const T* X, T* Y, const __grid_constant__ CUtensorMap wmap) {
  constexpr int kXPer = (kNarrowBM * SK / VEC + kNarrowThreads - 1) / kNarrowThreads;
  constexpr int kStage = narrow_stage_elems<SK>();
  extern __shared__ __align__(128) unsigned char smem_raw[];
  T* smem = reinterpret_cast<T*>(smem_raw);
  T* sxi = smem;
  T* stages = smem + kNarrowXTile<SK>;
  T* sout = stages + STAGES * kStage + (threadIdx.x / 32) * kNarrowOut;
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + kNarrowXTile<SK> + STAGES * kStage + 4 * kNarrowOut);

  uint32_t idx = blockIdx.x, rb, run, i;
  if (L.types_first) {
    i = idx % L.q, idx /= L.q;
    rb = idx % L.row_blocks, run = idx / L.row_blocks;
  } else {  // the row blocks of one run adjacent: the second reads W_ij from L2
    rb = idx % L.row_blocks, idx /= L.row_blocks;
    run = idx % L.runs, i = idx / L.runs;
  }
  const uint32_t k0 = rb * kNarrowBM, u0 = run * L.run;
  const uint32_t units = min(L.run, L.q * L.pieces - u0);

  // Zero shared memory once: columns s..SK of the x tiles and rows s..SK of the W tiles are never
  // copied into and must be zeros (not stale NaN bits) for the padded reduction.
  {
    constexpr int kVecs = int((narrow_smem_bytes<SK, STAGES>() - STAGES * 8) / 16);  // not the barriers
    uint4* p = reinterpret_cast<uint4*>(smem_raw);
    for (int v = threadIdx.x; v < kVecs; v += kNarrowThreads) p[v] = make_uint4(0, 0, 0, 0);
  }
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) mbar_init(&full[s], 1);
    mbar_init_fence();
  }
  __syncthreads();

  int64_t xoff[kXPer];  // this thread's x copy rows (· lda) plus its column, -1 past the type's rows or s
  uint32_t xdst[kXPer];
#pragma unroll
  for (int e = 0; e < kXPer; ++e) {
    const int c = int(threadIdx.x) + e * kNarrowThreads, row = c / (SK / VEC), kc = (c % (SK / VEC)) * VEC;
    const uint32_t k = k0 + uint32_t(row);
    xoff[e] = row < kNarrowBM && k < L.c && uint32_t(kc) < L.s ? int64_t(f.row(i * L.c + k)) * int64_t(L.lda) + kc : -1;
    xdst[e] = uint32_t(row * kNarrowXRow<SK> + kc);
  }
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  // Lane l < 16 holds the offset (· ldc) of this warp's row l, -1 past the type's rows.
  int64_t yoff_l;
  {
    const uint32_t k = k0 + uint32_t(warp * 16 + lane % 16);
    yoff_l = k < L.c ? int64_t(f.row(i * L.c + k)) * int64_t(L.ldc) : -1;
  }
  const uint32_t lane_off = ((lane % 8) + ((lane / 8) % 2) * 8) * L.bw + (lane / 16) * 8;
  // stmatrix: lanes 8m..8m+7 address the rows of matrix m (m = 0, 1: an n8 tile's rows 0-7, 8-15;
  // m = 2, 3: the next tile's).
  T* const sout_lane = sout + ((lane % 8) + 8 * ((lane / 8) % 2)) * L.op + 8 * (lane / 16);

  auto load_unit = [&](uint32_t u, uint32_t slot) {
    T* st = stages + slot * kStage;
    const uint32_t j = L.pieces == 1 ? u : u / L.pieces, p = L.pieces == 1 ? 0 : u % L.pieces;
    const int32_t n0 = int32_t(j * L.r + p * L.pw) & ~7;  // a box starts on 16 bytes (TMA), 4 columns early if need be
    if (threadIdx.x == 0) {
      mbar_arrive_expect_tx(&full[slot], L.s * L.bw * 2 * (j != i ? 2 : 1));
      tma_load_2d(st + kNarrowXTile<SK>, &wmap, n0, int32_t(i * L.s), &full[slot]);
      if (j != i) tma_load_2d(st + kNarrowXTile<SK> + kNarrowWTile<SK>, &wmap, n0, int32_t(j * L.s), &full[slot]);
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
    if (uint32_t(s) < units) load_unit(u0 + s, s);
    cp_async_commit();
  }

  uint32_t afi[SK / 16][4];
  float acc[kNarrowAcc / 8][4];
#pragma unroll
  for (int t = 0; t < kNarrowAcc / 8; ++t)
#pragma unroll
    for (int e = 0; e < 4; ++e) acc[t][e] = 0.0f;  // tiles past a unit's width are neither summed nor stored
  for (uint32_t n = 0; n < units; ++n) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    if (n == 0) narrow_a_frags<SK>(sxi, afi);
    // The stage computed in the previous step is free: every warp passed the barrier above.
    if (n + STAGES - 1 < units) load_unit(u0 + n + STAGES - 1, (n + STAGES - 1) % STAGES);
    cp_async_commit();

    const uint32_t slot = n % STAGES, u = u0 + n;
    const uint32_t j = L.pieces == 1 ? u : u / L.pieces, p = L.pieces == 1 ? 0 : u % L.pieces;
    const uint32_t n0 = j * L.r + p * L.pw, width = min(L.pw, L.r - p * L.pw);
    // The tile's columns start at n0 - sh (its box's start): sh = 4 columns of the previous group
    // are computed and not stored.
    const uint32_t sh = n0 & 7, wd = sh + width;
    const T* st = stages + slot * kStage;
    mbar_wait(&full[slot], (n / STAGES) & 1);
    narrow_mma<T, SK, true>(afi, st + kNarrowXTile<SK>, L.bw, lane_off, wd, acc);
    if (j != i) {
      uint32_t afj[SK / 16][4];
      narrow_a_frags<SK>(st, afj);
      narrow_mma<T, SK, false>(afj, st + kNarrowXTile<SK> + kNarrowWTile<SK>, L.bw, lane_off, wd, acc);
    }
    // Stage this warp's 16 rows × wd columns in shared memory (stmatrix; pitch op, an odd number
    // of 16-byte units: the 8 rows of a matrix land in distinct banks) ...
#pragma unroll
    for (int np = 0; np < kNarrowAcc / 16; ++np)
      if (uint32_t(np * 16) < wd)
        stmatrix_x4(sout_lane + np * 16, pack2<T>(acc[2 * np][0], acc[2 * np][1]), pack2<T>(acc[2 * np][2], acc[2 * np][3]),
                    pack2<T>(acc[2 * np + 1][0], acc[2 * np + 1][1]), pack2<T>(acc[2 * np + 1][2], acc[2 * np + 1][3]));
    __syncwarp();
    // ... then write each row's columns [sh, wd) of it, half a warp per row: 16-byte vectors (the
    // tile starts on 16 bytes), 8 bytes for a chunk that is half outside.
    {
      const int chunk = lane % 16;
      const uint32_t lo = max(uint32_t(chunk * 8), sh), hi = min(uint32_t(chunk * 8 + 8), wd);
      T* const yb = Y + (n0 - sh);
#pragma unroll 2
      for (int rr = 0; rr < 16; rr += 2) {
        const int row = rr + lane / 16;
        const int64_t yo = __shfl_sync(0xffffffffu, yoff_l, row);
        if (yo >= 0 && lo < hi) {
          const T* src = sout + row * L.op + lo;
          if (hi - lo == 8) *reinterpret_cast<uint4*>(yb + yo + lo) = *reinterpret_cast<const uint4*>(src);
          else *reinterpret_cast<uint2*>(yb + yo + lo) = *reinterpret_cast<const uint2*>(src);
        }
      }
    }
    __syncwarp();
  }
  cp_async_wait<0>();
}

}  // namespace qalg::gpu::detail
