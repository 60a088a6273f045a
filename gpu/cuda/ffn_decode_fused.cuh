#pragma once
// The gated FFN decode (one row, the complete-graph law on both projections) as ONE cooperative
// kernel: y = down(SiLU(gate(x)) · up(x)).
// Why: the two-kernel form (gate/up, then down by programmatic dependent launch) measured 8.2 µs
// for the Qwen3-1.7B FFN decode against a 1.2 µs bandwidth floor: it is two launches, two DRAM round
// trips one after the other, and the down kernel could not start its loads while gate/up ran
// (gate/up's 104-register CTAs of 512 threads leave no room on an SM for the down CTA's 156 × 256
// registers). Here each CTA (a persistent grid, at most the CTAs that fit at once) copies ALL of its
// W tiles — its gate/up tiles and its down tiles — into shared memory by cp.async at the start, so
// every weight byte of the FFN is in flight together; it reduces its gate/up tiles and stores h;
// one grid-wide barrier (cooperative launch) makes h visible; then it reduces its down tiles, whose
// W arrived long before, from h.
// Each thread copies exactly the 16-byte chunks it later reads (lane = rows, cg = 8 columns), so
// waiting on its own cp.async groups suffices for W; only the staged x (or h) values are shared.
// Tile assignment: gate/up tile u to CTA u mod G; down tile d to CTA G − 1 − (d mod G), so the CTAs
// with two gate/up tiles are the last to get a down tile.
#include <cooperative_groups.h>

#include "decode_gemv.cuh"

