#pragma once
// TMA tensor maps (CUtensorMap) for the warp-specialised kernels, encoded through the driver entry
// point the runtime hands out, so the library links no libcuda of its own.
#include <cuda.h>

#include <cstdint>

#include "qalg/gpu/kernels.hpp"
#include "work_list.hpp"

namespace qalg::gpu::detail {

// A row-major rows × cols matrix of 16-bit elements (ld = cols), boxes of box_rows × box_cols
// (box_cols · 2 = 128 bytes), 128-byte swizzle, zero fill outside the matrix.
CUtensorMap tensor_map_2d(const void* base, DType dtype, uint64_t rows, uint64_t cols, uint32_t box_rows,
                          uint32_t box_cols);

// The rows of a batch whose grouped row list has the closed form f (work_list.hpp RowFormula: c rows
// per type, row = type · a + index · b) as a 3-D tensor (column, index within the type, type) over a
// row-major matrix with leading dimension ld: a box of box_rows consecutive indices of one type is
// that type's next box_rows rows, gathered by the copy engine (cyclic types: every q-th row).
// Indices past c read as zeros. Needs ld a multiple of 8.
CUtensorMap tensor_map_typed_rows(const void* base, DType dtype, uint64_t cols, uint64_t ld, RowFormula f, uint64_t M,
                                  uint32_t box_rows);

}  // namespace qalg::gpu::detail
