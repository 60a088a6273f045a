// Host-side argument checks of the CUDA entry points (issue 6 "Bad input").
#include "validate.hpp"

#include <stdexcept>

namespace qalg::gpu::detail {

void check_matrix(const char* call, const char* name, const DeviceMatrix& m, DType dtype,
                  uint64_t rows, uint64_t cols) {
  const std::string where = std::string(call) + ": " + name;
  if (m.data == nullptr) throw std::invalid_argument(where + " is a null pointer");
  if (reinterpret_cast<uintptr_t>(m.data) % 16 != 0)
    throw std::invalid_argument(where + " is not 16-byte aligned");
  if (m.dtype != dtype)
    throw std::invalid_argument(where + " has dtype " + dtype_name(m.dtype) + ", expected " +
                                dtype_name(dtype) + " (all operands share one dtype)");
  if (m.rows != rows || m.cols != cols)
    throw std::invalid_argument(where + " is " + std::to_string(m.rows) + "x" +
                                std::to_string(m.cols) + ", expected " + std::to_string(rows) +
                                "x" + std::to_string(cols) + " from the plan and batch");
}

void check_workspace(const char* call, const float* ws) {
  if (ws == nullptr)
    throw std::invalid_argument(std::string(call) +
                                ": diagonal-first needs an FP32 workspace of M x N floats, got null");
  if (reinterpret_cast<uintptr_t>(ws) % 16 != 0)
    throw std::invalid_argument(std::string(call) + ": workspace is not 16-byte aligned");
}

}  // namespace qalg::gpu::detail
