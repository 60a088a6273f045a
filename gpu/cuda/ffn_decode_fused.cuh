#pragma once
// The gated FFN decode in one launch without waits (thirty-ninth session; set_decode_fused), on the
// complete-graph law for both projections (every B(i, j) = {i, j}, coefficients 1, equal widths):
// one row x of type i, h = SiLU(x ⊛ Wg) · (x ⊛ Wu) (D → F), y = h ⊛ Wd (F → D). With s = D/q and
// r = F/q, h's group g is x_i·W[i, g] + x_g·W[g, g] (g ≠ i; x_i·W[i, i] for g = i), and y's group k
// is h_i·Wd[i, k] + h_k·Wd[k, k] (g = k ≠ i), h_i·Wd[i, i] for k = i.
//
// CTA (k, c) of a cluster of C CTAs per output group k takes column chunk c of h's groups k and i
// (w columns from c·w) and:
//   1. copies, first thing, every W byte it will read into shared memory (16-byte cp.async):
//      Wg and Wu at rows of groups i and k, columns of h_k's chunk; the same at rows i, columns of
//      h_i's chunk (k ≠ i); Wd's rows of both chunks at y_k's s columns;
//   2. computes its chunks of h_k and h_i (h_i redundantly: every group's CTAs need it, the L2
//      serves all but the first read of its weights), rounds them to T, and stores h_k's;
//   3. multiplies them into y_k's partial sum over its chunks (s columns);
//   4. writes its partial sums into the shared memory of the cluster's CTAs (CTA c' owns y_k's
//      columns [c'·S, (c' + 1)·S)), one cluster barrier, and each CTA sums the C partials of its
//      columns in rank order and stores them.
// Why: the two-launch decode (decode_gemv.cuh, the down projection by programmatic dependent launch)
// pays gate/up's grid end and memory flush, the dependent grid's wake and a round trip for h before
// the down projection's first FMA; the in-kernel hand-overs tried before (seventeenth session:
// counters, down tiles waiting for gate/up tiles; twenty-seventh: the same within two launches) were
// slower because CTAs waited on other CTAs. Here no CTA waits for another except at one cluster
// barrier among CTAs that started together, and every W byte is requested at the kernel's start.
// The sum over the chunks is in a fixed order: y is the same on every run (not bit-equal to the
// two launches', whose down projection sums h in another order). h is bit-equal to theirs where
// the gate/up sums are exact (e.g. integer inputs); else within FP32 rounding of the sums.
// Measured (thirty-ninth session, H100, results/gpu/history/session39/call1): correct, and slower
// than the two launches on four of the five paper decodes, the more so the more bytes a CTA copies
// (Qwen3-8B, 197 KB per CTA: 13.3 -> 26.4 µs; the 30B expert, 8 KB: 6.9 -> 6.6). Off by default.
#include "mbarrier.cuh"
#include "mma_primitives.cuh"

