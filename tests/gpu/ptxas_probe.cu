// Compiled (not run) by the ctest gpu_ptxas_no_wgmma_serialisation: one instantiation of each
// Hopper kernel family. ptxas reports, as "info" lines that a normal build hides, when it has to
// serialise wgmma (C7518: wgmma in a path it cannot prove warp-uniform; C7515: a non-wgmma
// instruction redefines accumulators inside a pipeline stage) or to wait for all wgmma at a point
// the code did not ask for (C7517: a wait injected because some path might read accumulators in
// flight). Both were silent performance bugs for sessions (C7518 until the sixth,
// C7517 in every warp-specialised kernel until the seventh); the test fails if either comes back.
// It also fails where ptxas spills more than 24 bytes (stores) in any of these kernels: in the
// twenty-second session a switch that was off at run time still raised the spills of wsl64x192
// (the Qwen3-1.7B projection's tile) from 14 to 62 bytes and of the 2-stage gate/up tiles from
// 0-22 to 54, and the kernels on those tiles ran slower; the register caps (3-4 CTAs per SM) leave
// these kernels at 128 or 96 registers, where a few more live values spill.
#include "wg_gemm.cuh"
#include "wgs_gemm.cuh"
#include "wst_gemm.cuh"

namespace qalg::gpu::detail {
#define QALG_WGS_PARAMS                                                                                           \
  GemmArgs, uint32_t, uint32_t, const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap,          \
      const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap, \
      const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap, uint32_t, uint32_t, uint32_t
template __global__ void wgs_forward_kernel<__nv_bfloat16, 64, 128, 3, 0, 3>(QALG_WGS_PARAMS);  // wsl64x128
template __global__ void wgs_forward_kernel<__nv_bfloat16, 64, 128, 3, 0, 3, kStore, 1, true>(QALG_WGS_PARAMS);  // packed
template __global__ void wgs_forward_kernel<__nv_bfloat16, 64, 192, 2, 0, 3>(QALG_WGS_PARAMS);  // wsl64x192
template __global__ void wgs_forward_kernel<__nv_bfloat16, 64, 64, 3, 0, 4>(QALG_WGS_PARAMS);   // wsl64x64
template __global__ void wgs_forward_kernel<__half, 64, 192, 3, 2, 1>(QALG_WGS_PARAMS);
template __global__ void wgs_forward_kernel<__nv_bfloat16, 128, 64, 4, 0, 2>(QALG_WGS_PARAMS);  // ws128x64 (2 per SM)
template __global__ void wgs_forward_kernel<__nv_bfloat16, 128, 128, 6, 0, 1, kStore, 1, false, true>(QALG_WGS_PARAMS);  // wsg128x128
template __global__ void wgs_forward_kernel<__nv_bfloat16, 128, 128, 6, 0>(QALG_WGS_PARAMS);  // ws128x128 (6 stages)
template __global__ void wgs_forward_kernel<__nv_bfloat16, 128, 128, 3, 0, 2>(QALG_WGS_PARAMS);  // ws128x128, two per SM
template __global__ void wgs_forward_kernel<__nv_bfloat16, 128, 128, 6, 0, 1, kStore, 1, false, false, true>(QALG_WGS_PARAMS);  // wsm128x128
template __global__ void wgs_forward_kernel<__nv_bfloat16, 128, 128, 3, 0, 2, kStore, 1, false, false, true>(QALG_WGS_PARAMS);  // wsm, 2 per SM
// the paired tiles (clusters of two CTAs; TMA stores since the twenty-third session)
template __global__ void wgs_forward_kernel<__nv_bfloat16, 64, 64, 3, 0, 4, kStore, 2>(QALG_WGS_PARAMS);   // wsp64x64
template __global__ void wgs_forward_kernel<__nv_bfloat16, 64, 128, 3, 0, 3, kStore, 2>(QALG_WGS_PARAMS);  // wsp64x128
// the gated FFN's gate/up (two accumulators; two rescale calls made ptxas serialise, C7515)
template __global__ void wgs_forward_kernel<__nv_bfloat16, 64, 64, 3, 0, 3, kSiluMul>(QALG_WGS_PARAMS);
template __global__ void wgs_forward_kernel<__half, 64, 128, 2, 0, 2, kSiluMul>(QALG_WGS_PARAMS);
template __global__ void wgs_forward_kernel<__nv_bfloat16, 64, 64, 2, 0, 4, kSiluMul>(QALG_WGS_PARAMS);  // wsl64x64 gate/up
template __global__ void wgs_forward_kernel<__nv_bfloat16, 64, 64, 3, 0, 3, kSiluMul, 1, true>(QALG_WGS_PARAMS);  // packed gate/up
#undef QALG_WGS_PARAMS
template __global__ void wst_forward_kernel<__nv_bfloat16, 4, 128, 4, 1>(GemmArgs, uint32_t, uint32_t,
                                                                         const __grid_constant__ CUtensorMap,
                                                                         const __grid_constant__ CUtensorMap);
template __global__ void wg_gemm_kernel<__nv_bfloat16, kForward, 64, 128, 3, 3, true>(GemmArgs, uint32_t);
template __global__ void wg_gemm_kernel<__nv_bfloat16, kGradW, 64, 64, 2, 6, true>(GemmArgs, uint32_t);
}  // namespace qalg::gpu::detail
