#pragma once
// Decoding one row (SPEC §6 "decode kernel for one row (vector reductions)"): y_j = Σ_{k∈B(i,j)}
// c·x_k W_kj for a single x. One CTA per 64-column tile of one output group: 8 threads across the
// tile (8 columns each, 16-byte loads of W's rows), kGemvLanes lanes down the reduction, then a
// warp-shuffle and shared-memory sum over the lanes. (Twelfth session: the register form also comes
// in 32- and 16-column tiles and with 32 lanes; launch_ffn.cu picks the shape per plan.) Bytes of W read: only the blocks the type uses.
// Why 64 lanes and the terms walked as one flat row range (c folded into x): decoding is bound by
// how many loads are in flight, not by their bytes. With 32 lanes and one term after the other,
// the Qwen3-8B FFN decode (19 MB of weights, a 4.7 µs floor) took 34 µs: two or three dependent
// round trips per term.
// Ninth session: for the complete-graph law (every B(i, j) = {i, j}, coefficients 1, equal widths)
// a CTA takes its tile and its two W row ranges from blockIdx and the type (GemmArgs::decode_law),
// so that its first W loads issue at once instead of after two dependent loads (item, then terms);
// and the kernel is programmatic-dependent-launch aware: it lets its dependents launch as soon as it
// starts, and it issues its first batch of W loads BEFORE waiting for the grid it depends on, whose
// output (x) it reads only after the wait. Launched without the PDL attribute the wait returns at
// once (PTX ISA griddepcontrol), so one instantiation serves both.
#include "mbarrier.cuh"
#include "mma_primitives.cuh"
#include "work_list.hpp"

