#pragma once
// Which GEMM the GPU dense reference (cuda_dense_reference.hpp) multiplies with. cuBLAS is the
// default; "plain" is a one-thread-per-output FP32 loop with no shared memory. compute-sanitizer's
// racecheck tracks shared memory, so it has nothing to track in the plain loop. In cuBLAS's Hopper
// kernels it reported 100 hazards in one cut run of WsLawFirst.* (cuBLAS's code, not qalg's), and
// left uninstrumented (--kernel-name-exclude) they ended in a hardware exception the sanitizer
// could not handle (H100, 2026-12-07). Chosen by QALG_REFERENCE_GEMM so that a sanitizer run needs
// no rebuild.
#include <string_view>

namespace qalg::gpu {

enum class ReferenceGemm { cublas, plain };

// "cublas" or "plain"; anything else throws std::invalid_argument naming the value.
ReferenceGemm parse_reference_gemm(std::string_view name);
// QALG_REFERENCE_GEMM, cuBLAS where it is unset or empty.
ReferenceGemm reference_gemm_from_env();

}  // namespace qalg::gpu
