#pragma once
// The Hopper (sm_90a) tensor-core kernel behind forward, dX and dW for BF16/FP16 (issue 7).
// Why not tc_gemm.cuh: a Q_q tile reduces only 2·s deep (256 for Qwen3-8B at q = 32), so a CTA per
// tile spends most of its life filling and draining its pipeline. Here a persistent CTA walks the
// work items blockIdx.x, blockIdx.x + gridDim.x, …, and its cp.async pipeline runs across item
// boundaries: while one tile's epilogue stores, the next tile's first stages are already in flight.
//   compute: wgmma.mma_async m64nBNk16 per warpgroup (BM/64 warpgroups), operands read by the tensor
//            cores straight from 128-byte-swizzled shared memory (no ldmatrix), FP32 accumulators
//   copy:    16-byte cp.async by all threads, zero-filled out of range, rows gathered through the
//            row list (TMA cannot gather rows of one type); fence.proxy.async before the wgmma reads
//   layouts: A is K-major for forward/dX (rows of X or dY), M-major for dW (columns of X);
//            B is N-major for forward/dW (rows of W or dY), K-major for dX (W read transposed)
//   epilogue: accumulators × coefficient straight to global memory (bf16x2 per fragment pair)
#include <type_traits>

#include "mma_primitives.cuh"
#include "row_list.cuh"
#include "split_k.cuh"
#include "wgmma_ops.cuh"
#include "work_list.hpp"

