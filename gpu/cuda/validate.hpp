#pragma once
// Host-side checks run before every launch (issue 6 "Bad input"): each failure is one
// std::invalid_argument naming the call, the argument and what was expected.
#include <cstdint>
#include <string>

#include "qalg/gpu/kernels.hpp"

namespace qalg::gpu::detail {

// Non-null, 16-byte aligned, `dtype` as expected, exactly rows × cols.
void check_matrix(const char* call, const char* name, const DeviceMatrix& m, DType dtype,
                  uint64_t rows, uint64_t cols);
void check_workspace(const char* call, const float* ws);

}  // namespace qalg::gpu::detail