namespace qalg::gpu::detail {

constexpr int kGemvThreads = 512, kGemvCols = 64, kGemvLanes = 64;

// (grid_launch_dependents, grid_dependency_wait: mbarrier.cuh)

// Before the first read of x: the grid this one depends on is done (PDL: griddepcontrol.wait), or
// (kDecodeWaits, work_list.hpp DecodeLaw) the gate/up tiles of the two groups this CTA reads, i
// (the type) and j, are stored: each thread polls the two counters with relaxed loads at GPU scope
// and, once both are reached, makes one acq_rel fence (the PTX model's acquire pattern: a strong
// read, then the fence), so that its later loads of h see those stores. Why counters:
// griddepcontrol.wait waits for the whole gate/up grid and its memory flush; a group's down tiles
// need only two groups of h. Why not acquire loads in the loop: each compiles to an L1
// invalidation (CCTL.IVALL), repeated every ~64 ns beside the gate/up CTAs sharing the SM. Why a
// fence and not a last acquire load of each counter: that is one more round trip to L2 before h is
// read; the fence (MEMBAR.GPU) waits for this thread's W loads too, but where the CTA waited at all
// those loads, issued before the wait, have long returned.
__device__ __forceinline__ uint32_t ld_relaxed_gpu(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void decode_wait_inputs(const DecodeLaw& L, uint32_t i, uint32_t j) {
  if (L.role != kDecodeWaits) {
    grid_dependency_wait();
    return;
  }
  // A count that never arrives (a launch whose target does not match gate/up's grid) traps after
  // 2^24 polls, over a second, instead of hanging the stream: the host sees a launch failure.
  for (uint32_t polls = 0; ld_relaxed_gpu(L.ready + i) < L.target || ld_relaxed_gpu(L.ready + j) < L.target; ++polls) {
    if (polls == (1u << 24)) __trap();
    __nanosleep(64);
  }
  asm volatile("fence.acq_rel.gpu;\n" ::: "memory");
}

// The CTA's tile: columns [n_begin, + n_count) and the reduction depth; row(r) maps flat reduction
// index r < depth to (row of W, coefficient). From the list (items, terms) or, for the law, from
// the CTA index: output group j = blockIdx / tiles per group, rows i·s + r, then j·s + (r − s).
struct GemvTile {
  uint32_t n_begin = 0, n_count = 0, depth = 0;
  uint32_t term_begin = 0, i = 0, j = 0, s = 0;
  bool law = false;
  __device__ __forceinline__ uint32_t row(const GemmArgs& g, uint32_t r, float& c) const {
    if (law) {
      c = 1.0f;
      return r < s ? i * s + r : j * s + (r - s);
    }
    uint32_t t = term_begin;  // few terms, a short scan
    while (r >= g.terms[t].len) r -= g.terms[t++].len;
    c = g.terms[t].coef;
    return g.terms[t].a + r;
  }
};
template <int COLS>
__device__ __forceinline__ GemvTile gemv_tile(const GemmArgs& g) {
  GemvTile t;
  const DecodeLaw& L = g.decode_law;
  if (L.s != 0) {
    const uint32_t nt = (L.r + COLS - 1) / COLS, tile = blockIdx.x % nt;
    t.law = true, t.i = L.type, t.j = blockIdx.x / nt, t.s = L.s;
    t.n_begin = t.j * L.r + tile * COLS;
    t.n_count = L.r - tile * COLS < COLS ? L.r - tile * COLS : COLS;
    t.depth = t.i == t.j ? L.s : 2 * L.s;
    return t;
  }
  const WorkItem w = g.items[blockIdx.x];
  t.n_begin = w.n_begin, t.n_count = w.n_count, t.term_begin = w.term_begin;
  for (uint32_t k = 0; k < w.term_count; ++k) t.depth += g.terms[w.term_begin + k].len;
  return t;
}

// Eight consecutive elements of W as loaded: one 16-byte vector (16-bit types) or two (FP32).
// Kept raw until every load of a batch is issued: converting right after each load made every
// thread wait for it before issuing the next (one load in flight; the first version of the
// 64-lane kernel still took 30 µs for the Qwen3-8B FFN decode).
template <typename T>
struct Raw8 {
  uint4 v[sizeof(T) / 2];
};
template <typename T>
__device__ __forceinline__ void unpack8(const Raw8<T>& r, float (&v)[8]) {
  const T* e = reinterpret_cast<const T*>(r.v);
#pragma unroll
  for (int i = 0; i < 8; ++i) v[i] = to_float(e[i]);
}

template <typename T>
__device__ __forceinline__ void load8(const T* p, bool full, uint32_t n_left, float (&v)[8]) {
  const bool aligned = (reinterpret_cast<uintptr_t>(p) & 15) == 0;
  if (full && aligned) {
    if constexpr (sizeof(T) == 2) {
      const uint4 raw = __ldg(reinterpret_cast<const uint4*>(p));
      const T* e = reinterpret_cast<const T*>(&raw);
#pragma unroll
      for (int i = 0; i < 8; ++i) v[i] = to_float(e[i]);
    } else {
      const float4 a = __ldg(reinterpret_cast<const float4*>(p));
      const float4 b = __ldg(reinterpret_cast<const float4*>(p) + 1);
      v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w, v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
    }
  } else {
#pragma unroll
    for (int i = 0; i < 8; ++i) v[i] = uint32_t(i) < n_left ? to_float(p[i]) : 0.0f;
  }
}

// The lanes of a warp (tid bits above the column group) by shuffles, then the warps through
// shared memory; thread n < n_count stores column n (SiLU(gate)·up for the gated FFN).
template <typename T, int NB, int EPI, int COLS, int LANES = kGemvLanes>
__device__ __forceinline__ void reduce_and_store(const GemmArgs& g, const GemvTile& w, float (&acc)[NB][8],
                                                 float (&red)[NB][LANES / (32 / (COLS / 8))][COLS + 1]) {
  constexpr int kCG = COLS / 8, kWarpRows = 32 / kCG;
  const int tid = threadIdx.x, lane = tid / kCG;
  const uint32_t n0 = (tid % kCG) * 8;
#pragma unroll
  for (int b = 0; b < NB; ++b)
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
      for (int o = kCG; o < 32; o *= 2) acc[b][i] += __shfl_xor_sync(0xffffffffu, acc[b][i], o);
  if (lane % kWarpRows == 0)
#pragma unroll
    for (int b = 0; b < NB; ++b)
#pragma unroll
      for (int i = 0; i < 8; ++i) red[b][lane / kWarpRows][n0 + i] = acc[b][i];
  __syncthreads();
  if (tid < COLS && uint32_t(tid) < w.n_count) {
    float s[NB];
#pragma unroll
    for (int b = 0; b < NB; ++b) {
      s[b] = 0.0f;
      for (int l = 0; l < LANES / kWarpRows; ++l) s[b] += red[b][l][tid];
    }
    float v = s[0];
    if constexpr (EPI == kSiluMul) v = silu_mul(s[0], s[NB - 1]);
    static_cast<T*>(g.C)[w.n_begin + tid] = from_float<T>(v);
  }
  // kDecodeSignals: the tile is stored (every thread's stores before the barrier, then one
  // thread's fence and count: the release pattern of cooperative groups' grid sync).
  if (g.decode_law.role == kDecodeSignals) {
    __syncthreads();
    if (tid == 0) {
      __threadfence();
      atomicAdd(g.decode_law.ready + w.j, 1u);
    }
  }
  // kDecodeWaits: every thread of the CTA passed its wait before the barrier above; the last CTA
  // to get here clears the counters (no CTA of this grid reads them any more, and gate/up added
  // its last: every group has waiters).
  if (g.decode_law.role == kDecodeWaits && tid == 0) {
    const DecodeLaw& L = g.decode_law;
    if (atomicAdd(L.ready + L.q, 1u) + 1 == L.waiters)
      for (uint32_t k = 0; k <= L.q; ++k) L.ready[k] = 0;
  }
}

// args: A = x (one row), B0/B1 = W (and Wu), C = y; items[blockIdx.x] is (n_begin, n_count, terms),
// or decode_law names the law's widths and the type (items unused).
// COLS = 64 (512 threads) or 32 (256 threads; the launcher's choice when 64-column tiles would
// leave SMs idle, e.g. the 64 tiles of Qwen3-8B's down projection).
// UNROLL: rows per lane whose loads are all issued before the first is used. 4 keeps two CTAs per
// SM where the grid needs them; the launcher's "deep" batches (8 with gate and up, 12 alone) are
// for grids of at most one CTA per SM whose reductions are deeper than 4 · 64 rows: Qwen3-8B's down
// projection (768 rows, 128 CTAs) took three dependent round trips per CTA with 4, one with 12.
// LANES (twelfth session): 64, or 32 for a CTA of half the threads that takes twice the rows per
// lane (UNROLL 8), so that grids of more 64-column tiles than SMs fit in one wave at two CTAs per SM
// (the Qwen3-4B and -8B gate/up, 160 and 192 tiles, ran in two waves of one 512-thread CTA per SM).
// COLS 16: 32-byte row segments, for grids of few wider tiles (DeepSeek-V3's gate/up: 32 tiles of 64
// columns). A split of each tile's reduction over a thread-block cluster, the sums meeting in one
// CTA's shared memory (850a716), measured slower on every FFN decode and was dropped.
// MINB: the CTAs per SM the registers must allow (launch_ffn.cu's shape lists).
template <typename T, int NB, int EPI, int COLS = kGemvCols, int UNROLL = 4, int LANES = kGemvLanes,
          int MINB = (UNROLL > 4 ? 1 : (NB == 1 ? 2 : 1) * (kGemvCols / COLS))>
__global__ void __launch_bounds__(COLS / 8 * LANES, MINB) gemv_kernel(GemmArgs g) {
  constexpr int kCG = COLS / 8;        // column groups of 8 across the tile
  constexpr int kWarpRows = 32 / kCG;  // lanes per warp (a warp is kWarpRows lanes × kCG groups)
  static_assert(LANES % kWarpRows == 0, "whole warps down the reduction");
  __shared__ float red[NB][LANES / kWarpRows][COLS + 1];
  grid_launch_dependents();
  const GemvTile w = gemv_tile<COLS>(g);
  const int tid = threadIdx.x, cg = tid % kCG, lane = tid / kCG;
  const T* x = static_cast<const T*>(g.A);
  const uint32_t n0 = cg * 8;
  const bool active = n0 < w.n_count;
  const uint32_t n_left = active ? w.n_count - n0 : 0;
  const uint32_t depth = w.depth;
  float acc[NB][8] = {};
  // 16-byte loads for every row when the 8 columns are whole and every row start is aligned.
  const uint64_t col = uint64_t(w.n_begin) + n0;
  bool vec = active && n_left >= 8 && (g.ldb * sizeof(T)) % 16 == 0;
#pragma unroll
  for (int b = 0; b < NB; ++b)
    vec = vec && (reinterpret_cast<uintptr_t>(static_cast<const T*>(b == 0 ? g.B0 : g.B1) + col) & 15) == 0;
  constexpr int kUnroll = UNROLL;  // rows per lane and batch, all loads issued before the first use
  bool waited = false;  // x may be the output of the grid this one depends on (PDL): read it after the wait
  if (vec) {
    for (uint32_t r0 = lane; r0 < depth; r0 += LANES * kUnroll) {
      Raw8<T> wr[NB][kUnroll];
      T xr[kUnroll];
      float c[kUnroll];
      uint32_t row[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const uint32_t r = r0 + u * LANES;
        const bool in = r < depth;
        c[u] = 0.0f;
        row[u] = in ? w.row(g, r, c[u]) : 0;  // row 0 past the reduction: a valid x address
        // Slots past the reduction hold zeros, not row 0: c = 0 would not cancel a NaN or Inf there
        // (0 · Inf = NaN). A predicated load, issued with the batch: the SASS keeps all 8 / 12
        // 16-byte loads ahead of the first FMA. (A first fix, an early `break` in the sum, ran in a
        // build that measured 8.2 -> 9.6 µs on the Qwen3-1.7B FFN decode; that build also held
        // other changes, so the cause was not separated.)
#pragma unroll
        for (int b = 0; b < NB; ++b) {
          const T* W = static_cast<const T*>(b == 0 ? g.B0 : g.B1) + uint64_t(row[u]) * g.ldb + col;
#pragma unroll
          for (int h = 0; h < int(sizeof(T) / 2); ++h)
            wr[b][u].v[h] = in ? __ldg(reinterpret_cast<const uint4*>(W) + h) : make_uint4(0, 0, 0, 0);
        }
      }
      if (!waited) decode_wait_inputs(g.decode_law, w.i, w.j), waited = true;
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) xr[u] = x[row[u]];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const float xv = r0 + u * LANES < depth ? c[u] * to_float(xr[u]) : 0.0f;  // x[0] may be NaN too
#pragma unroll
        for (int b = 0; b < NB; ++b) {
          float wv[8];
          unpack8(wr[b][u], wv);
#pragma unroll
          for (int i = 0; i < 8; ++i) acc[b][i] = fmaf(xv, wv[i], acc[b][i]);
        }
      }
    }
  } else if (active) {  // partial or unaligned column groups: element loads
    decode_wait_inputs(g.decode_law, w.i, w.j);
    constexpr int kSlowUnroll = 1;  // within the register budget of two CTAs per SM
    for (uint32_t r0 = lane; r0 < depth; r0 += LANES * kSlowUnroll) {
      float xv[kSlowUnroll], wv[NB][kSlowUnroll][8];
#pragma unroll
      for (int u = 0; u < kSlowUnroll; ++u) {
        const uint32_t r = r0 + u * LANES;
        const bool in = r < depth;
        float c = 0.0f;
        const uint32_t row = in ? w.row(g, r, c) : 0;
        xv[u] = in ? c * to_float(x[row]) : 0.0f;
#pragma unroll
        for (int b = 0; b < NB; ++b) {
          const T* W = static_cast<const T*>(b == 0 ? g.B0 : g.B1);
          if (in) {
            load8(W + uint64_t(row) * g.ldb + w.n_begin + n0, n_left >= 8, n_left, wv[b][u]);
          } else {
#pragma unroll
            for (int i = 0; i < 8; ++i) wv[b][u][i] = 0.0f;
          }
        }
      }
#pragma unroll
      for (int u = 0; u < kSlowUnroll; ++u)
#pragma unroll
        for (int b = 0; b < NB; ++b)
#pragma unroll
          for (int i = 0; i < 8; ++i) acc[b][i] = fmaf(xv[u], wv[b][u][i], acc[b][i]);
    }
  }
  reduce_and_store<T, NB, EPI, COLS, LANES>(g, w, acc, red);
}

