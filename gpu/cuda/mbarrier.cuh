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
// count arrivals at once (one thread standing for a group that has synchronised otherwise)
__device__ __forceinline__ void mbar_arrive_count(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
}
// A spin on try_wait with the semantics SEM ("" = acquire at CTA scope, the default).
#define QALG_MBAR_SPIN(SEM)                                                   \
  "{\n.reg .pred p;\nWAIT_%=:\n"                                            \
  "mbarrier.try_wait.parity" SEM ".shared::cta.b64 p, [%0], %1;\n"           \
  "@!p bra WAIT_%=;\n}\n"
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  asm volatile(QALG_MBAR_SPIN("") ::"r"(smem_addr(bar)), "r"(parity) : "memory");
}
// Makes this thread's mbarrier.init visible to the other threads and to the copy engine (the
// async proxy) before any of them arrives or completes a transaction on it (then __syncthreads).
__device__ __forceinline__ void mbar_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}


// Clusters (the paired warp-specialised tiles, wgs_gemm.cuh CL = 2): this CTA's rank, an arrival on
// the barrier at the same offset in another CTA of the cluster, a wait that acquires at cluster
// scope (the arrivals it waits for may come from the other CTA's threads), and a barrier of every
// thread of the cluster (not .aligned: the producer warp and the consumers reach it at different
// points of their code).
__device__ __forceinline__ uint32_t cluster_ctarank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}
// cluster_scope: release at cluster scope (orders this thread's earlier global stores too, e.g. an
// epilogue's); else the default (release, CTA scope), as CUTLASS's ClusterBarrier::arrive: what
// the waiter needs ordered is only the completed reads of this CTA's own shared memory.
__device__ __forceinline__ void mbar_arrive_remote(uint64_t* bar, uint32_t cta, bool cluster_scope) {
  if (cluster_scope)
    asm volatile(
        "{\n.reg .b32 ra;\nmapa.shared::cluster.u32 ra, %0, %1;\n"
        "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [ra];\n}\n" ::"r"(smem_addr(bar)),
        "r"(cta)
        : "memory");
  else
    asm volatile(
        "{\n.reg .b32 ra;\nmapa.shared::cluster.u32 ra, %0, %1;\n"
        "mbarrier.arrive.shared::cluster.b64 _, [ra];\n}\n" ::"r"(smem_addr(bar)),
        "r"(cta)
        : "memory");
}
__device__ __forceinline__ void mbar_wait_cluster(uint64_t* bar, uint32_t parity) {
  asm volatile(QALG_MBAR_SPIN(".acquire.cluster") ::"r"(smem_addr(bar)), "r"(parity) : "memory");
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
}

// PTX griddepcontrol (sm_90): let the grids that depend on this one launch now; wait until the
// grids this one depends on have completed and their memory is visible.
__device__ __forceinline__ void grid_launch_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
__device__ __forceinline__ void grid_dependency_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

}  // namespace qalg::gpu::detail
