// The package's C++ API (qalg_kernels.hpp) over the gpu module's kernels, with the plan from
// the generated plan_data.hpp. One DevicePlan per CUDA device, made on first use.
#include "qalg_kernels/qalg_kernels.hpp"

#include <array>
#include <mutex>
#include <stdexcept>
#include <string>

#include "qalg_kernels/plan_data.hpp"

namespace qalg_kernels {
namespace g = generated;

namespace {

KernelPlan make_plan() {
  KernelPlan p;
  p.q = g::kQ;
  p.input_widths.assign(std::begin(g::kInputWidths), std::end(g::kInputWidths));
  p.output_widths.assign(std::begin(g::kOutputWidths), std::end(g::kOutputWidths));
  p.terms.assign(size_t(p.q) * p.q, {});
  p.block_used.assign(size_t(p.q) * p.q, 0);
  for (size_t t = 0; t < g::kTermCount; ++t) {
    const auto& c = g::kTerms[t];
    p.terms[size_t(c.a) * p.q + c.b].push_back(qalg::gpu::PlanTerm{c.c, c.num, c.den});
    p.block_used[size_t(c.c) * p.q + c.b] = 1;
  }
  p.table_hash = g::kTableHash;
  p.field = g::kField;
  return p;
}

int current_device() {
  int d = 0;
  const cudaError_t e = cudaGetDevice(&d);
  if (e != cudaSuccess) throw std::runtime_error(std::string("qalg_kernels: cudaGetDevice: ") + cudaGetErrorString(e));
  return d;
}

// Plans live until the process ends (never freed: CUDA may be torn down before static
// destructors run).
const qalg::gpu::DevicePlan& device_plan(int device) {
  static std::mutex mutex;
  static std::array<qalg::gpu::DevicePlan*, 64> plans{};
  if (device < 0 || device >= int(plans.size())) throw std::invalid_argument("qalg_kernels: device index out of range");
  std::lock_guard<std::mutex> lock(mutex);
  if (!plans[device]) plans[device] = new qalg::gpu::DevicePlan(plan());
  return *plans[device];
}

void check_device(const Batch& b, const char* call) {
  const int d = current_device();
  if (d != b.device())
    throw std::invalid_argument(std::string(call) + ": the batch was made on CUDA device " +
                                std::to_string(b.device()) + ", the current device is " + std::to_string(d));
}

}  // namespace

const KernelPlan& plan() {
  static const KernelPlan p = make_plan();
  return p;
}
uint32_t q() { return g::kQ; }
uint64_t K() { return plan().K(); }
uint64_t N() { return plan().N(); }
const char* algebra() { return g::kAlgebra; }
const char* table_hash() { return g::kTableHash; }
DType default_dtype() {
  const std::string d = g::kDefaultDType;
  return d == "fp32" ? DType::f32 : d == "fp16" ? DType::f16 : DType::bf16;
}

uint32_t type_of_position(int64_t position, TypeSchedule s) {
  if (position < 0) throw std::invalid_argument("type_of_position: position " + std::to_string(position) + " is negative");
  const uint64_t p = uint64_t(position);
  if (s.kind == TypeSchedule::Kind::cyclic) return uint32_t(p % g::kQ);
  if (s.interval == 0) throw std::invalid_argument("type_of_position: interval length L must be positive");
  // (p / L) mod q, which equals (p mod qL) / L without forming qL: q·L overflowed for L near 2^62
  // (a modulo by zero, SIGFPE, or the wrong type; thirty-eighth session's audit)
  return uint32_t((p / s.interval) % g::kQ);
}

std::vector<uint32_t> types_of_positions(const int64_t* positions, size_t count, TypeSchedule s) {
  std::vector<uint32_t> t(count);
  for (size_t r = 0; r < count; ++r) t[r] = type_of_position(positions[r], s);
  return t;
}

Batch::Batch(std::vector<uint32_t> types)
    : device_(current_device()),
      batch_(std::make_unique<qalg::gpu::DeviceBatch>(device_plan(device_), std::move(types))) {}
Batch::~Batch() = default;
uint64_t Batch::rows() const { return batch_->rows(); }

size_t use_calibration(const std::string& path) {
  std::vector<qalg::gpu::CalibrationEntry> rows = qalg::gpu::read_forward_calibration(path);
  const size_t n = rows.size();
  qalg::gpu::use_forward_calibration(std::move(rows));
  return n;
}

void forward(const Batch& b, const DeviceMatrix& X, const DeviceMatrix& W, const DeviceMatrix& Y,
             cudaStream_t stream) {
  check_device(b, "forward");
  qalg::gpu::forward(b.device_batch(), ForwardSchedule::endpoint_fused, X, W, Y, nullptr, stream);
}

void forward_diagonal_first(const Batch& b, const DeviceMatrix& X, const DeviceMatrix& W,
                            const DeviceMatrix& Y, float* workspace, cudaStream_t stream) {
  check_device(b, "forward_diagonal_first");
  qalg::gpu::forward(b.device_batch(), ForwardSchedule::diagonal_first, X, W, Y, workspace, stream);
}

void backward_dx(const Batch& b, const DeviceMatrix& dY, const DeviceMatrix& W,
                 const DeviceMatrix& dX, cudaStream_t stream) {
  check_device(b, "backward_dx");
  qalg::gpu::backward_dx(b.device_batch(), dY, W, dX, stream);
}

void backward_dw(const Batch& b, const DeviceMatrix& X, const DeviceMatrix& dY,
                 const DeviceMatrix& dW, cudaStream_t stream) {
  check_device(b, "backward_dw");
  qalg::gpu::backward_dw(b.device_batch(), X, dY, dW, stream);
}

void decode(uint32_t type, const DeviceMatrix& x, const DeviceMatrix& W, const DeviceMatrix& y,
            cudaStream_t stream) {
  if (type >= g::kQ)
    throw std::invalid_argument("decode: type " + std::to_string(type) + " >= q = " + std::to_string(g::kQ));
  qalg::gpu::decode(device_plan(current_device()), type, x, W, y, stream);
}

}  // namespace qalg_kernels