namespace qalg::gpu::detail {

constexpr int kWgBK = 64;         // reduction per stage: one 128-byte swizzle row of 16-bit values
constexpr int kWgChunk = 64 * 128;  // bytes of one 64-row × 128-byte swizzle block

// Both operand tiles of a stage are ROWS × 128 bytes: K-major tiles have one 128-byte row per
// M/N index; M/N-major tiles are (extent/64) blocks of 64 k-rows × 128 bytes.
template <int BM, int BN>
constexpr size_t wg_stage_bytes() {
  return size_t(BM + BN) * 128;
}
template <int BM, int BN, int STAGES>
constexpr size_t wg_smem_bytes() {
  return STAGES * wg_stage_bytes<BM, BN>() + 1024;  // + slack to align the tiles to 1024 bytes
}

// Byte offset of 16-byte chunk c of 128-byte row r under the 128B swizzle (chunk ^= row mod 8),
// the placement wgmma expects when the tile starts on a 1024-byte boundary.
__device__ __forceinline__ uint32_t swz128(uint32_t r, uint32_t c) { return r * 128u + ((c ^ (r & 7u)) << 4); }
// Element (k, x) of an M/N-major tile: x selects the 64-wide block and the chunk within the row.
__device__ __forceinline__ uint32_t mn_major_offset(uint32_t k, uint32_t x) {
  return (x / 64) * kWgChunk + swz128(k, (x % 64) / 8);
}

// Shared-memory matrix descriptor (PTX ISA "matrix-descriptor-format"): start address, leading and
// stride byte offsets (all >> 4), 128B swizzle. K-major: 8-row groups 1024 bytes apart (SBO), LBO
// unused. M/N-major: 8-k-row groups 1024 bytes apart (SBO), 64-wide blocks kWgChunk apart (LBO).
__device__ __forceinline__ uint64_t wg_desc(uint32_t saddr, uint32_t lbo, uint32_t sbo) {
  return uint64_t((saddr & 0x3FFFF) >> 4) | (uint64_t(lbo >> 4) << 16) | (uint64_t(sbo >> 4) << 32) |
         (uint64_t(1) << 62);
}
__device__ __forceinline__ uint64_t k_major_desc(uint32_t saddr) { return wg_desc(saddr, 16, 1024); }
// K-major under the 32B swizzle (layout type 3 in bits 62-63): one 16-deep slice of 32-byte rows,
// 8-row groups 256 bytes apart (SBO); the copy engine's SWIZZLE_32B boxes of 16 columns.
__device__ __forceinline__ uint64_t k_major_desc_sw32(uint32_t saddr) {
  return uint64_t((saddr & 0x3FFFF) >> 4) | (uint64_t(1) << 16) | (uint64_t(256 >> 4) << 32) | (uint64_t(3) << 62);
}
__device__ __forceinline__ uint64_t mn_major_desc(uint32_t saddr) { return wg_desc(saddr, kWgChunk, 1024); }

__device__ __forceinline__ void wgmma_fence() {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void wgmma_commit() {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}
template <int N>
__device__ __forceinline__ void wgmma_wait() {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
#endif
}
// Generic-proxy writes (cp.async, st.shared) become visible to the async proxy (wgmma).
__device__ __forceinline__ void fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
// Keeps the compiler from moving accumulator reads/writes across wgmma issue and wait.
template <int R>
__device__ __forceinline__ void fence_operands(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// acc holds Σ (c_t / coef) · P_t so that one multiply at the end is exact when all c_t are equal;
// on a change of coefficient the finished part is rescaled (after the wgmma in flight lands).
template <int R>
__device__ __forceinline__ void rescale_accumulators(float (&acc)[R], float& coef, float next) {
  wgmma_wait<0>();
  fence_operands(acc);
  const float f = coef / next;
#pragma unroll
  for (int i = 0; i < R; ++i) acc[i] *= f;
  coef = next;
}

template <typename T>
__device__ __forceinline__ uint32_t pack2(float v0, float v1) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    const __nv_bfloat162 p = __floats2bfloat162_rn(v0, v1);
    return *reinterpret_cast<const uint32_t*>(&p);
  } else {
    const __half2 p = __floats2half2_rn(v0, v1);
    return *reinterpret_cast<const uint32_t*>(&p);
  }
}
// x[(i) & 3] for a runtime i without local memory (selects).
__device__ __forceinline__ uint32_t pick4(const uint32_t (&x)[4], uint32_t i) {
  i &= 3u;
  return i == 0 ? x[0] : i == 1 ? x[1] : i == 2 ? x[2] : x[3];
}

// Epilogue of an m64nBN accumulator: this thread's rows m0 = 16·warp + lane/4 and m1 = m0 + 8
// (global rows row0, row1); × coef, or zeros for an empty sum. The fragment gives each lane of a
// quad one 4-byte column pair of every 8-column chunk c; stored as it is, every warp store wrote
// 16 of each 32-byte sector, and Nsight Compute counted twice the L2 write sectors of the Triton
// peer (3.1 M against 1.57 M for Qwen3-8B). So each quad transposes its 4 × 4 pairs of chunks
// 4t .. 4t + 3 by shuffles (lane k sends pair (k + r) mod 4 in round r) and lane k stores chunk
// 4t + k of its row as one 16-byte vector: 64 contiguous bytes per row and quad.
// Needs BN % 32 == 0, n_begin and ldc multiples of 8 and a 16-byte aligned `out` (widths
// multiples of 8: the only plans these kernels run); a chunk past n_count is not stored.
// VEC = false keeps the plain 4-byte stores: measured on the H200 (same session), the transpose
// made the warp-specialised forward (wgs/wst) 6 % faster (Qwen3-8B ws64x192 82.4 → 77.9 µs) but
// the wg kernel, whose warps also issue the copies, slower (training 1.7B up 192 → 210 µs).
// store_values: the same for value(i) of fragment element i (the gated FFN: SiLU(gate)·up, computed
// here so that the accumulators are only read: ptxas serialises every wgmma of a kernel whose
// accumulators a non-wgmma instruction redefines, C7515).
template <typename T, int BN, bool VEC = true, typename Value>
__device__ __forceinline__ void store_values(Value value, void* out, uint64_t ldc, uint64_t row0, uint64_t row1, bool ok0,
                                             bool ok1, uint32_t n_begin, uint32_t n_count, bool zero);
template <typename T, int BN, bool VEC = true>
__device__ __forceinline__ void store_fragments(const float (&acc)[BN / 2], void* out, uint64_t ldc, uint64_t row0,
                                                uint64_t row1, bool ok0, bool ok1, uint32_t n_begin, uint32_t n_count,
                                                float coef, bool zero) {
  store_values<T, BN, VEC>([&](int i) { return acc[i] * coef; }, out, ldc, row0, row1, ok0, ok1, n_begin, n_count, zero);
}
template <typename T, int BN, bool VEC, typename Value>
__device__ __forceinline__ void store_values(Value value, void* out, uint64_t ldc, uint64_t row0, uint64_t row1, bool ok0,
                                             bool ok1, uint32_t n_begin, uint32_t n_count, bool zero) {
  const uint32_t lane = threadIdx.x % 32, k = lane % 4, quad = lane & ~3u;
  if constexpr (!VEC) {
#pragma unroll
    for (int c = 0; c < BN / 8; ++c) {
      const uint32_t n = c * 8 + k * 2;
      if (n >= n_count) continue;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        if (!(h ? ok1 : ok0)) continue;
        const float v0 = zero ? 0.0f : value(c * 4 + h * 2), v1 = zero ? 0.0f : value(c * 4 + h * 2 + 1);
        *reinterpret_cast<uint32_t*>(static_cast<T*>(out) + (h ? row1 : row0) * ldc + n_begin + n) = pack2<T>(v0, v1);
      }
    }
  } else {
    static_assert(!VEC || BN % 32 == 0, "quad transpose works on groups of 4 chunks of 8 columns");
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const bool ok = h ? ok1 : ok0;  // uniform over the quad (one row)
      T* C = static_cast<T*>(out) + (h ? row1 : row0) * ldc + n_begin;
#pragma unroll
      for (int t = 0; t < BN / 32; ++t) {
        uint32_t v[4], got[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const int c = 4 * t + i;
          v[i] = zero ? 0u : pack2<T>(value(c * 4 + h * 2), value(c * 4 + h * 2 + 1));
        }
#pragma unroll
        for (int r = 0; r < 4; ++r)  // got[r] = pair k of chunk 4t + k, from lane (k − r) mod 4
          got[r] = __shfl_sync(0xffffffffu, pick4(v, k + r), quad | ((k - r) & 3u));
        uint32_t o[4];  // o[j] = pair j (columns 2j, 2j + 1) of chunk 4t + k, held by lane j
#pragma unroll
        for (int j = 0; j < 4; ++j) o[j] = pick4(got, k - j);
        const uint32_t n = (4 * t + k) * 8;
        if (!ok || n >= n_count) continue;
        // One 16-byte store, spelled in PTX: written as a uint4 assignment, the front end split the
        // first chunk of every row (t = 0) into four 4-byte stores (eighth session, PTX and SASS of
        // wsl64x192; under Nsight Compute the kernel's stores used 21.3 of each 32-byte sector).
        asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(C + n), "r"(o[0]), "r"(o[1]), "r"(o[2]),
                     "r"(o[3])
                     : "memory");
      }
    }
  }
}

