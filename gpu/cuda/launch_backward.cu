// Entry points of the backward maps (SPEC §5): dX and dW, each output element stored once (deep
// tiles split-K into FP32 slots, the last chunk storing, split_k.cuh), and backward() with the two on two streams.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <stdexcept>
#include <string>

#include "batched_law.hpp"
#include "device_impl.hpp"
#include "launch_common.cuh"
#include "validate.hpp"

namespace qalg::gpu {
using namespace detail;

namespace {
uint32_t max_width(const std::vector<uint32_t>& w) {
  uint32_t m = 0;
  for (uint32_t x : w) m = std::max(m, x);
  return m;
}

// For widths <= 32 (the Qwen3-30B expert's r = 24 at q = 32) wgmma means the mma.sync 64x32 tiles
// and wgmma_many / wgmma_many_lean the 64x64 wgmma tiles, mostly zero-filled columns; the bench
// calibrates the choice.
// Default wm for both: measured on the H200 (fourth session, 8 training shapes at M = 2048), one
// CTA per tile was faster than the persistent kernel for every dX and dW (8B up: dX 110.9 → 99.5 µs,
// dW 204.7 → 173.5 µs; the epilogues of many small tiles overlap only across CTAs).
// Default cublas_batched for both (eighth session): where it applies (the complete-graph law, equal
// widths, cyclic or interval types) a probe on the H200 measured it faster than the best kernel on
// every training shape (Qwen3-30B expert up: dX 11.9 against 21.4 µs, dW 13.2 against 22.4; 8B up
// dX 62.8 / 91.0, dW 67.0 / 160.3); elsewhere it runs wgmma_many.
std::atomic<uint32_t> g_dx_engine{uint32_t(TileEngine::cublas_batched)},
    g_dw_engine{uint32_t(TileEngine::cublas_batched)};

// The engine that runs a product: cublas_batched where the batch allows it (run_batched), otherwise
// its kernel fallback, wgmma_many.
TileEngine kernel_engine(TileEngine e) { return e == TileEngine::cublas_batched ? TileEngine::wgmma_many : e; }

void build_batched(const DeviceBatch& batch) {
  auto& impl = batch.impl();
  std::lock_guard<std::mutex> lock(impl.mutex);
  if (impl.batched_built) return;
  const KernelPlan& p = batch.plan().plan();
  impl.batched_dx = batched_backward(p, impl.formula, batch.rows(), true);
  impl.batched_dw = batched_backward(p, impl.formula, batch.rows(), false);
  if (!impl.batched_dx.empty()) {
    constexpr size_t kWorkspace = size_t(32) << 20;  // what cuBLAS asks for on Hopper
    cublasHandle_t* handles[2] = {&impl.blas_dx, &impl.blas_dw};
    for (int h = 0; h < 2; ++h) {
      if (cublasCreate(handles[h]) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublas_batched: cublasCreate failed");
      check_cuda(cudaMalloc(&impl.blas_workspace[h], kWorkspace), "cublas_batched: workspace");
      if (cublasSetWorkspace(*handles[h], impl.blas_workspace[h], kWorkspace) != CUBLAS_STATUS_SUCCESS)
        throw std::runtime_error("cublas_batched: cublasSetWorkspace failed");
    }
  }
  impl.batched_built = true;
}

// dX (grad_x) or dW of a 16-bit batch as its strided-batched GEMMs (batched_law.hpp); false, with
// nothing launched, where the batch has none. ops: X, W, dY, dX, dW (the product's own operands).
bool run_batched(const DeviceBatch& batch, bool grad_x, DType t, const void* const (&ops)[5], cudaStream_t s) {
  if (t != DType::bf16 && t != DType::f16) return false;
  build_batched(batch);
  auto& impl = batch.impl();
  const auto& gemms = grad_x ? impl.batched_dx : impl.batched_dw;
  if (gemms.empty()) return false;
  cublasHandle_t h = grad_x ? impl.blas_dx : impl.blas_dw;
  auto check = [](cublasStatus_t st, const char* what) {
    if (st != CUBLAS_STATUS_SUCCESS)
      throw std::runtime_error(std::string("cublas_batched: ") + what + " failed: " + std::to_string(int(st)));
  };
  check(cublasSetStream(h, s), "cublasSetStream");
  const cudaDataType ct = t == DType::bf16 ? CUDA_R_16BF : CUDA_R_16F;
  const size_t es = dtype_size(t);
  auto at = [&](Operand o, uint64_t off) { return static_cast<const char*>(ops[int(o)]) + off * es; };
  const float one = 1.0f, zero = 0.0f;
  for (const StridedGemm& g : gemms)
    check(cublasGemmStridedBatchedEx(h, g.ta ? CUBLAS_OP_T : CUBLAS_OP_N, g.tb ? CUBLAS_OP_T : CUBLAS_OP_N, int(g.m),
                                     int(g.n), int(g.k), &one, at(g.a, g.a_off), ct, int64_t(g.lda), int64_t(g.sa),
                                     at(g.b, g.b_off), ct, int64_t(g.ldb), int64_t(g.sb), &zero,
                                     const_cast<char*>(at(g.c, g.c_off)), ct, int64_t(g.ldc), int64_t(g.sc),
                                     int(g.batch), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
          "cublasGemmStridedBatchedEx");
  return true;
}

// The arguments with list wl's split-K scratch: its chunks add into FP32 slots and the last chunk
// of each tile converts and stores it (split_k.cuh), so a list is one launch in all.
GemmArgs with_split(const WorkList& wl, GemmArgs a) {
  if (wl.slot_count) {
    a.partial = wl.partial.get();
    a.slots = wl.slots.get();
    a.arrivals = wl.arrivals.get();
  }
  return a;
}

// dX and dW through the wgmma kernels with a tile of `bn` columns (64 or 128), persistent (wg) or
// one CTA per tile (wm), per the engine.
template <typename T, int MODE>
void launch_backward_wgmma(const DeviceBatch& batch, ListKind kind, uint32_t bn, TileEngine e, GemmArgs a,
                           cudaStream_t s) {
  const WorkList& l = batch.impl().list(batch, kind, 64, bn);
  const GemmArgs x = with_split(l, a);
  if (e == TileEngine::wgmma_many) {
    if (bn == 64) return launch_wm<T, MODE, 64, 64, 3, 4>(l, x, s);
    return launch_wm<T, MODE, 64, 128, 3, 3>(l, x, s);
  }
  if (e == TileEngine::wgmma_many_lean) {  // 2 stages: 6 CTAs per SM at 64x64, 4 at 64x128
    if (bn == 64) return launch_wm<T, MODE, 64, 64, 2, 6>(l, x, s);
    return launch_wm<T, MODE, 64, 128, 2, 4>(l, x, s);
  }
  if (bn == 64) return launch_wg<T, MODE, 64, 64, 6>(l, x, s);
  return launch_wg<T, MODE, 64, 128, 4>(l, x, s);
}
}  // namespace

void set_backward_engines(BackwardEngines e) {
  for (TileEngine x : {e.dx, e.dw})
    if (x != TileEngine::wgmma && x != TileEngine::wgmma_many && x != TileEngine::wgmma_many_lean &&
        x != TileEngine::cublas_batched)
      throw std::invalid_argument(
          "set_backward_engines: dX and dW run on wgmma, wgmma_many, wgmma_many_lean or cublas_batched, got engine " +
          std::to_string(uint32_t(x)));
  g_dx_engine = uint32_t(e.dx), g_dw_engine = uint32_t(e.dw);
}
BackwardEngines backward_engines() { return {TileEngine(g_dx_engine.load()), TileEngine(g_dw_engine.load())}; }

bool batched_backward_applies(const DeviceBatch& batch) {
  build_batched(batch);
  return !batch.impl().batched_dx.empty();
}

void backward_dx(const DeviceBatch& batch, const DeviceMatrix& dY, const DeviceMatrix& W,
                 const DeviceMatrix& dX, cudaStream_t stream) {
  const DevicePlan& p = batch.plan();
  const uint64_t M = batch.rows(), K = p.K(), N = p.N();
  check_matrix("backward_dx", "dY", dY, dY.dtype, M, N);
  check_matrix("backward_dx", "W", W, dY.dtype, K, N);
  check_matrix("backward_dx", "dX", dX, dY.dtype, M, K);
  if (M == 0) return;
  GemmArgs a;
  a.rows = batch.impl().rows.get();
  if (row_formula_enabled()) a.row_formula = batch.impl().formula;
  a.A = dY.data, a.lda = N;
  a.B0 = W.data, a.ldb = N;  // read transposed: B(kk, n) = W[n][kk]
  a.C = dX.data, a.ldc = K;
  auto& impl = batch.impl();
  const void* const ops[5] = {nullptr, W.data, dY.data, dX.data, nullptr};
  const TileEngine chosen = TileEngine(g_dx_engine.load());
  if (chosen == TileEngine::cublas_batched && run_batched(batch, true, dY.dtype, ops, stream)) return;
  const TileEngine engine = kernel_engine(chosen);
  dispatch_dtype(dY.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_tensor_core_type<T>()) {
      if (p.widths_vector_aligned()) {  // dX columns run over the input groups s_k
        const uint32_t s_max = max_width(p.plan().input_widths);
        if (s_max <= 32 && engine == TileEngine::wgmma) {
          const WorkList& l = impl.list(batch, ListKind::grad_x, 64, 32);
          return launch_tc<T, kGradX, 64, 32, 1, kStore>(l, with_split(l, a), stream);
        }
        return launch_backward_wgmma<T, kGradX>(batch, ListKind::grad_x, s_max <= 64 ? 64 : 128, engine, a, stream);
      }
    }
    const WorkList& l = impl.list(batch, ListKind::grad_x, kSimtBM, kSimtBN);
    launch_simt<T, kGradX, 1, kStore>(l, with_split(l, a), stream);
  });
}

void backward_dw(const DeviceBatch& batch, const DeviceMatrix& X, const DeviceMatrix& dY,
                 const DeviceMatrix& dW, cudaStream_t stream) {
  const DevicePlan& p = batch.plan();
  const uint64_t M = batch.rows(), K = p.K(), N = p.N();
  check_matrix("backward_dw", "X", X, X.dtype, M, K);
  check_matrix("backward_dw", "dY", dY, X.dtype, M, N);
  check_matrix("backward_dw", "dW", dW, X.dtype, K, N);
  GemmArgs a;
  a.rows = batch.impl().rows.get();
  if (row_formula_enabled()) a.row_formula = batch.impl().formula;
  a.A = X.data, a.lda = K;    // read transposed and gathered: A(m, kk) = X[row(kk)][m]
  a.B0 = dY.data, a.ldb = N;  // gathered: B(kk, n) = dY[row(kk)][n]
  a.C = dW.data, a.ldc = N;
  auto& impl = batch.impl();
  const void* const ops[5] = {X.data, nullptr, dY.data, nullptr, dW.data};
  const TileEngine chosen = TileEngine(g_dw_engine.load());
  if (chosen == TileEngine::cublas_batched && run_batched(batch, false, X.dtype, ops, stream)) return;
  const TileEngine engine = kernel_engine(chosen);
  dispatch_dtype(X.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_tensor_core_type<T>()) {
      if (p.widths_vector_aligned()) {  // dW tiles: rows over s_k, columns over r_j
        const uint32_t r_max = max_width(p.plan().output_widths);
        if (r_max <= 32 && engine == TileEngine::wgmma) {
          const WorkList& l = impl.list(batch, ListKind::grad_w, 64, 32);
          return launch_tc<T, kGradW, 64, 32, 1, kStore>(l, with_split(l, a), stream);
        }
        return launch_backward_wgmma<T, kGradW>(batch, ListKind::grad_w, r_max <= 64 ? 64 : 128, engine, a, stream);
      }
    }
    const WorkList& l = impl.list(batch, ListKind::grad_w, kSimtBM, kSimtBN);
    launch_simt<T, kGradW, 1, kStore>(l, with_split(l, a), stream);
  });
}

