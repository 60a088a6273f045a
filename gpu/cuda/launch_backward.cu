// Entry points of the backward maps (SPEC §5): dX and dW, each output element stored once (deep
// tiles split-K into FP32 slots, the last chunk storing, split_k.cuh), and backward() with the two on two streams.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <stdexcept>
#include <string>

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
std::atomic<uint32_t> g_dx_engine{uint32_t(TileEngine::wgmma_many)}, g_dw_engine{uint32_t(TileEngine::wgmma_many)};

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
    if (x != TileEngine::wgmma && x != TileEngine::wgmma_many && x != TileEngine::wgmma_many_lean)
      throw std::invalid_argument("set_backward_engines: dX and dW run on wgmma, wgmma_many or wgmma_many_lean, got engine " +
                                  std::to_string(uint32_t(x)));
  g_dx_engine = uint32_t(e.dx), g_dw_engine = uint32_t(e.dw);
}
BackwardEngines backward_engines() { return {TileEngine(g_dx_engine.load()), TileEngine(g_dw_engine.load())}; }

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
  dispatch_dtype(dY.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_tensor_core_type<T>()) {
      if (p.widths_vector_aligned()) {  // dX columns run over the input groups s_k
        const uint32_t s_max = max_width(p.plan().input_widths);
        if (s_max <= 32 && g_dx_engine.load() == uint32_t(TileEngine::wgmma)) {
          const WorkList& l = impl.list(batch, ListKind::grad_x, 64, 32);
          return launch_tc<T, kGradX, 64, 32, 1, kStore>(l, with_split(l, a), stream);
        }
        return launch_backward_wgmma<T, kGradX>(batch, ListKind::grad_x, s_max <= 64 ? 64 : 128,
                                                TileEngine(g_dx_engine.load()), a, stream);
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
  dispatch_dtype(X.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_tensor_core_type<T>()) {
      if (p.widths_vector_aligned()) {  // dW tiles: rows over s_k, columns over r_j
        const uint32_t r_max = max_width(p.plan().output_widths);
        if (r_max <= 32 && g_dw_engine.load() == uint32_t(TileEngine::wgmma)) {
          const WorkList& l = impl.list(batch, ListKind::grad_w, 64, 32);
          return launch_tc<T, kGradW, 64, 32, 1, kStore>(l, with_split(l, a), stream);
        }
        return launch_backward_wgmma<T, kGradW>(batch, ListKind::grad_w, r_max <= 64 ? 64 : 128,
                                                TileEngine(g_dw_engine.load()), a, stream);
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
