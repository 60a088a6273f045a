#pragma once
// The end of a split-K chunk (work_list.hpp split_long_items), shared by the wg, tc and simt
// kernels: the chunks of one tile add into its FP32 slot with atomics, and the LAST chunk to arrive
// converts the slot into C and leaves the slot and its arrival counter at zero for the next call.
// Why not a memset before and a finalize kernel after (the fourth session's form): one launch per
// list instead of three graph nodes. Measured on the H200 (fifth session) the gain was small: the
// Qwen3-30B expert's dX 22.7 → 21.8 µs, dW 25.2 → 22.6 (up) and 23.1 → 18.2 µs (down); the rest of
// those times is the kernels' own per-CTA latency.
#include "mma_primitives.cuh"
#include "row_list.cuh"
#include "work_list.hpp"

namespace qalg::gpu::detail {

// Every thread of the CTA calls this (block-uniform), after its own atomic adds into slot s.
// Ordering: each thread's adds are device-scope atomics (performed at L2); __threadfence then the
// barrier make all of them precede thread 0's arrival; the last arriver fences again before reading
// the slot with L2 loads (__ldcg), so it sees every chunk's adds.
template <typename T, int MODE>
__device__ __forceinline__ void finish_split_chunk(const GemmArgs& g, uint32_t s, uint32_t bm, uint32_t bn) {
  __shared__ uint32_t last_arrival;
  __threadfence();
  __syncthreads();
  const WorkItem tile = g.slots[s];  // term_count = the number of chunks adding into slot s
  if (threadIdx.x == 0) last_arrival = atomicAdd(g.arrivals + s, 1u) + 1 == tile.term_count;
  __syncthreads();
  if (!last_arrival) return;
  __threadfence();
  float* p = g.partial + size_t(s) * bm * bn;
  for (uint32_t e = threadIdx.x; e < bm * bn; e += blockDim.x) {
    const uint32_t m = e / bn, n = e % bn;
    if (m < tile.m_count && n < tile.n_count) {
      const uint64_t row = (MODE == kGradW) ? uint64_t(tile.m_begin) + m : uint64_t(list_row(g, tile.m_begin + m));
      static_cast<T*>(g.C)[row * g.ldc + tile.n_begin + n] = from_float<T>(__ldcg(p + e));
    }
    __stcg(p + e, 0.0f);
  }
  if (threadIdx.x == 0) g.arrivals[s] = 0;
  __syncthreads();  // a persistent CTA's next item may reuse the shared flag
}

}  // namespace qalg::gpu::detail