void backward(const DeviceBatch& batch, const DeviceMatrix& X, const DeviceMatrix& dY, const DeviceMatrix& W,
              const DeviceMatrix& dX, const DeviceMatrix& dW, cudaStream_t stream) {
  const DevicePlan& p = batch.plan();
  const uint64_t M = batch.rows(), K = p.K(), N = p.N();
  check_matrix("backward", "X", X, X.dtype, M, K);  // all five before anything is launched
  check_matrix("backward", "dY", dY, X.dtype, M, N);
  check_matrix("backward", "W", W, X.dtype, K, N);
  check_matrix("backward", "dX", dX, X.dtype, M, K);
  check_matrix("backward", "dW", dW, X.dtype, K, N);
  auto& impl = batch.impl();
  {
    std::lock_guard<std::mutex> lock(impl.mutex);
    if (!impl.side) {
      check_cuda(cudaStreamCreateWithFlags(&impl.side, cudaStreamNonBlocking), "backward: second stream");
      check_cuda(cudaEventCreateWithFlags(&impl.fork, cudaEventDisableTiming), "backward: fork event");
      check_cuda(cudaEventCreateWithFlags(&impl.join, cudaEventDisableTiming), "backward: join event");
    }
  }
  check_cuda(cudaEventRecord(impl.fork, stream), "backward: fork");
  check_cuda(cudaStreamWaitEvent(impl.side, impl.fork, 0), "backward: fork wait");
  backward_dw(batch, X, dY, dW, impl.side);
  backward_dx(batch, dY, W, dX, stream);
  check_cuda(cudaEventRecord(impl.join, impl.side), "backward: join");
  check_cuda(cudaStreamWaitEvent(stream, impl.join, 0), "backward: join wait");
}

}  // namespace qalg::gpu