// A split-K chunk's epilogue: this thread's fragment values × coef added into the FP32 slot
// (BM × BN, row-major) at tile rows m0 and m1.
template <int BM, int BN>
__device__ __forceinline__ void add_fragments(const float (&acc)[BN / 2], float* slot, uint32_t m0, uint32_t m1,
                                              uint32_t m_count, uint32_t n_count, float coef) {
  const uint32_t k = threadIdx.x % 4;
#pragma unroll
  for (int c = 0; c < BN / 8; ++c) {
    const uint32_t n = c * 8 + k * 2;
    if (n >= n_count) continue;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const uint32_t m = h ? m1 : m0;
      if (m >= m_count) continue;
      atomicAdd(slot + m * BN + n, acc[c * 4 + h * 2] * coef);
      atomicAdd(slot + m * BN + n + 1, acc[c * 4 + h * 2 + 1] * coef);
    }
  }
}

// One stage of copies: A tile then B tile of the reduction slice [kk0, kk0 + 64) of term t.
// `aoff` caches this thread's gathered A row offsets (forward/dX) for the loader's current item.
template <typename T, int MODE, int BM, int BN, int NT>
struct WgLoader {
  static constexpr int kAPer = (MODE == kGradW) ? 1 : BM * 8 / NT;  // A chunks per thread
  int64_t aoff[kAPer];

