#pragma once
// The gated FFN of the complete-graph law in one kernel, for narrow groups: gate/up's input groups
// SD = 32 or 64 wide and its output groups RF = 16-32 (the Qwen3-30B expert at q = 32: SD = 64,
// RF = 24). Why one kernel: a type-i row's down output y_j = h_i Wd_ij + h_j Wd_jj needs only the
// groups i and j of its h, and h_j = SiLU(x_i Wg_ij + x_j Wg_jj) ⊙ (x_i Wu_ij + x_j Wu_jj) only the
// groups i and j of its x. So a CTA that owns 64 rows of type i and a run of output groups j can
// compute h_i once (kept as mma A fragments), then per j: h_j from its x_j and four W blocks, and
// y_j from h_i, h_j and two Wd blocks, with h_j never leaving registers on its way to the down
// product. The two-kernel form (64x32 mma.sync gate/up, then nl64x64) ran the 30B expert's FFN in
// 29.3 us (session 16, call 1), a quarter of its floor: two launches each of a few µs of latency
// around a few µs of bytes. H is still written (the API's M × F output), from the same BF16
// values the down product uses.
// Layout: 4 warps, warp w owns rows 16w..16w+16 of the CTA's 64 (rows are independent: no data
// crosses warps but the shared W tiles); every copy is a 16-byte cp.async into one of STAGES stages
// (x_j, Wg_ij, Wu_ij, Wg_jj, Wu_jj, Wd_ij, Wd_jj), pitches an odd number of 16-byte units so that
// ldmatrix's 8 rows fall in distinct banks. Rows past the type's c are zero-filled and not stored.
#include "mma_primitives.cuh"
#include "narrow_law.cuh"  // NarrowA, narrow_a_frags, narrow_mma1688, RowFormula

namespace qalg::gpu::detail {

constexpr int kFfnBM = 64;  // rows per CTA: 4 warps of 16
constexpr int kFfnThreads = 128;

struct NarrowFfn {
  uint32_t q = 0, c = 0;                 // groups, rows per type
  uint32_t run = 1, runs = 1;            // output groups per CTA; runs per (type, row block)
  uint32_t row_blocks = 1;               // ceil(c / 64)
  uint32_t D = 0, F = 0;                 // the row pitches of X and Y (D), of H (F)
};

// An odd number of 16-byte units at least w elements wide.
constexpr int ffn_pitch(int w) { return ((w + 7) / 8) % 2 == 1 ? (w + 7) / 8 * 8 : (w + 7) / 8 * 8 + 8; }

template <int SD, int RF>
struct FfnLayout {
  static_assert(SD == 32 || SD == 64, "input groups of 32 or 64 (x tiles as nl64x64's, an even number of n8 pairs)");
  static_assert(RF % 8 == 0 && RF >= 8 && RF <= 64, "output groups a multiple of 8, at most 64");
  static constexpr int kXPitch = ffn_pitch(SD);  // = kNarrowXRow<SD> (narrow_a_frags reads it)
  static_assert(kXPitch == kNarrowXRow<SD>, "x tile pitch must match narrow_a_frags");
  static constexpr int kWPitch = ffn_pitch(RF);  // gate/up blocks: SD rows × RF
  static constexpr int kDPitch = ffn_pitch(SD);  // down blocks: RF rows × SD
  static constexpr int kOPitch = ffn_pitch(SD > RF ? SD : RF);
  static constexpr int kX = kFfnBM * kXPitch, kW = SD * kWPitch, kDn = RF * kDPitch;
  static constexpr int kStage = kX + 4 * kW + 2 * kDn;
  // The prologue's x_i tile and Wg_ii, Wu_ii share their room with the warps' output staging:
  // they are read (into registers) before the main loop's first barrier, staging comes after it.
  static constexpr int kPro = kX + 2 * kW, kOut = 16 * kOPitch;
  static constexpr int kShared = kPro > 4 * kOut ? kPro : 4 * kOut;
  template <int STAGES>
  static constexpr size_t bytes() {
    return size_t(STAGES * kStage + kShared) * 2 + kFfnBM * 8;  // + the 64 rows' indices
  }
};

__device__ __forceinline__ void ffn_ldmatrix_x2_trans(uint32_t (&r)[2], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(smem_addr(p)));
}

