#pragma once
// The GPU dense reference (ARCHITECTURE "Independence of references", path 2): for each row type
// i, T_i(W) is materialised from the structure constants of the TABLE (never from a plan) and the
// rows of that type go through an ordinary GEMM (FP32 accumulate, FP32 output): cuBLAS, or with
// ReferenceGemm::plain (QALG_REFERENCE_GEMM=plain) a plain loop for sanitizer runs.
//   T_i(W) block (col(a), col(m)) += c · W_slot(b)  for every c_ab^m ≠ 0 with row(a) = row(m) = i.
#include <cstdint>
#include <memory>
#include <vector>

#include "qalg/gpu/kernels.hpp"
#include "qalg/gpu/reference_gemm.hpp"
#include "qalg/gpu/table_data.hpp"

namespace qalg::gpu {

class CudaDenseReference {
 public:
  // Throws std::invalid_argument if the table has no slot layout, a coefficient does not fit a
  // float, or a product's blocks have sizes that do not match the widths.
  CudaDenseReference(const TableData& table, std::vector<uint32_t> input_widths,
                     std::vector<uint32_t> output_widths, ReferenceGemm gemm = reference_gemm_from_env());
  ~CudaDenseReference();
  CudaDenseReference(const CudaDenseReference&) = delete;
  CudaDenseReference& operator=(const CudaDenseReference&) = delete;

  uint32_t q() const { return q_; }
  ReferenceGemm gemm() const { return gemm_; }
  // Outputs are FP32 device matrices (row-major): Y M×N, dX M×K, dW K×N.
  void forward(const std::vector<uint32_t>& types, const DeviceMatrix& X, const DeviceMatrix& W,
               float* Y);
  void grad_x(const std::vector<uint32_t>& types, const DeviceMatrix& dY, const DeviceMatrix& W,
              float* dX);
  void grad_w(const std::vector<uint32_t>& types, const DeviceMatrix& X, const DeviceMatrix& dY,
              float* dW);

  // One block of T_i(W): destination (input group, output group) ← coef · W block (src_row, src_col).
  struct BlockTerm {
    uint32_t dst_k, dst_j, src_k, src_j;
    float coef;
  };
  const std::vector<BlockTerm>& blocks(uint32_t type) const { return blocks_[type]; }

  struct Impl;

 private:
  uint32_t q_ = 0;
  ReferenceGemm gemm_ = ReferenceGemm::cublas;
  std::vector<uint32_t> s_, r_;
  std::vector<uint64_t> in_off_, out_off_;
  std::vector<std::vector<BlockTerm>> blocks_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace qalg::gpu
