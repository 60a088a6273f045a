#pragma once
// mbarrier wrappers (PTX ISA "mbarrier"), shared by the warp-specialised forward (wgs_gemm.cuh,
// wst_gemm.cuh) and the bulk-copy decode (decode_gemv.cuh): init, arrive, arrive with an expected
// transaction byte count (completed by cp.async.bulk / TMA copies), and a spin on a phase's parity.
#include <cstdint>

#include "mma_primitives.cuh"

namespace qalg::gpu::detail {

__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_addr(bar)) : "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n.reg .pred p;\nWAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
      "@!p bra WAIT_%=;\n}\n" ::"r"(smem_addr(bar)),
      "r"(parity)
      : "memory");
}
// Makes this thread's mbarrier.init visible to the other threads and to the copy engine (the
// async proxy) before any of them arrives or completes a transaction on it (then __syncthreads).
__device__ __forceinline__ void mbar_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

}  // namespace qalg::gpu::detail