  __device__ __forceinline__ void set_item(const GemmArgs& g, const WorkItem& w) {
    if constexpr (MODE != kGradW) {
#pragma unroll
      for (int i = 0; i < kAPer; ++i) {
        const uint32_t r = (threadIdx.x + i * NT) / 8;
        aoff[i] = r < w.m_count ? int64_t(list_row(g, w.m_begin + r)) * int64_t(g.lda) : -1;
      }
    }
  }

  __device__ __forceinline__ void load(const GemmArgs& g, const WorkItem& w, const Term& t, uint32_t kk0,
                                       unsigned char* sA, unsigned char* sB) const {
    const T* A = static_cast<const T*>(g.A);
    const T* B = static_cast<const T*>(g.B0);
    const int tid = threadIdx.x;
    if constexpr (MODE == kGradW) {  // A(m, k) = X[row(k)][m]: M-major, 64 k-rows × BM
      for (int c = tid; c < kWgBK * (BM / 8); c += NT) {
        const uint32_t k = c / (BM / 8), m = (c % (BM / 8)) * 8;
        const bool ok = kk0 + k < t.len && m < w.m_count;
        const T* src = ok ? A + uint64_t(list_row(g, t.a + kk0 + k)) * g.lda + w.m_begin + m : A;
        cp_async16(sA + mn_major_offset(k, m), src, ok);
      }
    } else {  // A(m, k) = rows of X (forward) or dY (dX): K-major, BM rows × 64
#pragma unroll
      for (int i = 0; i < kAPer; ++i) {
        const int c = tid + i * NT;
        const uint32_t r = c / 8, kc = c % 8;
        const bool ok = aoff[i] >= 0 && kk0 + kc * 8 < t.len;
        const T* src = ok ? A + aoff[i] + t.a + kk0 + kc * 8 : A;
        cp_async16(sA + swz128(r, kc), src, ok);
      }
    }
    if constexpr (MODE == kGradX) {  // B(k, n) = W[n][k]: K-major, BN rows × 64
#pragma unroll
      for (int c = tid; c < BN * 8; c += NT) {
        const uint32_t n = c / 8, kc = c % 8;
        const bool ok = n < w.n_count && kk0 + kc * 8 < t.len;
        const T* src = ok ? B + uint64_t(w.n_begin + n) * g.ldb + t.a + kk0 + kc * 8 : B;
        cp_async16(sB + swz128(n, kc), src, ok);
      }
    } else {  // B(k, n) = W[k][n] (forward) or dY[row(k)][n] (dW): N-major, 64 k-rows × BN
#pragma unroll
      for (int c = tid; c < kWgBK * (BN / 8); c += NT) {
        const uint32_t k = c / (BN / 8), n = (c % (BN / 8)) * 8;
        const bool ok = kk0 + k < t.len && n < w.n_count;
        uint64_t krow = 0;
        if (ok) krow = (MODE == kGradW) ? list_row(g, t.a + kk0 + k) : t.a + kk0 + k;
        const T* src = ok ? B + krow * g.ldb + w.n_begin + n : B;
        cp_async16(sB + mn_major_offset(k, n), src, ok);
      }
    }
  }
};

// The loader's position in the CTA's sequence of reduction steps (item, term, k offset); it runs
// STAGES − 1 steps ahead of the compute, across items, skipping empty terms and items.
struct WgCursor {
  uint32_t item, term = 0, kk = 0;
  WorkItem w;
  Term t;
  bool valid = false;
};