// The staged form (16-bit types, every row segment a multiple of 16 bytes, the tile's W fitting
// in shared memory): at its start the CTA copies its whole W tile (depth rows × n_count columns of
// each of the NB matrices) into shared memory, then (after the PDL wait) stages c·x of its rows in
// shared memory, and reduces from shared memory. Why: the register form holds at most 8 rows ×
// 16 bytes per thread in flight (64 KB per 512-thread CTA, 1 CTA per SM for gate/up at 104
// registers: the Qwen3-8B gate/up decode ran in two waves and its down projection, 768 rows deep,
// in three round trips per CTA); staged, all of a decode's weight bytes (19 MB for the Qwen3-8B
// FFN) can be in flight at once, and the PDL-launched down projection issues its copies while
// gate/up still runs. Two copy paths (`bulk`): one cp.async.bulk per row and matrix completing on
// one mbarrier (the copy engine), or 16-byte cp.async by every thread (measured first on the H200:
// the bulk path was slower than the register form on every FFN decode, 12.1 against 9.5 µs for
// Qwen3-1.7B; 64- and 128-byte copies are too small for the copy engine to pay).
// Dynamic shared memory: NB · depth_max · COLS · sizeof(T) bytes of W, then depth_max floats of c·x.
template <typename T, int NB, int EPI, int COLS = kGemvCols>
__global__ void __launch_bounds__(COLS / 8 * kGemvLanes) gemv_staged_kernel(GemmArgs g, uint32_t depth_max, uint32_t bulk) {
  static_assert(sizeof(T) == 2, "staged decode: 16-bit types");
  constexpr int kCG = COLS / 8, kWarpRows = 32 / kCG, kThreads = COLS / 8 * kGemvLanes;
  constexpr uint32_t kPitch = COLS * sizeof(T);  // bytes of one staged W row
  extern __shared__ __align__(128) unsigned char gemv_smem[];
  __shared__ float red[NB][kGemvLanes / kWarpRows][COLS + 1];
  __shared__ uint64_t bar;
  grid_launch_dependents();
  const GemvTile w = gemv_tile<COLS>(g);
  const int tid = threadIdx.x, cg = tid % kCG, lane = tid / kCG;
  const uint32_t depth = w.depth, bytes = w.n_count * uint32_t(sizeof(T));
  float* xs = reinterpret_cast<float*>(gemv_smem + size_t(NB) * depth_max * kPitch);
  if (bulk) {
    if (tid == 0) {
      mbar_init(&bar, 1);
      mbar_init_fence();
      mbar_arrive_expect_tx(&bar, NB * depth * bytes);
    }
    __syncthreads();
    for (uint32_t e = tid; e < NB * depth; e += kThreads) {
      const uint32_t b = e / depth, r = e % depth;
      float c;
      const uint32_t row = w.row(g, r, c);
      const T* src = static_cast<const T*>(b == 0 ? g.B0 : g.B1) + uint64_t(row) * g.ldb + w.n_begin;
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                       smem_addr(gemv_smem + (size_t(b) * depth_max + r) * kPitch)),
                   "l"(src), "r"(bytes), "r"(smem_addr(&bar))
                   : "memory");
    }
  } else {  // 16-byte chunks, consecutive threads along a row: a warp copies 512 contiguous bytes
    const uint32_t per_row = w.n_count / 8;
    for (uint32_t e = tid; e < NB * depth * per_row; e += kThreads) {
      const uint32_t b = e / (depth * per_row), rest = e % (depth * per_row), r = rest / per_row, ch = rest % per_row;
      float c;
      const uint32_t row = w.row(g, r, c);
      const T* src = static_cast<const T*>(b == 0 ? g.B0 : g.B1) + uint64_t(row) * g.ldb + w.n_begin + ch * 8;
      cp_async16(gemv_smem + (size_t(b) * depth_max + r) * kPitch + ch * 16, src, true);
    }
    cp_async_commit();
  }
  grid_dependency_wait();  // x may be the output of the grid this one depends on (PDL)
  const T* x = static_cast<const T*>(g.A);
  for (uint32_t r = tid; r < depth; r += kThreads) {
    float c;
    const uint32_t row = w.row(g, r, c);
    xs[r] = c * to_float(x[row]);
  }
  if (bulk) {
    mbar_wait(&bar, 0);
  } else {
    cp_async_wait<0>();
  }
  __syncthreads();  // every thread's xs entries and (cp.async) W chunks
  float acc[NB][8] = {};
  const uint32_t n0 = cg * 8;
  if (n0 < w.n_count) {
    constexpr int kUnroll = 4;
    for (uint32_t r0 = lane; r0 < depth; r0 += kGemvLanes * kUnroll) {
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const uint32_t r = r0 + u * kGemvLanes;
        if (r >= depth) break;
        const float xv = xs[r];
#pragma unroll
        for (int b = 0; b < NB; ++b) {
          Raw8<T> raw;
          raw.v[0] = *reinterpret_cast<const uint4*>(gemv_smem + (size_t(b) * depth_max + r) * kPitch + n0 * sizeof(T));
          float wv[8];
          unpack8(raw, wv);
#pragma unroll
          for (int i = 0; i < 8; ++i) acc[b][i] = fmaf(xv, wv[i], acc[b][i]);
        }
      }
    }
  }
  reduce_and_store<T, NB, EPI, COLS>(g, w, acc, red);
}

}  // namespace qalg::gpu::detail
