#pragma once
// TMA tensor maps (CUtensorMap) for the warp-specialised kernels, encoded through the driver entry
// point the runtime hands out, so the library links no libcuda of its own.
#include <cuda.h>

#include <cstdint>

#include "qalg/gpu/kernels.hpp"

namespace qalg::gpu::detail {

// A row-major rows × cols matrix of 16-bit elements (ld = cols), boxes of box_rows × box_cols
// (box_cols · 2 = 128 bytes), 128-byte swizzle, zero fill outside the matrix.
CUtensorMap tensor_map_2d(const void* base, DType dtype, uint64_t rows, uint64_t cols, uint32_t box_rows,
                          uint32_t box_cols);

}  // namespace qalg::gpu::detail