namespace qalg::gpu::detail {

// What the host worked out: tile counts, the deepest reductions (shared-memory slot sizes), and
// the slots per CTA (the most tiles any CTA gets).
struct FusedDecodeShape {
  uint32_t up_tiles = 0, down_tiles = 0;
  uint32_t up_depth = 0, down_depth = 0;
  uint32_t up_slots = 0, down_slots = 0;
};

// The law's tile `index` of COLS columns: output group j = index / tiles per group.
template <int COLS>
__device__ __forceinline__ GemvTile law_tile(const DecodeLaw& L, uint32_t index) {
  GemvTile t;
  const uint32_t nt = (L.r + COLS - 1) / COLS, tile = index % nt;
  t.law = true, t.i = L.type, t.j = index / nt, t.s = L.s;
  t.n_begin = t.j * L.r + tile * COLS;
  t.n_count = L.r - tile * COLS < COLS ? L.r - tile * COLS : COLS;
  t.depth = t.i == t.j ? L.s : 2 * L.s;
  return t;
}

template <int COLS>
constexpr uint32_t fused_up_slot_bytes(uint32_t depth) { return 2u * depth * COLS * 2u; }
template <int COLS>
constexpr uint32_t fused_down_slot_bytes(uint32_t depth) { return depth * COLS * 2u; }

// The thread's chunks of one tile of W (rows lane, lane + 64, ...; columns cg·8 .. cg·8 + 7) to dst
// (depth rows × COLS columns), by cp.async.
template <typename T, int COLS>
__device__ __forceinline__ void fused_copy(const T* W, uint64_t ldb, const GemvTile& t, unsigned char* dst) {
  constexpr int kCG = COLS / 8;
  const int cg = threadIdx.x % kCG, lane = threadIdx.x / kCG;
  if (uint32_t(cg) * 8 >= t.n_count) return;
  const GemmArgs none;
  for (uint32_t r = lane; r < t.depth; r += kGemvLanes) {
    float c;
    const uint32_t row = t.row(none, r, c);
    cp_async16(dst + (size_t(r) * COLS + cg * 8) * sizeof(T), W + uint64_t(row) * ldb + t.n_begin + cg * 8, true);
  }
}

// One tile's reduction from shared memory (NB matrices at slot, slot + stride) with xs[r] = x of
// row r, then the lanes' sum and the store (reduce_and_store).
template <typename T, int NB, int EPI, int COLS>
__device__ __forceinline__ void fused_reduce(const GemmArgs& g, const GemvTile& t, const unsigned char* slot,
                                             uint32_t stride, const float* xs,
                                             float (&red)[NB][kGemvLanes / (32 / (COLS / 8))][COLS + 1]) {
  constexpr int kCG = COLS / 8;
  const int cg = threadIdx.x % kCG, lane = threadIdx.x / kCG;
  float acc[NB][8] = {};
  if (uint32_t(cg) * 8 < t.n_count) {
#pragma unroll 4
    for (uint32_t r = lane; r < t.depth; r += kGemvLanes) {
      const float xv = xs[r];
#pragma unroll
      for (int b = 0; b < NB; ++b) {
        Raw8<T> raw;
        raw.v[0] = *reinterpret_cast<const uint4*>(slot + size_t(b) * stride + (size_t(r) * COLS + cg * 8) * sizeof(T));
        float wv[8];
        unpack8(raw, wv);
#pragma unroll
        for (int i = 0; i < 8; ++i) acc[b][i] = fmaf(xv, wv[i], acc[b][i]);
      }
    }
  }
  reduce_and_store<T, NB, EPI, COLS>(g, t, acc, red);
}

__device__ __forceinline__ uint32_t load_acquire_gpu(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// The grid barrier without a cooperative launch (COOP = false): sense reversal on two words of the
// down plan (bar[0] arrivals, bar[1] generation), so that any grid size may follow any other and
// the words need no reset between launches: each CTA reads the generation before it arrives; the
// last to arrive zeroes the arrivals and then advances the generation, which the others wait for.
// The grid must fit on the GPU at once (the launcher's occupancy bound), and two such decodes on
// one down plan must not run at the same time (they would share the words).
__device__ __forceinline__ void fused_grid_barrier(uint32_t* bar) {
  __syncthreads();
  if (threadIdx.x == 0) {
    const uint32_t generation = load_acquire_gpu(bar + 1);
    __threadfence();  // this CTA's h stores before its arrival
    if (atomicAdd(bar, 1u) == gridDim.x - 1) {
      atomicExch(bar, 0u);
      __threadfence();
      atomicAdd(bar + 1, 1u);
    } else {
      while (load_acquire_gpu(bar + 1) == generation) {
      }
    }
    __threadfence();
  }
  __syncthreads();
}

// up: A = x, B0 = Wg, B1 = Wu, C = h, decode_law = (D/q, F/q, type); down: A = h, B0 = Wd, C = y,
// decode_law = (F/q, D/q, type). Dynamic shared memory: up_slots gate/up slots, down_slots down
// slots, then up_slots · up_depth floats of staged x and down_depth floats of staged h.
// x is staged for every gate/up tile right after the W copies are issued, so that its loads overlap
// them (the first version staged x after waiting for W: one more round trip in series).
// COOP: launched cooperatively, the barrier is the grid group's; else fused_grid_barrier(barrier).
template <typename T, int COLS, bool COOP>
__global__ void __launch_bounds__(COLS / 8 * kGemvLanes, 1)
    ffn_decode_fused_kernel(GemmArgs up, GemmArgs down, FusedDecodeShape sh, uint32_t* barrier) {
  static_assert(sizeof(T) == 2, "fused FFN decode: 16-bit types");
  constexpr int kCG = COLS / 8, kWarpRows = 32 / kCG, kThreads = kCG * kGemvLanes;
  extern __shared__ __align__(128) unsigned char fused_smem[];
  __shared__ float red_up[2][kGemvLanes / kWarpRows][COLS + 1];
  __shared__ float red_down[1][kGemvLanes / kWarpRows][COLS + 1];
  const uint32_t up_stride = sh.up_depth * COLS * sizeof(T);  // gate to up within a slot
  unsigned char* up_base = fused_smem;
  unsigned char* down_base = up_base + size_t(sh.up_slots) * fused_up_slot_bytes<COLS>(sh.up_depth);
  float* xs_up = reinterpret_cast<float*>(down_base + size_t(sh.down_slots) * fused_down_slot_bytes<COLS>(sh.down_depth));
  float* xs_down = xs_up + size_t(sh.up_slots) * sh.up_depth;
  const uint32_t G = gridDim.x, b = blockIdx.x;
  const uint32_t down_first = G - 1 - b;
  // Every W byte of this CTA in flight: gate/up tiles (group 1), then down tiles (group 2).
  {
    uint32_t k = 0;
    for (uint32_t u = b; u < sh.up_tiles; u += G, ++k) {
      const GemvTile t = law_tile<COLS>(up.decode_law, u);
      unsigned char* slot = up_base + size_t(k) * fused_up_slot_bytes<COLS>(sh.up_depth);
      fused_copy<T, COLS>(static_cast<const T*>(up.B0), up.ldb, t, slot);
      fused_copy<T, COLS>(static_cast<const T*>(up.B1), up.ldb, t, slot + up_stride);
    }
    cp_async_commit();
    k = 0;
    for (uint32_t d = down_first; d < sh.down_tiles; d += G, ++k)
      fused_copy<T, COLS>(static_cast<const T*>(down.B0), down.ldb, law_tile<COLS>(down.decode_law, d),
                          down_base + size_t(k) * fused_down_slot_bytes<COLS>(sh.down_depth));
    cp_async_commit();
  }
  const GemmArgs none;
  {
    const T* x = static_cast<const T*>(up.A);
    uint32_t k = 0;
    for (uint32_t u = b; u < sh.up_tiles; u += G, ++k) {
      const GemvTile t = law_tile<COLS>(up.decode_law, u);
      float c;
      for (uint32_t r = threadIdx.x; r < t.depth; r += kThreads)
        xs_up[size_t(k) * sh.up_depth + r] = to_float(__ldg(x + t.row(none, r, c)));
    }
  }
  cp_async_wait<1>();  // this thread's gate/up chunks
  __syncthreads();     // every thread's staged x
  {
    uint32_t k = 0;
    for (uint32_t u = b; u < sh.up_tiles; u += G, ++k) {
      const GemvTile t = law_tile<COLS>(up.decode_law, u);
      fused_reduce<T, 2, kSiluMul, COLS>(up, t, up_base + size_t(k) * fused_up_slot_bytes<COLS>(sh.up_depth),
                                         up_stride, xs_up + size_t(k) * sh.up_depth, red_up);
      __syncthreads();  // red_up is rewritten by the next tile
    }
  }
  // h complete and visible to every CTA (the barrier orders the stores before the loads below).
  if constexpr (COOP) {
    cooperative_groups::this_grid().sync();
  } else {
    fused_grid_barrier(barrier);
  }
  cp_async_wait<0>();  // this thread's down chunks
  {
    const T* h = static_cast<const T*>(down.A);
    uint32_t k = 0;
    for (uint32_t d = down_first; d < sh.down_tiles; d += G, ++k) {
      const GemvTile t = law_tile<COLS>(down.decode_law, d);
      float c;
      // __ldcg: h was written during this kernel, so not through the read-only (nc) path.
      for (uint32_t r = threadIdx.x; r < t.depth; r += kThreads) xs_down[r] = to_float(__ldcg(h + t.row(none, r, c)));
      __syncthreads();
      fused_reduce<T, 1, kStore, COLS>(down, t, down_base + size_t(k) * fused_down_slot_bytes<COLS>(sh.down_depth), 0,
                                       xs_down, red_down);
      __syncthreads();
    }
  }
}

}  // namespace qalg::gpu::detail
