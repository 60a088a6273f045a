#pragma once
// Decoding one row (SPEC §6 "decode kernel for one row (vector reductions)"): y_j = Σ_{k∈B(i,j)}
// c·x_k W_kj for a single x. One CTA per 64-column tile of one output group: 8 threads across the
// tile (8 columns each, 16-byte loads of W's rows), 32 lanes down the reduction, then a shared-
// memory sum over the lanes. Bytes of W read: only the blocks the type uses.
#include "mma_primitives.cuh"
#include "work_list.hpp"

namespace qalg::gpu::detail {

constexpr int kGemvThreads = 256, kGemvCols = 64, kGemvLanes = 32;

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
template <typename T, int NB, int EPI>
__global__ void __launch_bounds__(kGemvThreads) gemv_kernel(GemmArgs g) {
  __shared__ float red[NB][kGemvLanes][kGemvCols + 1];
  const WorkItem w = g.items[blockIdx.x];
  const int tid = threadIdx.x, cg = tid % 8, lane = tid / 8;
  const T* x = static_cast<const T*>(g.A);
  const uint32_t n0 = cg * 8;
  const bool active = n0 < w.n_count;
  const uint32_t n_left = active ? w.n_count - n0 : 0;
  float acc[NB][8] = {};
  for (uint32_t t = 0; t < w.term_count; ++t) {
    const Term term = g.terms[w.term_begin + t];
    float part[NB][8] = {};
    if (active) {
      // kUnroll rows per batch, all loads issued before the first use: decoding is bound by
      // the latency of these loads, not by their bytes.
      constexpr int kUnroll = 4;
      for (uint32_t k0 = lane; k0 < term.len; k0 += kGemvLanes * kUnroll) {
        float xv[kUnroll], wv[NB][kUnroll][8];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const uint32_t k = k0 + u * kGemvLanes;
          const bool in = k < term.len;
          xv[u] = in ? to_float(x[term.a + k]) : 0.0f;
#pragma unroll
          for (int b = 0; b < NB; ++b) {
            const T* W = static_cast<const T*>(b == 0 ? g.B0 : g.B1);
            if (in) {
              load8(W + uint64_t(term.a + k) * g.ldb + w.n_begin + n0, n_left >= 8, n_left, wv[b][u]);
            } else {
#pragma unroll
              for (int i = 0; i < 8; ++i) wv[b][u][i] = 0.0f;
            }
          }
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u)
#pragma unroll
          for (int b = 0; b < NB; ++b)
#pragma unroll
            for (int i = 0; i < 8; ++i) part[b][i] = fmaf(xv[u], wv[b][u][i], part[b][i]);
      }
    }
#pragma unroll
    for (int b = 0; b < NB; ++b)
#pragma unroll
      for (int i = 0; i < 8; ++i) acc[b][i] = fmaf(term.coef, part[b][i], acc[b][i]);
  }
#pragma unroll
  for (int b = 0; b < NB; ++b)
#pragma unroll
    for (int i = 0; i < 8; ++i) red[b][lane][n0 + i] = acc[b][i];
  __syncthreads();
  if (tid < kGemvCols && uint32_t(tid) < w.n_count) {
    float s[NB];
#pragma unroll
    for (int b = 0; b < NB; ++b) {
      s[b] = 0.0f;
      for (int l = 0; l < kGemvLanes; ++l) s[b] += red[b][l][tid];
    }
    float v = s[0];
    if constexpr (EPI == kSiluMul) v = silu_mul(s[0], s[NB - 1]);
    static_cast<T*>(g.C)[w.n_begin + tid] = from_float<T>(v);
  }
}

}  // namespace qalg::gpu::detail
