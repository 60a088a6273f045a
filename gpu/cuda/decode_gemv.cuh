#pragma once
// Decoding one row (SPEC §6 "decode kernel for one row (vector reductions)"): y_j = Σ_{k∈B(i,j)}
// c·x_k W_kj for a single x. One CTA per 64-column tile of one output group: 8 threads across the
// tile (8 columns each, 16-byte loads of W's rows), kGemvLanes lanes down the reduction, then a
// warp-shuffle and shared-memory sum over the lanes. Bytes of W read: only the blocks the type uses.
// Why 64 lanes and the terms walked as one flat row range (c folded into x): decoding is bound by
// how many loads are in flight, not by their bytes. With 32 lanes and one term after the other,
// the Qwen3-8B FFN decode (19 MB of weights, a 4.7 µs floor) took 34 µs: two or three dependent
// round trips per term.
#include "mma_primitives.cuh"
#include "work_list.hpp"

namespace qalg::gpu::detail {

constexpr int kGemvThreads = 512, kGemvCols = 64, kGemvLanes = 64;

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

// args: A = x (one row), B0/B1 = W (and Wu), C = y; items[blockIdx.x] is (n_begin, n_count, terms).
// COLS = 64 (512 threads) or 32 (256 threads; the launcher's choice when 64-column tiles would
// leave SMs idle, e.g. the 64 tiles of Qwen3-8B's down projection).
template <typename T, int NB, int EPI, int COLS = kGemvCols>
__global__ void __launch_bounds__(COLS / 8 * kGemvLanes, (NB == 1 ? 2 : 1) * (kGemvCols / COLS))
    gemv_kernel(GemmArgs g) {
  constexpr int kCG = COLS / 8;        // column groups of 8 across the tile
  constexpr int kWarpRows = 32 / kCG;  // lanes per warp (a warp is kWarpRows lanes × kCG groups)
  __shared__ float red[NB][kGemvLanes / kWarpRows][COLS + 1];
  const WorkItem w = g.items[blockIdx.x];
  const int tid = threadIdx.x, cg = tid % kCG, lane = tid / kCG;
  const T* x = static_cast<const T*>(g.A);
  const uint32_t n0 = cg * 8;
  const bool active = n0 < w.n_count;
  const uint32_t n_left = active ? w.n_count - n0 : 0;
  uint32_t depth = 0;
  for (uint32_t t = 0; t < w.term_count; ++t) depth += g.terms[w.term_begin + t].len;
  float acc[NB][8] = {};
  // 16-byte loads for every row when the 8 columns are whole and every row start is aligned.
  const uint64_t col = uint64_t(w.n_begin) + n0;
  bool vec = active && n_left >= 8 && (g.ldb * sizeof(T)) % 16 == 0;
#pragma unroll
  for (int b = 0; b < NB; ++b)
    vec = vec && (reinterpret_cast<uintptr_t>(static_cast<const T*>(b == 0 ? g.B0 : g.B1) + col) & 15) == 0;
  constexpr int kUnroll = 4;  // rows per lane and batch, all loads issued before the first use
  if (vec) {
    for (uint32_t r0 = lane; r0 < depth; r0 += kGemvLanes * kUnroll) {
      Raw8<T> wr[NB][kUnroll];
      T xr[kUnroll];
      float c[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        uint32_t r = r0 + u * kGemvLanes;
        const bool in = r < depth;
        uint32_t row = 0;
        c[u] = 0.0f;
        if (in) {  // flat row r → (term, row of W): few terms, a short scan
          uint32_t t = w.term_begin;
          while (r >= g.terms[t].len) r -= g.terms[t++].len;
          row = g.terms[t].a + r;
          c[u] = g.terms[t].coef;
        }
        xr[u] = x[row];  // row 0 when out of range: a valid address, weighted by c = 0
#pragma unroll
        for (int b = 0; b < NB; ++b) {
          const T* W = static_cast<const T*>(b == 0 ? g.B0 : g.B1) + uint64_t(row) * g.ldb + col;
#pragma unroll
          for (int h = 0; h < int(sizeof(T) / 2); ++h) wr[b][u].v[h] = __ldg(reinterpret_cast<const uint4*>(W) + h);
        }
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const float xv = c[u] * to_float(xr[u]);
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
    constexpr int kSlowUnroll = 1;  // within the register budget of two CTAs per SM
    for (uint32_t r0 = lane; r0 < depth; r0 += kGemvLanes * kSlowUnroll) {
      float xv[kSlowUnroll], wv[NB][kSlowUnroll][8];
#pragma unroll
      for (int u = 0; u < kSlowUnroll; ++u) {
        uint32_t r = r0 + u * kGemvLanes;
        const bool in = r < depth;
        uint32_t row = 0;
        float c = 0.0f;
        if (in) {  // flat row r → (term, row of W): few terms, a short scan
          uint32_t t = w.term_begin;
          while (r >= g.terms[t].len) r -= g.terms[t++].len;
          row = g.terms[t].a + r;
          c = g.terms[t].coef;
        }
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
  // The lanes of a warp (tid bits above the column group) by shuffles, then the warps through
  // shared memory.
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
      for (int l = 0; l < kGemvLanes / kWarpRows; ++l) s[b] += red[b][l][tid];
    }
    float v = s[0];
    if constexpr (EPI == kSiluMul) v = silu_mul(s[0], s[NB - 1]);
    static_cast<T*>(g.C)[w.n_begin + tid] = from_float<T>(v);
  }
}

}  // namespace qalg::gpu::detail
