#pragma once
// qalg_kernels: the CUDA kernels of one algebra at one shape, exported by `qalg export`.
// The plan is compiled in (plan_data.hpp); certificate.json says which table it came from and
// how it was checked; test/conformance.cpp compares every entry point with a dense reference
// built from the table.
//
// Layouts (row-major, device memory, 16-byte aligned): X is M×K, the weight bank W is K×N,
// Y is M×N. Row p of a batch has type τ(p) < q; its output is y_j = Σ_{k∈B(τ(p),j)} c x_k W_kj.
// Dtypes bf16, fp16, fp32 (one per call, FP32 accumulation). Every entry point checks shapes,
// dtypes, pointers, alignment and the current device first and throws std::invalid_argument.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "qalg/gpu/kernels.hpp"

namespace qalg_kernels {

using qalg::gpu::DeviceMatrix;
using qalg::gpu::DType;
using qalg::gpu::ForwardSchedule;
using qalg::gpu::KernelPlan;

const KernelPlan& plan();  // built from plan_data.hpp
uint32_t q();
uint64_t K();
uint64_t N();
const char* algebra();
const char* table_hash();
DType default_dtype();  // the dtype the package was exported for (`qalg export --dtype`)

// Type of an absolute position (SPEC §4), so training, prefill and decoding agree:
// cyclic τ(p) = p mod q; intervals τ(p) = ⌊(p mod qL) / L⌋.
struct TypeSchedule {
  enum class Kind { cyclic, intervals } kind = Kind::cyclic;
  uint64_t interval = 1;  // L, intervals only
};
uint32_t type_of_position(int64_t position, TypeSchedule s);  // throws on position < 0
std::vector<uint32_t> types_of_positions(const int64_t* positions, size_t count, TypeSchedule s);

// The rows of one batch grouped by type, on the device current at construction. Reuse a Batch
// for the forward and backward calls of one step.
class Batch {
 public:
  explicit Batch(std::vector<uint32_t> types);  // throws if a type is >= q
  ~Batch();
  Batch(const Batch&) = delete;
  Batch& operator=(const Batch&) = delete;
  uint64_t rows() const;
  int device() const { return device_; }
  const qalg::gpu::DeviceBatch& device_batch() const { return *batch_; }

 private:
  int device_ = 0;
  std::unique_ptr<qalg::gpu::DeviceBatch> batch_;
};

// Per-shape tile choices measured by qalg's GPU benchmark: calibration.csv in the package (and in
// share/qalg_kernels after install), rows K,N,q,M,schedule,bm,bn,warps[,engine[,order]] (order:
// columns | types, the warp-specialised tiles' item order, either with "-descending": its items last
// first). Afterwards forward() uses the row
// matching (K, N, q, batch rows) when there is one. Returns the number of
// rows; throws std::invalid_argument naming file:line for a malformed row or an uncompiled tile.
size_t use_calibration(const std::string& path);

// Y = rows of X through T_τ(p)(W) (endpoint-fused schedule, SPEC §6).
void forward(const Batch& b, const DeviceMatrix& X, const DeviceMatrix& W, const DeviceMatrix& Y,
             cudaStream_t stream = nullptr);
// The diagonal-first schedule; workspace: M×N floats.
void forward_diagonal_first(const Batch& b, const DeviceMatrix& X, const DeviceMatrix& W,
                            const DeviceMatrix& Y, float* workspace, cudaStream_t stream = nullptr);
// SPEC §5: dX = rows of dY through T_τ(p)(W)ᵀ; dW = Σ_p adjoint of T_τ(p) on x_pᵀ dy_p.
void backward_dx(const Batch& b, const DeviceMatrix& dY, const DeviceMatrix& W,
                 const DeviceMatrix& dX, cudaStream_t stream = nullptr);
void backward_dw(const Batch& b, const DeviceMatrix& X, const DeviceMatrix& dY,
                 const DeviceMatrix& dW, cudaStream_t stream = nullptr);
// One row of type `type` (decoding): x is 1×K, y is 1×N.
void decode(uint32_t type, const DeviceMatrix& x, const DeviceMatrix& W, const DeviceMatrix& y,
            cudaStream_t stream = nullptr);

}  // namespace qalg_kernels