// Item idx and term ti of the CTA's list, or of the law's closed form (work_list.hpp LawGrid; the
// forward only: the host sets g.law for nothing else).
template <int MODE, int BM, int BN>
__device__ __forceinline__ WorkItem fetch_item(const GemmArgs& g, uint32_t idx) {
  if constexpr (MODE == kForward)
    if (g.law.q) return law_item(g.law, idx, BM, BN);
  return g.items[idx];
}
template <int MODE>
__device__ __forceinline__ Term fetch_term(const GemmArgs& g, const WorkItem& w, uint32_t ti) {
  if constexpr (MODE == kForward)
    if (g.law.q) return law_term(g.law, w, ti);
  return g.terms[w.term_begin + ti];
}

// MINB > 1 (the "wm" tiles): launched one CTA per item with a small pipeline, so that MINB CTAs
// share an SM and hide each other's fills and epilogues, the way the Triton peer does (64×64 tiles,
// 47 % of warps active under Nsight Compute against 15 % for a persistent CTA); MINB also caps the
// registers so that the MINB CTAs fit. VEC selects the 16-byte epilogue stores (store_fragments).
template <typename T, int MODE, int BM, int BN, int STAGES, int MINB = 1, bool VEC = false>
__global__ void __launch_bounds__(BM * 2, MINB) wg_gemm_kernel(GemmArgs g, uint32_t count) {
  constexpr int NT = BM * 2;  // BM / 64 warpgroups of 128 threads
  constexpr int R = BN / 2;   // accumulators per thread
  constexpr int TA = (MODE == kGradW) ? 1 : 0, TB = (MODE == kGradX) ? 0 : 1;
  static_assert(BM % 64 == 0 && BN % 64 == 0 && BN <= 256, "wgmma tiles: BM, BN multiples of 64, BN <= 256");
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __trap();  // compiled without sm_90a the wgmma wrappers are empty: fail loudly, never write zeros
#endif
  extern __shared__ unsigned char wg_smem_raw[];
  // The swizzle pattern repeats every 1024 bytes of shared-memory address: align the tiles to it.
  unsigned char* smem = wg_smem_raw + ((1024u - (smem_addr(wg_smem_raw) & 1023u)) & 1023u);
  constexpr uint32_t kStage = wg_stage_bytes<BM, BN>(), kABytes = BM * 128;

  WgLoader<T, MODE, BM, BN, NT> loader;
  WgCursor lc;
  lc.item = blockIdx.x;
  // Move the loader to the next step that has data, at or after its current position.
  auto settle = [&](bool new_item) {
    while (lc.item < count) {
      if (new_item) {
        lc.w = fetch_item<MODE, BM, BN>(g, lc.item);
        lc.term = 0, lc.kk = 0;
        loader.set_item(g, lc.w);
        if (lc.w.term_count) lc.t = fetch_term<MODE>(g, lc.w, 0);
        new_item = false;
      }
      while (lc.term < lc.w.term_count) {
        if (lc.kk < lc.t.len) return void(lc.valid = true);
        if (++lc.term < lc.w.term_count) lc.t = fetch_term<MODE>(g, lc.w, lc.term);
        lc.kk = 0;
      }
      lc.item += gridDim.x;
      new_item = true;
    }
    lc.valid = false;
  };
  settle(true);
  auto load_next = [&](uint32_t stage) {
    if (lc.valid) {
      unsigned char* st = smem + stage * kStage;
      loader.load(g, lc.w, lc.t, lc.kk, st, st + kABytes);
      lc.kk += kWgBK;
      settle(false);
    }
    cp_async_commit();
  };
  // kDeep (the 2-stage many-CTA tiles, "wl"): the prologue fills every stage and a stage is
  // refilled once its own step's wgmma is done, so the two steps of a Qwen3 item (two 64-deep
  // terms) are in flight together; the usual ring (STAGES − 1 ahead, refilling the previous
  // step's stage while this step's wgmma runs) issued the second step only after the first had
  // landed: two memory round trips per CTA, which is one CTA's whole life in these tiles.
  // Eighth session, written after the last device call: compiled, NOT yet run on a GPU.
  constexpr bool kDeep = STAGES == 2 && MINB > 1;
  constexpr int kAhead = kDeep ? STAGES : STAGES - 1;
#pragma unroll 1
  for (int s = 0; s < kAhead; ++s) load_next(s);

  const int wg = threadIdx.x / 128, lane = threadIdx.x % 32, warp = (threadIdx.x % 128) / 32;
  const uint32_t smem_base = smem_addr(smem);
  float acc[R];
  uint32_t stage = 0;
#pragma unroll 1
  for (uint32_t item = blockIdx.x; item < count; item += gridDim.x) {
    const WorkItem w = fetch_item<MODE, BM, BN>(g, item);
    // This thread's two output rows (fragment rows lane/4 and lane/4 + 8 of its warp's 16).
    const uint32_t m0 = wg * 64 + warp * 16 + lane / 4, m1 = m0 + 8;
    uint64_t row0 = 0, row1 = 0;
    if (m0 < w.m_count) row0 = (MODE == kGradW) ? uint64_t(w.m_begin) + m0 : list_row(g, w.m_begin + m0);
    if (m1 < w.m_count) row1 = (MODE == kGradW) ? uint64_t(w.m_begin) + m1 : list_row(g, w.m_begin + m1);
    bool first = true;
    float coef = 1.0f;
#pragma unroll 1
    for (uint32_t ti = 0; ti < w.term_count; ++ti) {
      const Term t = fetch_term<MODE>(g, w, ti);
      if (t.len == 0) continue;
      if (first) {
        coef = t.coef;
      } else if (t.coef != coef) {
        rescale_accumulators(acc, coef, t.coef);
      }
#pragma unroll 1
      for (uint32_t kk = 0; kk < t.len; kk += kWgBK) {
        cp_async_wait<kAhead - 1>();  // this step's group (one is committed per step, empty or not)
        fence_proxy_async();
        __syncthreads();
        const uint32_t sa = smem_base + stage * kStage, sb = sa + kABytes;
        wgmma_fence();
        fence_operands(acc);
#pragma unroll
        for (int k16 = 0; k16 < kWgBK / 16; ++k16) {
          const uint64_t da = TA ? mn_major_desc(sa + wg * kWgChunk + k16 * 2048) : k_major_desc(sa + wg * 64 * 128 + k16 * 32);
          const uint64_t db = TB ? mn_major_desc(sb + k16 * 2048) : k_major_desc(sb + k16 * 32);
          Wgmma<T, BN, TA, TB>::mma(acc, da, db, (first && k16 == 0) ? 0 : 1);
        }
        wgmma_commit();
        fence_operands(acc);
        first = false;
        if constexpr (kDeep) {
          wgmma_wait<0>();   // this step's wgmma is done in this thread;
          __syncthreads();   // in every warp: this step's own stage may be refilled
          load_next(stage);  // with the step STAGES ahead
        } else {
          wgmma_wait<1>();  // this thread's share of the previous step's wgmma is done;
          __syncthreads();  // every warp's is: its stage (A and the shared B tile) may be refilled
          load_next((stage + STAGES - 1) % STAGES);
        }
        stage = (stage + 1) % STAGES;
      }
    }
    wgmma_wait<0>();
    fence_operands(acc);
    if (w.slot != 0) {
      if (!first)  // an empty chunk adds nothing (but still arrives)
        add_fragments<BM, BN>(acc, g.partial + size_t(w.slot - 1) * (BM * BN), m0, m1, w.m_count, w.n_count, coef);
      finish_split_chunk<T, MODE>(g, w.slot - 1, BM, BN);
      continue;
    }
    store_fragments<T, BN, VEC>(acc, g.C, g.ldc, row0, row1, m0 < w.m_count, m1 < w.m_count, w.n_begin, w.n_count, coef,
                           first);
  }
  cp_async_wait<0>();
}

}  // namespace qalg::gpu::detail
