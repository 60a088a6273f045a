#pragma once
// The CUDA-core kernel for FP32 inputs (exact FP32 FMA, the 1e-5 tolerance rules out TF32) and
// for BF16/FP16 plans whose widths are not multiples of 8. Same work items and terms as the
// tensor-core kernel; element-wise bounds checks, so any width works.
//   partition: 256 threads, 16×16, each a 4×4 block of a 64×64 tile
//   copy:      element loads converted to FP32 into shared memory (A transposed to [k][m])
//   compute:   FP32 FMA; epilogue as in tc_gemm.cuh
#include "mma_primitives.cuh"
#include "split_k.cuh"
#include "work_list.hpp"

namespace qalg::gpu::detail {

constexpr int kSimtThreads = 256, kSimtBM = 64, kSimtBN = 64, kSimtBK = 16;

template <typename T, int MODE, int NB, int EPI>
__global__ void __launch_bounds__(kSimtThreads) simt_gemm_kernel(GemmArgs g) {
  __shared__ float sA[kSimtBK][kSimtBM + 4];
  __shared__ float sB[NB][kSimtBK][kSimtBN + 4];
  __shared__ uint32_t sRow[kSimtBM];
  const WorkItem w = g.items[blockIdx.x];
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const T* A = static_cast<const T*>(g.A);
  if (MODE != kGradW && tid < kSimtBM) sRow[tid] = uint32_t(tid) < w.m_count ? g.rows[w.m_begin + tid] : 0;

  float acc[NB][4][4] = {};
  float coef = 1.0f;
  bool first = true;
  for (uint32_t t = 0; t < w.term_count; ++t) {
    const Term term = g.terms[w.term_begin + t];
    if (term.len == 0) continue;
    if (first) {
      coef = term.coef;
      first = false;
    } else if (term.coef != coef) {
      const float f = coef / term.coef;
      for (int b = 0; b < NB; ++b)
        for (int i = 0; i < 4; ++i)
          for (int j = 0; j < 4; ++j) acc[b][i][j] *= f;
      coef = term.coef;
    }
    for (uint32_t k0 = 0; k0 < term.len; k0 += kSimtBK) {
      __syncthreads();
      for (int e = tid; e < kSimtBK * kSimtBM; e += kSimtThreads) {
        float v = 0.0f;
        if constexpr (MODE == kGradW) {
          const int kk = e / kSimtBM, m = e % kSimtBM;
          if (k0 + kk < term.len && uint32_t(m) < w.m_count)
            v = to_float(A[uint64_t(g.rows[term.a + k0 + kk]) * g.lda + w.m_begin + m]);
          sA[kk][m] = v;
        } else {
          const int m = e / kSimtBK, kk = e % kSimtBK;
          if (k0 + kk < term.len && uint32_t(m) < w.m_count)
            v = to_float(A[uint64_t(sRow[m]) * g.lda + term.a + k0 + kk]);
          sA[kk][m] = v;
        }
      }
      for (int b = 0; b < NB; ++b) {
        const T* B = static_cast<const T*>(b == 0 ? g.B0 : g.B1);
        for (int e = tid; e < kSimtBK * kSimtBN; e += kSimtThreads) {
          float v = 0.0f;
          if constexpr (MODE == kGradX) {
            const int n = e / kSimtBK, kk = e % kSimtBK;
            if (k0 + kk < term.len && uint32_t(n) < w.n_count)
              v = to_float(B[uint64_t(w.n_begin + n) * g.ldb + term.a + k0 + kk]);
            sB[b][kk][n] = v;
          } else {
            const int kk = e / kSimtBN, n = e % kSimtBN;
            if (k0 + kk < term.len && uint32_t(n) < w.n_count) {
              const uint64_t krow = (MODE == kGradW) ? g.rows[term.a + k0 + kk] : term.a + k0 + kk;
              v = to_float(B[krow * g.ldb + w.n_begin + n]);
            }
            sB[b][kk][n] = v;
          }
        }
      }
      __syncthreads();
#pragma unroll
      for (int kk = 0; kk < kSimtBK; ++kk) {
        float a[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) a[i] = sA[kk][ty * 4 + i];
#pragma unroll
        for (int b = 0; b < NB; ++b)
#pragma unroll
          for (int j = 0; j < 4; ++j) {
            const float bv = sB[b][kk][tx * 4 + j];
#pragma unroll
            for (int i = 0; i < 4; ++i) acc[b][i][j] = fmaf(a[i], bv, acc[b][i][j]);
          }
      }
    }
  }
  __syncthreads();
  for (int i = 0; i < 4; ++i) {
    const uint32_t m = ty * 4 + i;
    if (m >= w.m_count) continue;
    const uint64_t row = (MODE == kGradW) ? uint64_t(w.m_begin) + m : uint64_t(sRow[m]);
    for (int j = 0; j < 4; ++j) {
      const uint32_t n = tx * 4 + j;
      if (n >= w.n_count) continue;
      const uint64_t idx = row * g.ldc + w.n_begin + n;
      float v = acc[0][i][j] * coef;
      if constexpr (EPI == kStore) {
        if (w.slot != 0) {  // a split-K chunk: add into its FP32 slot (work_list.hpp)
          atomicAdd(g.partial + size_t(w.slot - 1) * (kSimtBM * kSimtBN) + m * kSimtBN + n, v);
          continue;
        }
      }
      if constexpr (EPI == kStoreF32) {
        static_cast<float*>(g.C)[idx] = v;
      } else {
        if constexpr (EPI == kDiagAdd) {
          if (w.diag != 0.0f) v += w.diag * g.ws[idx];
        }
        if constexpr (EPI == kSiluMul) v = silu_mul(v, acc[NB - 1][i][j] * coef);
        static_cast<T*>(g.C)[idx] = from_float<T>(v);
      }
    }
  }
  if constexpr (EPI == kStore) {
    if (w.slot != 0) finish_split_chunk<T, MODE>(g, w.slot - 1, kSimtBM, kSimtBN);
  }
}

}  // namespace qalg::gpu::detail
