#pragma once
// Launch helpers shared by the entry points: dtype dispatch, one launch of a work list through
// the tensor-core or the CUDA-core kernel, with the launch error checked.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "decode_gemv.cuh"
#include "device_impl.hpp"
#include "simt_gemm.cuh"
#include "tc_gemm.cuh"

namespace qalg::gpu::detail {

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
