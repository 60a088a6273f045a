#pragma once
// Launch helpers shared by the entry points: dtype dispatch, one launch of a work list through
// the tensor-core or the CUDA-core kernel, with the launch error checked.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>

#include "decode_gemv.cuh"
#include "device_impl.hpp"
#include "simt_gemm.cuh"
#include "tc_gemm.cuh"
#include "wg_gemm.cuh"

namespace qalg::gpu::detail {

// launch_forward.cu: the gated FFN's gate/up on the warp-specialised kernel, 64 × bn tiles
// (bn = 64 or 128; lean: 64 with 2 stages, 4 CTAs per SM); false where it has no such tile or dtype.
// types_outer: the items type outer (ListKind::forward_by_types), else (j, column tile) outer.
bool launch_gated_ws(const DeviceBatch& b, GemmArgs a, uint32_t bn, bool lean, bool types_outer, DType dt,
                     cudaStream_t s);
// launch_ffn.cu: the current device's multiprocessor count (read once).
uint32_t multiprocessors();
// Set (by DependentLaunchScope) while gated_ffn launches its down projection: the next
// warp-specialised forward launch on this thread goes with programmatic dependent launch after the
// gate/up kernel (set_ffn_dependent_launch) and clears it; any other kernel leaves it to the scope's end.
extern thread_local bool t_ws_after_prior;
struct DependentLaunchScope {
  explicit DependentLaunchScope(bool on) { t_ws_after_prior = on; }
  ~DependentLaunchScope() { t_ws_after_prior = false; }
};
// launch_narrow.cu: the forward through the narrow-group law kernel (narrow_law.cuh) where it
// applies (narrow_law_applies); false, launching nothing, where it does not. T: a 16-bit type.
template <typename T>
bool launch_narrow(const DeviceBatch& b, const GemmArgs& a, uint32_t bn, cudaStream_t stream);
// launch_narrow_ffn.cu: the whole gated FFN in one kernel (narrow_ffn.cuh) where it applies and
// is on (narrow_ffn_applies, set_narrow_ffn) and every pointer is on 16 bytes; false, launching
// nothing, otherwise. T: a 16-bit type.
template <typename T>
bool launch_narrow_ffn(const DeviceBatch& up, const DeviceBatch& down, const void* X, const void* Wg, const void* Wu,
                       const void* Wd, void* H, void* Y, cudaStream_t stream);

template <typename F>
void dispatch_dtype(DType t, F&& f) {
  switch (t) {
    case DType::bf16: f(__nv_bfloat16{}); break;
    case DType::f16: f(__half{}); break;
    case DType::f32: f(float{}); break;
  }
}

inline GemmArgs with_list(GemmArgs a, const WorkList& wl, uint32_t first = 0) {
  a.items = wl.items.get() + first;
  a.terms = wl.terms.get();
  a.groups = wl.groups.get();
  a.blocks = wl.blocks.get();
  return a;
}

template <typename T, int MODE, int BM, int BN, int NB, int EPI, int VEC = 8, int W = 4>
void launch_tc(const WorkList& wl, GemmArgs a, cudaStream_t s) {
  if (wl.count == 0) return;
  auto kernel = tc_gemm_kernel<T, MODE, BM, BN, NB, EPI, VEC, W>;
  constexpr size_t smem = tc_smem_bytes<MODE, BM, BN, NB>();
  static const cudaError_t attr =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
  check_cuda(attr, "cudaFuncSetAttribute(tc_gemm_kernel)");
  kernel<<<wl.count, 32 * W, smem, s>>>(with_list(a, wl));
  check_cuda(cudaGetLastError(), "tc_gemm_kernel launch");
}

// A persistent kernel's grid: as many CTAs as fit on the device at once (the caller caps it by
// the number of work items). Sets the kernel's dynamic shared-memory limit first.
template <typename Kernel>
uint32_t resident_ctas(Kernel kernel, int threads, size_t smem) {
  check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)),
             "cudaFuncSetAttribute(persistent kernel)");
  int dev = 0, sms = 0, per_sm = 0;
  check_cuda(cudaGetDevice(&dev), "cudaGetDevice");
  check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "multiprocessor count");
  check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem), "occupancy");
  return uint32_t(std::max(1, sms * per_sm));
}

template <typename T, int MODE, int BM, int BN, int STAGES>
void launch_wg(const WorkList& wl, GemmArgs a, cudaStream_t s) {
  if (wl.count == 0) return;
  auto kernel = wg_gemm_kernel<T, MODE, BM, BN, STAGES>;
  constexpr size_t smem = wg_smem_bytes<BM, BN, STAGES>();
  static const uint32_t resident = resident_ctas(kernel, BM * 2, smem);
  kernel<<<std::min(wl.count, resident), BM * 2, smem, s>>>(with_list(a, wl), wl.count);
  check_cuda(cudaGetLastError(), "wg_gemm_kernel launch");
}

// The many-CTA form (tiles "wm"): one CTA per work item, MINB of them per SM.
template <typename T, int MODE, int BM, int BN, int STAGES, int MINB>
void launch_wm(const WorkList& wl, GemmArgs a, cudaStream_t s) {
  if (wl.count == 0) return;
  auto kernel = wg_gemm_kernel<T, MODE, BM, BN, STAGES, MINB, true>;
  constexpr size_t smem = wg_smem_bytes<BM, BN, STAGES>();
  static_assert(MINB * (smem + 1024) <= 228 * 1024, "MINB CTAs must fit one SM's shared memory");
  static const cudaError_t attr =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
  check_cuda(attr, "cudaFuncSetAttribute(wg_gemm_kernel, many CTAs)");
  kernel<<<wl.count, BM * 2, smem, s>>>(with_list(a, wl), wl.count);
  check_cuda(cudaGetLastError(), "wg_gemm_kernel launch (many CTAs)");
}

template <typename T, int MODE, int NB, int EPI>
void launch_simt(const WorkList& wl, GemmArgs a, cudaStream_t s) {
  if (wl.count == 0) return;
  simt_gemm_kernel<T, MODE, NB, EPI><<<wl.count, kSimtThreads, 0, s>>>(with_list(a, wl));
  check_cuda(cudaGetLastError(), "simt_gemm_kernel launch");
}

template <typename T>
constexpr bool is_tensor_core_type() {
  return sizeof(T) == 2;
}

}  // namespace qalg::gpu::detail
