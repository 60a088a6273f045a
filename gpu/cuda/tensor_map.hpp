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

// The same without swizzle, boxes of box_rows × box_cols (box_cols a multiple of 8, at most 256
// each): the narrow-group law kernel's W tiles, read by ldmatrix at a pitch of box_cols.
CUtensorMap tensor_map_2d_plain(const void* base, DType dtype, uint64_t rows, uint64_t cols, uint32_t box_rows,
                                uint32_t box_cols);

// The rows of a batch whose grouped row list has the closed form f (work_list.hpp RowFormula: c rows
// per type, row = type · a + index · b) as a 3-D tensor (column, index within the type, type) over a
// row-major matrix with leading dimension ld: a box of box_rows consecutive indices of one type is
// that type's next box_rows rows, gathered by the copy engine (cyclic types: every q-th row).
// Indices past c read as zeros. Needs ld a multiple of 8.
CUtensorMap tensor_map_typed_rows(const void* base, DType dtype, uint64_t cols, uint64_t ld, RowFormula f, uint64_t M,
                                  uint32_t box_rows);
// Grouped forms for plans whose q input groups all have width s (s a multiple of 8, K = q·s): the
// column (X) or row (W) dimension split into (index within the group, group), so a 64-wide box at
// index kk of group g reads only that group and the copy engine fills indices past s with zeros.
// Why: a term of width s = 40 (Qwen3-32B at q = 128) or 80 (Qwen3-4B at q = 32) otherwise has
// partly empty steps that the producer warp gathers with cp.async (BM · 8 copies) and 8-row W boxes.
//   X: (column within group, group, index within type, type), boxes box_cols × 1 × box_rows × 1
//   (64 columns under the 128B swizzle, or 16 under the 32B swizzle: kTrimTail's x slices).
//   W (K × N, row-major): (column, row within group, group), boxes 64 × box_rows × 1 (64, or 16 for
//   the trimmed last steps of wgs_gemm.cuh: kK16Shift).
CUtensorMap tensor_map_grouped_typed_rows(const void* base, DType dtype, uint32_t s, uint32_t q, uint64_t ld,
                                          RowFormula f, uint64_t M, uint32_t box_rows, uint32_t box_cols = 64);
// The same over w-wide groups without swizzle, boxes of box_cols × 1 × box_rows × 1 (box_cols a
// multiple of 8, at most 256 each): the narrow-group law kernel's Y stores, w = r or 2r. Columns
// past w and indices past c are not written, so a box may be wider than a group's last piece.
CUtensorMap tensor_map_grouped_typed_rows_plain(const void* base, DType dtype, uint32_t w, uint32_t groups, uint64_t ld,
                                                RowFormula f, uint64_t M, uint32_t box_cols, uint32_t box_rows);
CUtensorMap tensor_map_grouped_rows(const void* base, DType dtype, uint32_t s, uint32_t q, uint64_t N,
                                    uint32_t box_rows = 64);
// W (K × N, row-major, N = groups · r) with its columns split into (column within output group,
// output group): a 3-D tensor (column within group, group, row), boxes 64 × 1 × 64 under the 128B
// swizzle, so a box at column 0 of group j holds that group's r <= 64 columns and zeros past them
// (the copy engine reads none of the next group's). The group-pair tiles' W boxes (wgs_gemm.cuh GP).
// Needs r a multiple of 8.
CUtensorMap tensor_map_column_groups(const void* base, DType dtype, uint64_t K, uint32_t r, uint32_t groups);

}  // namespace qalg::gpu::detail