// acc += A (16 × SD, this warp's rows) · the SD × RF block at sw (pitch P).
template <typename T, int SD, int RF, int P>
__device__ __forceinline__ void ffn_gate_mma(const NarrowA<SD>& a, const T* sw, float (&acc)[RF / 8][4]) {
  const int lane = threadIdx.x % 32;
  const T* base = sw + ((lane % 8) + ((lane / 8) % 2) * 8) * P;
#pragma unroll
  for (int k = 0; k < SD / 16; ++k) {
#pragma unroll
    for (int np = 0; np < RF / 16; ++np) {
      uint32_t b[4];
      ldmatrix_x4_trans(b, base + k * 16 * P + (lane / 16) * 8 + np * 16);
      mma16816<T>(acc[2 * np], a.k16[k], b[0], b[1]);
      mma16816<T>(acc[2 * np + 1], a.k16[k], b[2], b[3]);
    }
    if constexpr (RF % 16 == 8) {  // the last n8 tile alone (lanes 16-31's addresses unused)
      uint32_t b[2];
      ffn_ldmatrix_x2_trans(b, base + k * 16 * P + (RF - 8));
      mma16816<T>(acc[RF / 8 - 1], a.k16[k], b[0], b[1]);
    }
  }
}

// h (16 × RF, BF16/FP16 as the mma A operand of the down product): the C fragments of two
// adjacent n8 tiles are exactly an m16n8k16 A fragment (rows g, g + 8; k pairs 2 (lane % 4)), and
// one n8 tile an m16n8k8 one.
template <int RF>
struct FfnH {
  uint32_t k16[RF / 16 > 0 ? RF / 16 : 1][4];
  uint32_t k8[2];
};
template <typename T>
__device__ __forceinline__ uint32_t ffn_pack(float a, float b) {
  __align__(4) T pair[2] = {from_float<T>(a), from_float<T>(b)};
  return *reinterpret_cast<const uint32_t*>(pair);
}
template <typename T, int RF>
__device__ __forceinline__ void ffn_make_h(const float (&g)[RF / 8][4], const float (&u)[RF / 8][4], FfnH<RF>& h) {
#pragma unroll
  for (int t = 0; t < RF / 8; ++t) {
    const uint32_t lo = ffn_pack<T>(silu_mul(g[t][0], u[t][0]), silu_mul(g[t][1], u[t][1]));
    const uint32_t hi = ffn_pack<T>(silu_mul(g[t][2], u[t][2]), silu_mul(g[t][3], u[t][3]));
    if (t / 2 < RF / 16) {
      h.k16[t / 2][(t % 2) * 2] = lo;
      h.k16[t / 2][(t % 2) * 2 + 1] = hi;
    } else {
      h.k8[0] = lo, h.k8[1] = hi;
    }
  }
}
// h into this warp's staging (16 × RF at pitch OP), the inverse of ffn_make_h's placement.
template <int RF, int OP, typename T>
__device__ __forceinline__ void ffn_stage_h(T* so, const FfnH<RF>& h) {
  const int lane = threadIdx.x % 32, row = lane / 4, col = 2 * (lane % 4);
#pragma unroll
  for (int t = 0; t < RF / 8; ++t) {
    const uint32_t lo = t / 2 < RF / 16 ? h.k16[t / 2 < RF / 16 ? t / 2 : 0][(t % 2) * 2] : h.k8[0];
    const uint32_t hi = t / 2 < RF / 16 ? h.k16[t / 2 < RF / 16 ? t / 2 : 0][(t % 2) * 2 + 1] : h.k8[1];
    *reinterpret_cast<uint32_t*>(so + row * OP + t * 8 + col) = lo;
    *reinterpret_cast<uint32_t*>(so + (row + 8) * OP + t * 8 + col) = hi;
  }
}

// acc += h (16 × RF) · the RF × SD block at sd (pitch P).
template <typename T, int SD, int RF, int P>
__device__ __forceinline__ void ffn_down_mma(const FfnH<RF>& h, const T* sd, float (&acc)[SD / 8][4]) {
  const int lane = threadIdx.x % 32;
  const T* base = sd + ((lane % 8) + ((lane / 8) % 2) * 8) * P + (lane / 16) * 8;
#pragma unroll
  for (int k = 0; k < RF / 16; ++k) {
#pragma unroll
    for (int np = 0; np < SD / 16; ++np) {
      uint32_t b[4];
      ldmatrix_x4_trans(b, base + k * 16 * P + np * 16);
      mma16816<T>(acc[2 * np], h.k16[k], b[0], b[1]);
      mma16816<T>(acc[2 * np + 1], h.k16[k], b[2], b[3]);
    }
  }
  if constexpr (RF % 16 == 8) {  // the last 8 rows of the block: m16n8k8, four n8 tiles per ldmatrix
    const T* b8 = sd + (RF - 8 + lane % 8) * P + (lane / 8) * 8;
#pragma unroll
    for (int nq = 0; nq < SD / 32; ++nq) {
      uint32_t b[4];
      ldmatrix_x4_trans(b, b8 + nq * 32);
#pragma unroll
      for (int t = 0; t < 4; ++t) narrow_mma1688<T>(acc[4 * nq + t], h.k8, b[t]);
    }
  }
}

