// tensor_map.hpp: cuTensorMapEncodeTiled through cudaGetDriverEntryPointByVersion.
#include "tensor_map.hpp"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace qalg::gpu::detail {
namespace {
using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                 const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                 CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
EncodeTiled encoder() {
  static const EncodeTiled fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess || !p)
      throw std::runtime_error("CUDA error: the driver has no cuTensorMapEncodeTiled (TMA needs CUDA 12 and sm_90)");
    return reinterpret_cast<EncodeTiled>(p);
  }();
  return fn;
}
}  // namespace

namespace {
CUtensorMap encode_2d(const void* base, DType dtype, uint64_t rows, uint64_t cols, uint32_t box_rows, uint32_t box_cols,
                      CUtensorMapSwizzle swizzle, const char* kind) {
  CUtensorMap map{};
  const cuuint64_t dims[2] = {cols, rows};
  const cuuint64_t strides[1] = {cols * 2};
  const cuuint32_t box[2] = {box_cols, box_rows};
  const cuuint32_t elem[2] = {1, 1};
  const CUresult r = encoder()(&map, dtype == DType::bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                               2, const_cast<void*>(base), dims, strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
                               swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw std::runtime_error("CUDA error in cuTensorMapEncodeTiled: code " + std::to_string(int(r)) + " for a " +
                             std::to_string(rows) + "x" + std::to_string(cols) + " matrix" + kind);
  return map;
}
}  // namespace

CUtensorMap tensor_map_2d(const void* base, DType dtype, uint64_t rows, uint64_t cols, uint32_t box_rows,
                          uint32_t box_cols) {
  if (dtype == DType::f32) throw std::logic_error("tensor_map_2d: 16-bit element types only");
  return encode_2d(base, dtype, rows, cols, box_rows, box_cols, CU_TENSOR_MAP_SWIZZLE_128B, "");
}

CUtensorMap tensor_map_2d_plain(const void* base, DType dtype, uint64_t rows, uint64_t cols, uint32_t box_rows,
                                uint32_t box_cols) {
  if (dtype == DType::f32) throw std::logic_error("tensor_map_2d_plain: 16-bit element types only");
  if (cols % 8 != 0 || box_cols % 8 != 0 || box_cols > 256 || box_rows == 0 || box_rows > 256)
    throw std::logic_error("tensor_map_2d_plain: cols and box columns must be multiples of 8, boxes at most 256");
  return encode_2d(base, dtype, rows, cols, box_rows, box_cols, CU_TENSOR_MAP_SWIZZLE_NONE, " (plain boxes)");
}

namespace {
// The typed-rows map (tensor_map_typed_rows) with its box and swizzle as parameters.
CUtensorMap encode_typed_rows(const char* what, const void* base, DType dtype, uint64_t cols, uint64_t ld, RowFormula f,
                              uint64_t M, uint32_t box_cols, uint32_t box_rows, CUtensorMapSwizzle swizzle) {
  if (dtype == DType::f32) throw std::logic_error(std::string(what) + ": 16-bit element types only");
  if (f.c == 0 || M % f.c != 0 || ld % 8 != 0)
    throw std::logic_error(std::string(what) + ": no closed form, or ld not a multiple of 8");
  CUtensorMap map{};
  const uint64_t types = M / f.c;
  // A dimension of extent 1 never steps: any valid stride will do for it.
  const uint64_t step_index = (f.c > 1 ? f.b : 1) * ld * 2, step_type = (types > 1 ? f.a : 1) * ld * 2;
  const cuuint64_t dims[3] = {cols, f.c, types};
  const cuuint64_t strides[2] = {step_index, step_type};
  const cuuint32_t box[3] = {box_cols, box_rows, 1};
  const cuuint32_t elem[3] = {1, 1, 1};
  const CUresult r = encoder()(&map, dtype == DType::bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                               3, const_cast<void*>(base), dims, strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
                               swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw std::runtime_error("CUDA error in cuTensorMapEncodeTiled: code " + std::to_string(int(r)) + " for " + what +
                             " on a " + std::to_string(M) + "x" + std::to_string(cols) + " matrix");
  return map;
}
}  // namespace

CUtensorMap tensor_map_typed_rows(const void* base, DType dtype, uint64_t cols, uint64_t ld, RowFormula f, uint64_t M,
                                  uint32_t box_rows) {
  return encode_typed_rows("tensor_map_typed_rows", base, dtype, cols, ld, f, M, 64, box_rows, CU_TENSOR_MAP_SWIZZLE_128B);
}

namespace {
CUtensorMap encode(const char* what, const void* base, DType dtype, cuuint32_t rank, const cuuint64_t* dims,
                   const cuuint64_t* strides, const cuuint32_t* box,
                   CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_128B) {
  if (dtype == DType::f32) throw std::logic_error(std::string(what) + ": 16-bit element types only");
  CUtensorMap map{};
  const cuuint32_t elem[5] = {1, 1, 1, 1, 1};
  const CUresult r = encoder()(&map, dtype == DType::bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                               rank, const_cast<void*>(base), dims, strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
                               swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw std::runtime_error(std::string("CUDA error in cuTensorMapEncodeTiled: code ") + std::to_string(int(r)) +
                             " for " + what);
  return map;
}
}  // namespace

CUtensorMap tensor_map_grouped_typed_rows(const void* base, DType dtype, uint32_t s, uint32_t q, uint64_t ld,
                                          RowFormula f, uint64_t M, uint32_t box_rows, uint32_t box_cols) {
  if (f.c == 0 || M % f.c != 0 || ld % 8 != 0 || s % 8 != 0 || uint64_t(s) * q > ld)
    throw std::logic_error("tensor_map_grouped_typed_rows: no closed form, or widths not multiples of 8");
  if (box_cols != 64 && box_cols != 16) throw std::logic_error("tensor_map_grouped_typed_rows: boxes of 64 or 16 columns");
  const uint64_t types = M / f.c;
  const uint64_t step_index = (f.c > 1 ? f.b : 1) * ld * 2, step_type = (types > 1 ? f.a : 1) * ld * 2;
  const cuuint64_t dims[4] = {s, q, f.c, types};
  const cuuint64_t strides[3] = {uint64_t(s) * 2, step_index, step_type};
  const cuuint32_t box[4] = {box_cols, 1, box_rows, 1};
  return encode("the grouped typed rows of X", base, dtype, 4, dims, strides, box,
                box_cols == 64 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_32B);
}

CUtensorMap tensor_map_grouped_typed_rows_plain(const void* base, DType dtype, uint32_t w, uint32_t groups, uint64_t ld,
                                                RowFormula f, uint64_t M, uint32_t box_cols, uint32_t box_rows) {
  if (f.c == 0 || M % f.c != 0 || ld % 8 != 0 || w % 8 != 0 || uint64_t(w) * groups > ld)
    throw std::logic_error("tensor_map_grouped_typed_rows_plain: no closed form, or widths not multiples of 8");
  if (box_cols % 8 != 0 || box_cols == 0 || box_cols > 256 || box_rows == 0 || box_rows > 256)
    throw std::logic_error("tensor_map_grouped_typed_rows_plain: box columns must be a multiple of 8, boxes at most 256");
  const uint64_t types = M / f.c;
  const uint64_t step_index = (f.c > 1 ? f.b : 1) * ld * 2, step_type = (types > 1 ? f.a : 1) * ld * 2;
  const cuuint64_t dims[4] = {w, groups, f.c, types};
  const cuuint64_t strides[3] = {uint64_t(w) * 2, step_index, step_type};
  const cuuint32_t box[4] = {box_cols, 1, box_rows, 1};
  return encode("the grouped typed rows of Y (plain boxes)", base, dtype, 4, dims, strides, box, CU_TENSOR_MAP_SWIZZLE_NONE);
}

CUtensorMap tensor_map_grouped_rows(const void* base, DType dtype, uint32_t s, uint32_t q, uint64_t N, uint32_t box_rows) {
  if (s % 8 != 0 || N % 8 != 0) throw std::logic_error("tensor_map_grouped_rows: widths not multiples of 8");
  if (box_rows == 0 || box_rows > 64 || box_rows % 8 != 0) throw std::logic_error("tensor_map_grouped_rows: box rows not 8 … 64");
  const cuuint64_t dims[3] = {N, s, q};
  const cuuint64_t strides[2] = {N * 2, uint64_t(s) * N * 2};
  const cuuint32_t box[3] = {64, box_rows, 1};
  return encode("the grouped rows of W", base, dtype, 3, dims, strides, box);
}

CUtensorMap tensor_map_column_groups(const void* base, DType dtype, uint64_t K, uint32_t r, uint32_t groups) {
  if (r == 0 || r % 8 != 0 || groups == 0) throw std::logic_error("tensor_map_column_groups: widths not multiples of 8");
  const uint64_t N = uint64_t(r) * groups;
  const cuuint64_t dims[3] = {r, groups, K};
  const cuuint64_t strides[2] = {uint64_t(r) * 2, N * 2};
  const cuuint32_t box[3] = {64, 1, 64};
  return encode("the column groups of W", base, dtype, 3, dims, strides, box);
}

}  // namespace qalg::gpu::detail
