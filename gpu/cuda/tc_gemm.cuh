#pragma once
// The tensor-core kernel behind forward, dX, dW, block products and the gated FFN (BF16/FP16 in,
// FP32 accumulate). One CTA per work item: an output tile of BM rows × BN columns, summing the
// item's terms; the reduction steps of all terms form one cp.async pipeline of STAGES stages, so
// the two products of a Q_q tile (x_i W_ij and x_j W_jj) stream back to back.
//   partition: 4 warps in 2×2, each a (BM/2)×(BN/2) accumulator of m16n8 fragments
//   copy:      16-byte cp.async, zero-filled out of range; rows gathered through the row list
//   compute:   ldmatrix (+.trans) and mma.sync m16n8k16
//   epilogue:  coefficient, then store / store FP32 / add c·(x_j W_jj) / SiLU(g)·u
#include "mma_primitives.cuh"
#include "split_k.cuh"
#include "work_list.hpp"

namespace qalg::gpu::detail {

constexpr int kTcThreads = 128;  // the default 4 warps (2×2); 8 warps are 2×4
template <int W>
constexpr int kWarpsN = W / 2;
constexpr int kTcBK = 32;
constexpr int kTcStages = 4;
constexpr int kPad = 8;  // elements of padding per smem row: conflict-free ldmatrix

template <int MODE, int BM>
struct ATile {  // forward/dX: [BM][BK] from rows of A; dW: [BK][BM] from columns of X
  static constexpr int kRowElems = (MODE == kGradW) ? BM + kPad : kTcBK + kPad;
  static constexpr int kElems = (MODE == kGradW) ? kTcBK * kRowElems : BM * kRowElems;
};
template <int MODE, int BN>
struct BTile {  // forward/dW: [BK][BN]; dX reads W transposed: [BN][BK]
  static constexpr int kRowElems = (MODE == kGradX) ? kTcBK + kPad : BN + kPad;
  static constexpr int kElems = (MODE == kGradX) ? BN * kRowElems : kTcBK * kRowElems;
};

template <int MODE, int BM, int BN, int NB>
constexpr size_t tc_smem_bytes() {
  return size_t(kTcStages) * (ATile<MODE, BM>::kElems + NB * BTile<MODE, BN>::kElems) * 2;
}

// Forward/dX: each thread copies the same A rows at every step; their gathered offsets
// (row · lda, or -1 past the tile's rows) are looked up once per CTA.
template <int MODE, int BM, int VEC, int W>
struct ARows {
  static constexpr int kThreads = 32 * W;
  static constexpr int kPerThread = (MODE == kGradW) ? 1 : (BM * (kTcBK / VEC) + kThreads - 1) / kThreads;
  int64_t off[kPerThread];
  __device__ __forceinline__ void init(const GemmArgs& g, const WorkItem& w) {
    if constexpr (MODE != kGradW) {
#pragma unroll
      for (int i = 0; i < kPerThread; ++i) {
        const int r = (int(threadIdx.x) + i * kThreads) / (kTcBK / VEC);
        off[i] = uint32_t(r) < w.m_count ? int64_t(g.rows[w.m_begin + r]) * int64_t(g.lda) : -1;
      }
    }
  }
};

template <typename T, int MODE, int BM, int BN, int NB, int VEC, int W>
__device__ __forceinline__ void tc_load_stage(const GemmArgs& g, const WorkItem& w, const Term& t,
                                              uint32_t kk0, T* sA, T* sB,
                                              const ARows<MODE, BM, VEC, W>& arows) {
  constexpr int kTcThreads = 32 * W;
  const int tid = threadIdx.x;
  const T* A = static_cast<const T*>(g.A);
  if constexpr (MODE == kGradW) {
    constexpr int kChunks = kTcBK * (BM / VEC);
    for (int c = tid; c < kChunks; c += kTcThreads) {
      const int r = c / (BM / VEC), mc = c % (BM / VEC);
      const bool ok = kk0 + r < t.len && uint32_t(mc * VEC) < w.m_count;
      const T* src = ok ? A + uint64_t(g.rows[t.a + kk0 + r]) * g.lda + w.m_begin + mc * VEC : A;
      cp_async_vec<VEC>(sA + r * ATile<MODE, BM>::kRowElems + mc * VEC, src, ok);
    }
  } else {
    constexpr int kChunks = BM * (kTcBK / VEC);
#pragma unroll
    for (int i = 0; i < ARows<MODE, BM, VEC, W>::kPerThread; ++i) {
      const int c = tid + i * kTcThreads;
      if (kChunks % kTcThreads != 0 && c >= kChunks) break;
      const int r = c / (kTcBK / VEC), kc = c % (kTcBK / VEC);
      const bool ok = arows.off[i] >= 0 && kk0 + kc * VEC < t.len;
      const T* src = ok ? A + arows.off[i] + t.a + kk0 + kc * VEC : A;
      cp_async_vec<VEC>(sA + r * ATile<MODE, BM>::kRowElems + kc * VEC, src, ok);
    }
  }
#pragma unroll
  for (int b = 0; b < NB; ++b) {
    const T* B = static_cast<const T*>(b == 0 ? g.B0 : g.B1);
    T* sb = sB + b * BTile<MODE, BN>::kElems;
    if constexpr (MODE == kGradX) {
      constexpr int kChunks = BN * (kTcBK / VEC);
      for (int c = tid; c < kChunks; c += kTcThreads) {
        const int r = c / (kTcBK / VEC), kc = c % (kTcBK / VEC);
        const bool ok = uint32_t(r) < w.n_count && kk0 + kc * VEC < t.len;
        const T* src = ok ? B + uint64_t(w.n_begin + r) * g.ldb + t.a + kk0 + kc * VEC : B;
        cp_async_vec<VEC>(sb + r * BTile<MODE, BN>::kRowElems + kc * VEC, src, ok);
      }
    } else {
      constexpr int kChunks = kTcBK * (BN / VEC);
      for (int c = tid; c < kChunks; c += kTcThreads) {
        const int r = c / (BN / VEC), nc = c % (BN / VEC);
        const bool ok = kk0 + r < t.len && uint32_t(nc * VEC) < w.n_count;
        uint64_t krow = 0;
        if (ok) krow = (MODE == kGradW) ? g.rows[t.a + kk0 + r] : t.a + kk0 + r;
        const T* src = ok ? B + krow * g.ldb + w.n_begin + nc * VEC : B;
        cp_async_vec<VEC>(sb + r * BTile<MODE, BN>::kRowElems + nc * VEC, src, ok);
      }
    }
  }
}

template <typename T, int MODE, int BM, int BN, int NB, int W>
__device__ __forceinline__ void tc_compute_stage(const T* sA, const T* sB,
                                                 float (&acc)[NB][BM / 32][BN / kWarpsN<W> / 8][4]) {
  constexpr int MT = BM / 32, NT = BN / kWarpsN<W> / 8;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int wm = (warp / kWarpsN<W>) * (BM / 2), wn = (warp % kWarpsN<W>) * (BN / kWarpsN<W>);
#pragma unroll
  for (int k16 = 0; k16 < kTcBK; k16 += 16) {
    uint32_t af[MT][4];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
      const int m = wm + mt * 16;
      if constexpr (MODE == kGradW) {  // sA is [k][m]
        const int kr = k16 + (lane % 8) + (lane / 16) * 8, mc = m + ((lane / 8) % 2) * 8;
        ldmatrix_x4_trans(af[mt], sA + kr * ATile<MODE, BM>::kRowElems + mc);
      } else {  // sA is [m][k]
        const int mr = m + lane % 16, kc = k16 + (lane / 16) * 8;
        ldmatrix_x4(af[mt], sA + mr * ATile<MODE, BM>::kRowElems + kc);
      }
    }
#pragma unroll
    for (int b = 0; b < NB; ++b) {
      const T* sb = sB + b * BTile<MODE, BN>::kElems;
#pragma unroll
      for (int np = 0; np < NT / 2; ++np) {  // two n8 tiles per ldmatrix.x4
        const int n = wn + np * 16;
        uint32_t bf[4];
        if constexpr (MODE == kGradX) {  // sB is [n][k]
          const int nr = n + (lane % 8) + (lane / 16) * 8, kc = k16 + ((lane / 8) % 2) * 8;
          ldmatrix_x4(bf, sb + nr * BTile<MODE, BN>::kRowElems + kc);
        } else {  // sB is [k][n]
          const int kr = k16 + (lane % 8) + ((lane / 8) % 2) * 8, nc = n + (lane / 16) * 8;
          ldmatrix_x4_trans(bf, sb + kr * BTile<MODE, BN>::kRowElems + nc);
        }
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
          mma16816<T>(acc[b][mt][2 * np], af[mt], bf[0], bf[1]);
          mma16816<T>(acc[b][mt][2 * np + 1], af[mt], bf[2], bf[3]);
        }
      }
    }
  }
}