namespace qalg::gpu::detail {

constexpr int kFusedDecodeThreads = 256;
constexpr uint32_t kFusedDecodeMaxChunks = 8;  // the portable cluster size
// s and w at most 8 · kFusedDecodeThreads: a row's 16-byte pieces are at most one per thread.
constexpr uint32_t kFusedDecodeMaxWidth = 8 * kFusedDecodeThreads;

struct FusedDecodeArgs {
  const void* x = nullptr;
  const void* wg = nullptr;
  const void* wu = nullptr;
  const void* wd = nullptr;
  void* h = nullptr;
  void* y = nullptr;
  uint32_t s = 0, r = 0, type = 0, chunks = 0, w = 0;  // w: chunk width, a multiple of 8
  uint64_t D = 0, F = 0;                                // leading dimensions of W (F) and Wd (D)
};

// Byte offsets into the dynamic shared memory (16-bit types; s, w multiples of 8, so every row of
// every tile starts on 16 bytes): gate and up at the rows of groups i then k (2s rows of w), gate
// and up at the rows of i for h_i (s rows), Wd's rows (w of h_i's chunk, then w of h_k's) at s
// columns, then x_i and x_k (floats), h_i's and h_k's chunks (floats), the partial sums (C × s).
struct FusedDecodeLayout {
  uint32_t gk = 0, uk = 0, gi = 0, ui = 0, dd = 0, xs = 0, hs = 0, part = 0, total = 0;
  __host__ __device__ FusedDecodeLayout(uint32_t s, uint32_t w, uint32_t chunks) {
    const uint32_t row = w * 2;
    uk = gk + 2 * s * row;
    gi = uk + 2 * s * row;
    ui = gi + s * row;
    dd = ui + s * row;
    xs = dd + 2 * w * s * 2;
    hs = xs + 2 * s * 4;
    part = hs + 2 * w * 4;
    total = part + chunks * s * 4;
  }
};

__device__ __forceinline__ void st_shared_cluster_f32(float* p, uint32_t cta, float v) {
  asm volatile("{\n.reg .b32 ra;\nmapa.shared::cluster.u32 ra, %0, %1;\nst.shared::cluster.f32 [ra], %2;\n}\n" ::"r"(
                   smem_addr(p)),
               "r"(cta), "f"(v)
               : "memory");
}

// Two adjacent 16-bit elements (4-byte aligned: even columns of rows of even width) as floats.
template <typename T>
__device__ __forceinline__ void load2(const T* p, float (&v)[2]) {
  const uint32_t raw = *reinterpret_cast<const uint32_t*>(p);
  T e[2];
  memcpy(e, &raw, 4);
  v[0] = to_float(e[0]), v[1] = to_float(e[1]);
}

template <typename T>
__global__ void __launch_bounds__(kFusedDecodeThreads) ffn_decode_fused_kernel(FusedDecodeArgs a) {
  static_assert(sizeof(T) == 2, "the fused decode copies 16-bit rows");
  extern __shared__ __align__(128) unsigned char fused_smem[];
  // A CTA's shared memory may be written by the others only once it runs: the arrive here, the
  // matching wait before the first remote store (the start of every CTA of the cluster is then
  // known; cluster CTAs are co-scheduled, so this costs no waiting on another's work).
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
  const uint32_t C = a.chunks, c = blockIdx.x % C, k = blockIdx.x / C, i = a.type, s = a.s, r = a.r, w = a.w;
  const uint32_t f0 = c * w, fw = min(w, r - f0);  // this chunk's columns of h's groups (fw ≥ 8)
  const bool other = k != i;
  const uint32_t dk = other ? 2 * s : s;           // h_k's reduction: rows of i, then of k
  const FusedDecodeLayout L(s, w, C);
  const uint32_t tid = threadIdx.x;
  const T* Wg = static_cast<const T*>(a.wg);
  const T* Wu = static_cast<const T*>(a.wu);
  const T* Wd = static_cast<const T*>(a.wd);
  const T* x = static_cast<const T*>(a.x);
  unsigned char* sm = fused_smem;

  // 1. Every W byte of this CTA in flight: gate/up first (group 0), then Wd (group 1). A thread
  //    copies one 16-byte piece p of every (256 / pieces)-th row: the divisions once, not per copy.
  const uint32_t seg = fw / 8;  // 16-byte pieces of a chunk row
  {
    const uint32_t p = tid % seg, step = kFusedDecodeThreads / seg;
    for (uint32_t row = tid / seg; row < dk && tid < step * seg; row += step) {
      const uint64_t grow = row < s ? uint64_t(i) * s + row : uint64_t(k) * s + (row - s);
      const uint64_t off = grow * a.F + uint64_t(k) * r + f0 + p * 8;
      const uint32_t dst = row * w * 2 + p * 16;
      cp_async16(sm + L.gk + dst, Wg + off, true);
      cp_async16(sm + L.uk + dst, Wu + off, true);
    }
    if (other)
      for (uint32_t row = tid / seg; row < s && tid < step * seg; row += step) {
        const uint64_t off = (uint64_t(i) * s + row) * a.F + uint64_t(i) * r + f0 + p * 8;
        const uint32_t dst = row * w * 2 + p * 16;
        cp_async16(sm + L.gi + dst, Wg + off, true);
        cp_async16(sm + L.ui + dst, Wu + off, true);
      }
  }
  cp_async_commit();
  const uint32_t dseg = s / 8, drows = other ? 2 * fw : fw;
  {
    const uint32_t p = tid % dseg, step = kFusedDecodeThreads / dseg;
    for (uint32_t row = tid / dseg; row < drows && tid < step * dseg; row += step) {
      const uint64_t frow = row < fw ? uint64_t(i) * r + f0 + row : uint64_t(k) * r + f0 + (row - fw);
      const uint32_t srow = row < fw ? row : w + (row - fw);
      cp_async16(sm + L.dd + srow * s * 2 + p * 16, Wd + frow * a.D + uint64_t(k) * s + p * 8, true);
    }
  }
  cp_async_commit();
  grid_dependency_wait();  // (x may come from a grid this one was launched after by PDL)
  float* xs = reinterpret_cast<float*>(sm + L.xs);
  for (uint32_t e = tid; e < dk; e += kFusedDecodeThreads)
    xs[e] = to_float(x[e < s ? uint64_t(i) * s + e : uint64_t(k) * s + (e - s)]);
  cp_async_wait<1>();
  __syncthreads();

  // 2. h_k's chunk (units u < fw/2: column pairs of gk/uk) and h_i's (fw/2 ≤ u < fw: of gi/ui),
  //    la lanes per unit down the reduction (a power of two, 4 … 32: the units of the CTA's
  //    threads). hs[0, w): h_i's chunk; hs[w, 2w): h_k's (k ≠ i; h_k is h_i for k = i).
  float* hs = reinterpret_cast<float*>(sm + L.hs);
  T* h = static_cast<T*>(a.h);
  const uint32_t pairs = fw / 2, units = other ? 2 * pairs : pairs;
  uint32_t la = 32;
  while (la > 4 && units * la > kFusedDecodeThreads) la /= 2;
  const uint32_t lane_a = tid % la;
  for (uint32_t base = 0; base < units; base += kFusedDecodeThreads / la) {  // (the same trips in every warp)
    const uint32_t u = base + tid / la;
    const bool on = u < units, is_k = u < pairs;
    const uint32_t col = 2 * (is_k ? u : u - pairs), depth = on ? (is_k ? dk : s) : 0;
    const T* G = reinterpret_cast<const T*>(sm + (is_k ? L.gk : L.gi));
    const T* U = reinterpret_cast<const T*>(sm + (is_k ? L.uk : L.ui));
    float g[2] = {0.0f, 0.0f}, up[2] = {0.0f, 0.0f};
    for (uint32_t row = lane_a; row < depth; row += la) {
      const float xv = xs[row];
      float gv[2], uv[2];
      load2(G + row * w + col, gv), load2(U + row * w + col, uv);
#pragma unroll
      for (int e = 0; e < 2; ++e) g[e] = fmaf(xv, gv[e], g[e]), up[e] = fmaf(xv, uv[e], up[e]);
    }
    for (uint32_t o = la / 2; o >= 1; o /= 2)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        g[e] += __shfl_xor_sync(0xffffffffu, g[e], o);
        up[e] += __shfl_xor_sync(0xffffffffu, up[e], o);
      }
    if (on && lane_a == 0)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const T hv = from_float<T>(silu_mul(g[e], up[e]));
        hs[is_k && other ? w + col + e : col + e] = to_float(hv);
        if (is_k) h[uint64_t(k) * r + f0 + col + e] = hv;  // (h_i's chunk is stored by CTA (i, c))
      }
  }
  cp_async_wait<0>();
  __syncthreads();

  // 3. y_k's partial sums: s/2 column pairs, lb lanes (a power of two, 1 … 16) per pair down the
  //    drows rows; each sum goes to the CTA that owns its column in step 4.
  const uint32_t cpairs = s / 2;
  uint32_t lb = 16;
  while (lb > 1 && cpairs * lb > kFusedDecodeThreads) lb /= 2;
  const uint32_t lane_b = tid % lb;
  const uint32_t S = (s + C - 1) / C;  // y_k's columns per CTA in step 4
  const T* Ds = reinterpret_cast<const T*>(sm + L.dd);
  float* part = reinterpret_cast<float*>(sm + L.part);
  asm volatile("barrier.cluster.wait.aligned;\n" ::: "memory");  // every CTA of the cluster runs
  for (uint32_t base = 0; base < cpairs; base += kFusedDecodeThreads / lb) {
    const uint32_t cp = base + tid / lb, col = 2 * cp;
    const bool on = cp < cpairs;
    float acc[2] = {0.0f, 0.0f};
    if (on)
      for (uint32_t row = lane_b; row < drows; row += lb) {
        const uint32_t srow = row < fw ? row : w + (row - fw);
        float dv[2];
        load2(Ds + srow * s + col, dv);
        acc[0] = fmaf(hs[srow], dv[0], acc[0]), acc[1] = fmaf(hs[srow], dv[1], acc[1]);
      }
    for (uint32_t o = lb / 2; o >= 1; o /= 2)
#pragma unroll
      for (int e = 0; e < 2; ++e) acc[e] += __shfl_xor_sync(0xffffffffu, acc[e], o);
    if (on && lane_b == 0)
#pragma unroll
      for (int e = 0; e < 2; ++e) st_shared_cluster_f32(part + c * s + col + e, (col + e) / S, acc[e]);
  }
  cluster_sync();  // every partial sum is in its owner's shared memory

  // 4. This CTA's columns of y_k: the C partial sums in rank order.
  T* y = static_cast<T*>(a.y);
  const uint32_t end = min(s, (c + 1) * S);
  for (uint32_t col = c * S + tid; col < end; col += kFusedDecodeThreads) {
    float v = 0.0f;
    for (uint32_t cc = 0; cc < C; ++cc) v += part[cc * s + col];
    y[uint64_t(k) * s + col] = from_float<T>(v);
  }
}

}  // namespace qalg::gpu::detail
