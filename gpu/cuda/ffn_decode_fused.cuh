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
// Fortieth session: steps 2 and 3 summed with 4-byte shared loads and 4 to 8 lanes per column
// pair (the 8B's h: 128 dependent steps per thread) now use 16-byte loads, 512 threads and
// 4 · (warps per unit block) lanes (~13 steps); and the launcher's rule takes only chunk counts
// whose q clusters are resident at once. Measured (H100, history/session40/call1): the 8B 26.4 ->
// 21.4 µs, the 1.7B 10.3 -> 11.6, DeepSeek-V3 11.4 -> 13.8, the 30B expert 6.6 -> 8.4: still
// slower than the two launches (13.3, 8.8, 9.0, 6.9), and slower with more chunks (1.7B at 8:
// 15.7). Off by default; kept as the record of the design and its tests.
#include "mbarrier.cuh"
#include "mma_primitives.cuh"

namespace qalg::gpu::detail {

constexpr int kFusedDecodeThreads = 512;
constexpr uint32_t kFusedDecodeWarps = kFusedDecodeThreads / 32;
constexpr uint32_t kFusedDecodeMaxChunks = 8;  // the portable cluster size
// s and w at most 2048: a row's 16-byte pieces are at most one per thread (256 ≤ 512).
constexpr uint32_t kFusedDecodeMaxWidth = 2048;

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

// The sums in steps 2 and 3 (fortieth session): a warp takes 8 units of 8 columns (16-byte loads;
// a quarter warp reads 128 contiguous bytes of one row: no bank conflicts) and 4 lanes down the
// reduction; W warps take the same 8 units (W · 4 lanes per unit). Lanes add by warp shuffles,
// warps through a slot of shared memory per (warp lane, unit block), summed in a fixed order.
// Slots: blocks ≤ warps: (warps / blocks) · blocks ≤ warps; else one warp lane, a slot per block.
__host__ __device__ constexpr uint32_t fused_blocks(uint32_t units) { return (units + 7) / 8; }
__host__ __device__ constexpr uint32_t fused_slots(uint32_t units) {
  return fused_blocks(units) > kFusedDecodeWarps ? fused_blocks(units) : kFusedDecodeWarps;
}

// Byte offsets into the dynamic shared memory (16-bit types; s, w multiples of 8, so every row of
// every tile starts on 16 bytes): gate and up at the rows of groups i then k (2s rows of w), gate
// and up at the rows of i for h_i (s rows), Wd's rows (w of h_i's chunk, then w of h_k's) at s
// columns, then x_i and x_k (floats), h_i's and h_k's chunks (floats), the partial sums (C × s),
// the warps' slots (step 2: 64 columns of gate and of up per slot, ≤ w/4 units; step 3: 64
// columns of y_k, s/8 units).
struct FusedDecodeLayout {
  uint32_t gk = 0, uk = 0, gi = 0, ui = 0, dd = 0, xs = 0, hs = 0, part = 0, red = 0, total = 0;
  __host__ __device__ FusedDecodeLayout(uint32_t s, uint32_t w, uint32_t chunks) {
    const uint32_t row = w * 2;
    uk = gk + 2 * s * row;
    gi = uk + 2 * s * row;
    ui = gi + s * row;
    dd = ui + s * row;
    xs = dd + 2 * w * s * 2;
    hs = xs + 2 * s * 4;
    part = hs + 2 * w * 4;
    red = part + chunks * s * 4;
    const uint32_t red2 = fused_slots(w / 4) * 128 * 4, red3 = fused_slots(s / 8) * 64 * 4;
    total = red + (red2 > red3 ? red2 : red3);
  }
};

// Which unit block and warp lane this warp sums (units: 8-column units of the sum): with W = the
// warp lanes per block, warp wi takes block wi % blocks as lane wi / blocks (warps past W · blocks
// idle), or, with more blocks than warps, blocks wi, wi + warps, … as lane 0.
struct FusedWarpRole {
  uint32_t blocks, lanes_w, wl, first, stride;
  __device__ __forceinline__ FusedWarpRole(uint32_t units, uint32_t wi) {
    blocks = fused_blocks(units);
    lanes_w = blocks >= kFusedDecodeWarps ? 1 : kFusedDecodeWarps / blocks;
    wl = lanes_w > 1 ? wi / blocks : 0;
    first = lanes_w > 1 ? (wl < lanes_w ? wi % blocks : blocks) : wi;
    stride = lanes_w > 1 ? blocks : kFusedDecodeWarps;
  }
};

__device__ __forceinline__ void st_shared_cluster_f32(float* p, uint32_t cta, float v) {
  asm volatile("{\n.reg .b32 ra;\nmapa.shared::cluster.u32 ra, %0, %1;\nst.shared::cluster.f32 [ra], %2;\n}\n" ::"r"(
                   smem_addr(p)),
               "r"(cta), "f"(v)
               : "memory");
}

// Eight 16-bit elements at a 16-byte aligned shared address, as floats.
template <typename T>
__device__ __forceinline__ void lds8(const T* p, float (&v)[8]) {
  const uint4 raw = *reinterpret_cast<const uint4*>(p);
  const T* e = reinterpret_cast<const T*>(&raw);
#pragma unroll
  for (int i = 0; i < 8; ++i) v[i] = to_float(e[i]);
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
  //    copies one 16-byte piece p of every (threads / pieces)-th row: the divisions once, not per copy.
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

  // 2. h_k's chunk (units u < fw/8: 8 columns of gk/uk) and h_i's (fw/8 ≤ u < 2fw/8: of gi/ui),
  //    each summed by the warp lanes of FusedWarpRole, 4 lanes per warp. hs[0, w): h_i's chunk;
  //    hs[w, 2w): h_k's (k ≠ i; h_k is h_i for k = i).
  float* hs = reinterpret_cast<float*>(sm + L.hs);
  float* red = reinterpret_cast<float*>(sm + L.red);
  T* h = static_cast<T*>(a.h);
  const uint32_t wi = tid / 32, li = tid % 32;
  const uint32_t kunits = fw / 8, units = other ? 2 * kunits : kunits;
  {
    const FusedWarpRole R(units, wi);
    const uint32_t lanes = 4 * R.lanes_w, lane = 4 * R.wl + li / 8;
    for (uint32_t ub = R.first; ub < R.blocks; ub += R.stride) {  // (uniform in the warp)
      const uint32_t u = ub * 8 + li % 8;
      const bool is_k = u < kunits;
      const uint32_t col = 8 * (is_k ? u : u - kunits), depth = u < units ? (is_k ? dk : s) : 0;
      const T* G = reinterpret_cast<const T*>(sm + (is_k ? L.gk : L.gi)) + col;
      const T* U = reinterpret_cast<const T*>(sm + (is_k ? L.uk : L.ui)) + col;
      float g[8] = {}, up[8] = {};
#pragma unroll 2
      for (uint32_t row = lane; row < depth; row += lanes) {
        const float xv = xs[row];
        float gv[8], uv[8];
        lds8(G + row * w, gv), lds8(U + row * w, uv);
#pragma unroll
        for (int e = 0; e < 8; ++e) g[e] = fmaf(xv, gv[e], g[e]), up[e] = fmaf(xv, uv[e], up[e]);
      }
#pragma unroll
      for (int e = 0; e < 8; ++e)
        for (uint32_t o = 8; o <= 16; o *= 2) {
          g[e] += __shfl_xor_sync(0xffffffffu, g[e], o);
          up[e] += __shfl_xor_sync(0xffffffffu, up[e], o);
        }
      if (li < 8) {
        float* slot = red + (R.wl * R.blocks + ub) * 128 + li * 16;
#pragma unroll
        for (int e = 0; e < 8; ++e) slot[e] = g[e], slot[8 + e] = up[e];
      }
    }
    __syncthreads();
    for (uint32_t j = tid; j < units * 8; j += kFusedDecodeThreads) {  // the warp lanes in order
      const uint32_t u = j / 8, e = j % 8, ub = u / 8;
      float g = 0.0f, up = 0.0f;
      for (uint32_t l = 0; l < R.lanes_w; ++l) {
        const float* slot = red + (l * R.blocks + ub) * 128 + (u % 8) * 16;
        g += slot[e], up += slot[8 + e];
      }
      const bool is_k = u < kunits;
      const uint32_t col = 8 * (is_k ? u : u - kunits) + e;
      const T hv = from_float<T>(silu_mul(g, up));
      hs[is_k && other ? w + col : col] = to_float(hv);
      if (is_k) h[uint64_t(k) * r + f0 + col] = hv;  // (h_i's chunk is stored by CTA (i, c))
    }
  }
  cp_async_wait<0>();
  __syncthreads();  // Wd's rows, hs, and the slots free again

  // 3. y_k's partial sums over this CTA's drows rows of Wd (8-column units of y_k's s columns, the
  //    same warp roles); each sum goes to the CTA that owns its column in step 4.
  const uint32_t S = (s + C - 1) / C;  // y_k's columns per CTA in step 4
  const T* Ds = reinterpret_cast<const T*>(sm + L.dd);
  float* part = reinterpret_cast<float*>(sm + L.part);
  {
    const uint32_t yunits = s / 8;
    const FusedWarpRole R(yunits, wi);
    const uint32_t lanes = 4 * R.lanes_w, lane = 4 * R.wl + li / 8;
    for (uint32_t ub = R.first; ub < R.blocks; ub += R.stride) {
      const uint32_t u = ub * 8 + li % 8, depth = u < yunits ? drows : 0;
      float acc[8] = {};
#pragma unroll 2
      for (uint32_t row = lane; row < depth; row += lanes) {
        const uint32_t srow = row < fw ? row : w + (row - fw);
        const float hv = hs[srow];
        float dv[8];
        lds8(Ds + srow * s + 8 * u, dv);
#pragma unroll
        for (int e = 0; e < 8; ++e) acc[e] = fmaf(hv, dv[e], acc[e]);
      }
#pragma unroll
      for (int e = 0; e < 8; ++e)
        for (uint32_t o = 8; o <= 16; o *= 2) acc[e] += __shfl_xor_sync(0xffffffffu, acc[e], o);
      if (li < 8) {
        float* slot = red + (R.wl * R.blocks + ub) * 64 + li * 8;
#pragma unroll
        for (int e = 0; e < 8; ++e) slot[e] = acc[e];
      }
    }
    __syncthreads();
    asm volatile("barrier.cluster.wait.aligned;\n" ::: "memory");  // every CTA of the cluster runs
    for (uint32_t col = tid; col < s; col += kFusedDecodeThreads) {
      const uint32_t u = col / 8, ub = u / 8;
      float v = 0.0f;
      for (uint32_t l = 0; l < R.lanes_w; ++l) v += red[(l * R.blocks + ub) * 64 + (u % 8) * 8 + col % 8];
      st_shared_cluster_f32(part + c * s + col, col / S, v);
    }
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