template <typename T, int MODE, int BM, int BN, int NB, int EPI, int VEC = 8, int W = 4>
__global__ void __launch_bounds__(32 * W, (W == 4 && BM * BN <= 8192) ? 4 : 1) tc_gemm_kernel(GemmArgs g) {
  constexpr int kTcThreads = 32 * W;
  static_assert(BM % 32 == 0 && BN % 32 == 0, "warp tiles are multiples of 16×16");
  constexpr int MT = BM / 32, NT = BN / kWarpsN<W> / 8;
  static_assert(NT % 2 == 0, "B fragments come in pairs of n8 tiles");
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* smem = reinterpret_cast<T*>(smem_raw);
  constexpr int kStageElems = ATile<MODE, BM>::kElems + NB * BTile<MODE, BN>::kElems;

  const WorkItem w = g.items[blockIdx.x];
  ARows<MODE, BM, VEC, W> arows;
  arows.init(g, w);
  float acc[NB][MT][NT][4];
#pragma unroll
  for (int b = 0; b < NB; ++b)
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
      for (int j = 0; j < NT; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[b][i][j][e] = 0.0f;

  // The reduction steps of all terms in one sequence: (term, kk0) advanced by BK.
  uint32_t total = 0;
  for (uint32_t t = 0; t < w.term_count; ++t) total += (g.terms[w.term_begin + t].len + kTcBK - 1) / kTcBK;

  uint32_t lt = 0, lk = 0;  // loader position
  Term lterm = w.term_count ? g.terms[w.term_begin] : Term{};
  auto advance_loader = [&]() {
    lk += kTcBK;
    while (lk >= lterm.len && lt + 1 < w.term_count) {
      ++lt;
      lk = 0;
      lterm = g.terms[w.term_begin + lt];
    }
  };
  // Skip leading empty terms.
  while (w.term_count && lterm.len == 0 && lt + 1 < w.term_count) lterm = g.terms[w.term_begin + ++lt];

  uint32_t loaded = 0;
#pragma unroll
  for (int s = 0; s < kTcStages - 1; ++s) {
    if (loaded < total) {
      T* st = smem + s * kStageElems;
      tc_load_stage<T, MODE, BM, BN, NB, VEC, W>(g, w, lterm, lk, st, st + ATile<MODE, BM>::kElems, arows);
      advance_loader();
      ++loaded;
    }
    cp_async_commit();
  }

  uint32_t ct = 0, ck = 0;  // compute position (for coefficient changes between terms)
  Term cterm = lterm;
  if (w.term_count) {
    cterm = g.terms[w.term_begin];
    while (cterm.len == 0 && ct + 1 < w.term_count) cterm = g.terms[w.term_begin + ++ct];
  }
  float coef = w.term_count ? cterm.coef : 1.0f;

  for (uint32_t step = 0; step < total; ++step) {
    cp_async_wait<kTcStages - 2>();
    __syncthreads();
    if (loaded < total) {
      T* st = smem + (loaded % kTcStages) * kStageElems;
      tc_load_stage<T, MODE, BM, BN, NB, VEC, W>(g, w, lterm, lk, st, st + ATile<MODE, BM>::kElems, arows);
      advance_loader();
      ++loaded;
    }
    cp_async_commit();
    if (cterm.coef != coef) {  // keep acc = Σ (c_t / coef) · P_t so one scale at the end is exact for equal c
      const float f = coef / cterm.coef;
#pragma unroll
      for (int b = 0; b < NB; ++b)
#pragma unroll
        for (int i = 0; i < MT; ++i)
#pragma unroll
          for (int j = 0; j < NT; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[b][i][j][e] *= f;
      coef = cterm.coef;
    }
    const T* st = smem + (step % kTcStages) * kStageElems;
    tc_compute_stage<T, MODE, BM, BN, NB, W>(st, st + ATile<MODE, BM>::kElems, acc);
    ck += kTcBK;
    while (ck >= cterm.len && ct + 1 < w.term_count) {
      ++ct;
      ck = 0;
      cterm = g.terms[w.term_begin + ct];
    }
  }
  cp_async_wait<0>();

  // Epilogue, phase 1: fragments (times the coefficient, SiLU·u applied) into an FP32 tile in
  // shared memory; phase 2: whole rows out with 16-byte (8-byte for VEC = 4) stores, adding
  // c·(x_j W_jj) for diagonal-first.
  constexpr int kLd = BN + 4;
  static_assert(size_t(BM) * kLd * 4 <= tc_smem_bytes<MODE, BM, BN, NB>(), "epilogue tile fits");
  float* tile = reinterpret_cast<float*>(smem_raw);
  __syncthreads();  // every warp is done reading the pipeline's buffers
  {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int wm = (warp / kWarpsN<W>) * (BM / 2), wn = (warp % kWarpsN<W>) * (BN / kWarpsN<W>);
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int nt = 0; nt < NT; ++nt) {
          const int m = wm + mt * 16 + lane / 4 + h * 8, n = wn + nt * 8 + (lane % 4) * 2;
          float v0 = acc[0][mt][nt][2 * h] * coef, v1 = acc[0][mt][nt][2 * h + 1] * coef;
          if constexpr (EPI == kSiluMul) {
            v0 = silu_mul(v0, acc[NB - 1][mt][nt][2 * h] * coef);
            v1 = silu_mul(v1, acc[NB - 1][mt][nt][2 * h + 1] * coef);
          }
          *reinterpret_cast<float2*>(tile + m * kLd + n) = make_float2(v0, v1);
        }
  }
  __syncthreads();
  constexpr int kOut = (EPI == kStoreF32) ? 4 : VEC;  // elements per store
  constexpr int kPerRow = BN / kOut;
  for (int c = threadIdx.x; c < BM * kPerRow; c += kTcThreads) {
    const uint32_t m = c / kPerRow, n = (c % kPerRow) * kOut;
    if (m >= w.m_count || n >= w.n_count) continue;
    const uint64_t row = (MODE == kGradW) ? uint64_t(w.m_begin) + m : uint64_t(g.rows[w.m_begin + m]);
    const uint64_t idx = row * g.ldc + w.n_begin + n;
    float v[kOut];
#pragma unroll
    for (int e = 0; e < kOut; e += 4) {
      const float4 t4 = *reinterpret_cast<const float4*>(tile + m * kLd + n + e);
      v[e] = t4.x, v[e + 1] = t4.y, v[e + 2] = t4.z, v[e + 3] = t4.w;
    }
    if constexpr (EPI == kStore) {
      if (w.slot != 0) {  // a split-K chunk: add into its FP32 slot (work_list.hpp)
        float* p = g.partial + size_t(w.slot - 1) * (BM * BN) + m * BN + n;
#pragma unroll
        for (int e = 0; e < kOut; ++e) atomicAdd(p + e, v[e]);
        continue;
      }
    }
    if constexpr (EPI == kStoreF32) {
      *reinterpret_cast<float4*>(static_cast<float*>(g.C) + idx) = make_float4(v[0], v[1], v[2], v[3]);
    } else {
      if constexpr (EPI == kDiagAdd) {
        if (w.diag != 0.0f) {
#pragma unroll
          for (int e = 0; e < kOut; e += 4) {
            const float4 d = *reinterpret_cast<const float4*>(g.ws + idx + e);
            v[e] += w.diag * d.x, v[e + 1] += w.diag * d.y, v[e + 2] += w.diag * d.z, v[e + 3] += w.diag * d.w;
          }
        }
      }
      alignas(16) T out[kOut];
#pragma unroll
      for (int e = 0; e < kOut; ++e) out[e] = from_float<T>(v[e]);
      if constexpr (kOut == 8) *reinterpret_cast<uint4*>(static_cast<T*>(g.C) + idx) = *reinterpret_cast<const uint4*>(out);
      else *reinterpret_cast<uint2*>(static_cast<T*>(g.C) + idx) = *reinterpret_cast<const uint2*>(out);
    }
  }
  if constexpr (EPI == kStore) {
    if (w.slot != 0) finish_split_chunk<T, MODE>(g, w.slot - 1, BM, BN);
  }
}

}  // namespace qalg::gpu::detail