// This warp's staged 16 × W tile (pitch OP) to rows srow[0..16) of dst (pitch ld, from column c0),
// 16 bytes per lane; rows with index -1 (past the type's c) are not written.
template <int W, int OP, typename T>
__device__ __forceinline__ void ffn_store_rows(T* dst, uint64_t ld, uint64_t c0, const T* so, const int64_t* srow) {
  constexpr int kChunks = W / 8;
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int e = lane; e < 16 * kChunks; e += 32) {
    const int row = e / kChunks, ch = e % kChunks;
    const int64_t m = srow[row];
    if (m >= 0) *reinterpret_cast<uint4*>(dst + uint64_t(m) * ld + c0 + ch * 8) = *reinterpret_cast<const uint4*>(so + row * OP + ch * 8);
  }
}

template <typename T, int SD, int RF, int STAGES, int MINB>
__global__ void __launch_bounds__(kFfnThreads, MINB)
    narrow_ffn_kernel(NarrowFfn L, RowFormula f, const T* __restrict__ X, const T* __restrict__ Wg, const T* __restrict__ Wu,
                      const T* __restrict__ Wd, T* __restrict__ H, T* __restrict__ Y) {
  using Lay = FfnLayout<SD, RF>;
  constexpr int kXP = Lay::kXPitch, kWP = Lay::kWPitch, kDP = Lay::kDPitch, kOP = Lay::kOPitch;
  constexpr int kXC = SD / 8;                                   // 16-byte chunks per x row
  constexpr int kXPer = (kFfnBM * kXC + kFfnThreads - 1) / kFfnThreads;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  T* stages = reinterpret_cast<T*>(smem_raw);
  T* shared = stages + STAGES * Lay::kStage;
  T* sxi = shared;
  T* sgi = sxi + Lay::kX;
  T* sui = sgi + Lay::kW;
  int64_t* srow = reinterpret_cast<int64_t*>(shared + Lay::kShared);
  const int tid = threadIdx.x, warp = tid / 32;
  T* so = shared + warp * Lay::kOut;

  uint32_t idx = blockIdx.x;
  const uint32_t rb = idx % L.row_blocks;
  idx /= L.row_blocks;
  const uint32_t run = idx % L.runs, i = idx / L.runs;
  const uint32_t k0 = rb * kFfnBM, j0 = run * L.run;
  const uint32_t units = min(L.run, L.q - j0);
  const uint64_t D = L.D, F = L.F;

  if (tid < kFfnBM) {
    const uint32_t k = k0 + tid;
    srow[tid] = k < L.c ? int64_t(f.row(i * L.c + k)) : -1;
  }
  int64_t xoff[kXPer];  // this thread's x chunks: row · D + column in the group, -1 past c
  uint32_t xdst[kXPer];
#pragma unroll
  for (int e = 0; e < kXPer; ++e) {
    const int cidx = tid + e * kFfnThreads, row = cidx / kXC, col = (cidx % kXC) * 8;
    const uint32_t k = k0 + uint32_t(row);
    xoff[e] = row < kFfnBM && k < L.c ? int64_t(f.row(i * L.c + k)) * int64_t(D) + col : -1;
    xdst[e] = row < kFfnBM ? uint32_t(row * kXP + col) : 0xffffffffu;
  }
  auto load_x = [&](T* tile, uint32_t g) {
#pragma unroll
    for (int e = 0; e < kXPer; ++e)
      if (xdst[e] != 0xffffffffu) cp_async16(tile + xdst[e], xoff[e] >= 0 ? X + xoff[e] + g * SD : X, xoff[e] >= 0);
  };
  // The SD × RF blocks (a, j) of Wg and Wu into tiles dst, dst + kW (a = i) or (a = j) ...
  auto load_gate = [&](T* dst, uint32_t a, uint32_t j) {
    constexpr int kC = RF / 8, kTile = SD * kC;
#pragma unroll
    for (int e = tid; e < 2 * kTile; e += kFfnThreads) {
      const int m = e / kTile, rem = e % kTile, row = rem / kC, col = (rem % kC) * 8;
      const T* src = (m == 0 ? Wg : Wu) + (uint64_t(a) * SD + row) * F + uint64_t(j) * RF + col;
      cp_async16(dst + m * Lay::kW + row * kWP + col, src, true);
    }
  };
  // ... and the RF × SD block (a, j) of Wd.
  auto load_down = [&](T* dst, uint32_t a, uint32_t j) {
    constexpr int kC = SD / 8, kTile = RF * kC;
#pragma unroll
    for (int e = tid; e < kTile; e += kFfnThreads) {
      const int row = e / kC, col = (e % kC) * 8;
      cp_async16(dst + row * kDP + col, Wd + (uint64_t(a) * RF + row) * D + uint64_t(j) * SD + col, true);
    }
  };
  // A unit (output group j): x_j, Wg/Wu_ij, Wg/Wu_jj, Wd_ij, Wd_jj; j = i needs only Wd_ii.
  auto load_unit = [&](uint32_t j, uint32_t slot) {
    T* st = stages + slot * Lay::kStage;
    if (j != i) {
      load_x(st, j);
      load_gate(st + Lay::kX, i, j);
      load_gate(st + Lay::kX + 2 * Lay::kW, j, j);
      load_down(st + Lay::kX + 4 * Lay::kW + Lay::kDn, j, j);
    }
    load_down(st + Lay::kX + 4 * Lay::kW, i, j);
  };

  load_x(sxi, i);
  load_gate(sgi, i, i);
  cp_async_commit();
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (uint32_t(s) < units) load_unit(j0 + s, s);
    cp_async_commit();
  }
  cp_async_wait<STAGES - 1>();  // the prologue's group
  __syncthreads();
  NarrowA<SD> afi;
  narrow_a_frags<SD>(sxi, afi);
  FfnH<RF> hi;
  {
    float g[RF / 8][4] = {}, u[RF / 8][4] = {};
    ffn_gate_mma<T, SD, RF, kWP>(afi, sgi, g);
    ffn_gate_mma<T, SD, RF, kWP>(afi, sui, u);
    ffn_make_h<T, RF>(g, u, hi);
  }

  for (uint32_t n = 0; n < units; ++n) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();  // unit n's stage has landed; every warp is done with the stage loaded next
    if (n + STAGES - 1 < units) load_unit(j0 + n + STAGES - 1, (n + STAGES - 1) % STAGES);
    cp_async_commit();
    const uint32_t j = j0 + n;
    const T* st = stages + (n % STAGES) * Lay::kStage;
    FfnH<RF> hj = hi;
    if (j != i) {
      float g[RF / 8][4] = {}, u[RF / 8][4] = {};
      ffn_gate_mma<T, SD, RF, kWP>(afi, st + Lay::kX, g);
      ffn_gate_mma<T, SD, RF, kWP>(afi, st + Lay::kX + Lay::kW, u);
      NarrowA<SD> afj;
      narrow_a_frags<SD>(st, afj);
      ffn_gate_mma<T, SD, RF, kWP>(afj, st + Lay::kX + 2 * Lay::kW, g);
      ffn_gate_mma<T, SD, RF, kWP>(afj, st + Lay::kX + 3 * Lay::kW, u);
      ffn_make_h<T, RF>(g, u, hj);
    }
    ffn_stage_h<RF, kOP>(so, hj);
    __syncwarp();
    ffn_store_rows<RF, kOP>(H, F, uint64_t(j) * RF, so, srow + warp * 16);
    float y[SD / 8][4] = {};
    ffn_down_mma<T, SD, RF, kDP>(hi, st + Lay::kX + 4 * Lay::kW, y);
    if (j != i) ffn_down_mma<T, SD, RF, kDP>(hj, st + Lay::kX + 4 * Lay::kW + Lay::kDn, y);
    __syncwarp();  // h's staging read by every lane before y overwrites it
    const int lane = tid % 32, row = lane / 4, col = 2 * (lane % 4);
#pragma unroll
    for (int t = 0; t < SD / 8; ++t) {
      *reinterpret_cast<uint32_t*>(so + row * kOP + t * 8 + col) = ffn_pack<T>(y[t][0], y[t][1]);
      *reinterpret_cast<uint32_t*>(so + (row + 8) * kOP + t * 8 + col) = ffn_pack<T>(y[t][2], y[t][3]);
    }
    __syncwarp();
    ffn_store_rows<SD, kOP>(Y, D, uint64_t(j) * SD, so, srow + warp * 16);
    __syncwarp();  // y's staging read before the next unit's h
  }
  cp_async_wait<0>();
}

}  // namespace qalg::gpu::detail
