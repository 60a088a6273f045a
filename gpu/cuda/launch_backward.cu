// Entry points of the backward maps (SPEC §5): dX and dW, one owner per output element.
#include <algorithm>

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
}  // namespace

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
  a.A = dY.data, a.lda = N;
  a.B0 = W.data, a.ldb = N;  // read transposed: B(kk, n) = W[n][kk]
  a.C = dX.data, a.ldc = K;
  auto& impl = batch.impl();
  dispatch_dtype(dY.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_tensor_core_type<T>()) {
      if (p.widths_vector_aligned()) {  // dX columns run over the input groups s_k
        const uint32_t s_max = max_width(p.plan().input_widths);
        if (s_max <= 32)
          return launch_tc<T, kGradX, 64, 32, 1, kStore>(impl.list(batch, ListKind::grad_x, 64, 32), a, stream);
        if (s_max <= 64)
          return launch_wg<T, kGradX, 64, 64, 6>(impl.list(batch, ListKind::grad_x, 64, 64), a, stream);
        return launch_wg<T, kGradX, 64, 128, 4>(impl.list(batch, ListKind::grad_x, 64, 128), a, stream);
      }
    }
    launch_simt<T, kGradX, 1, kStore>(impl.list(batch, ListKind::grad_x, kSimtBM, kSimtBN), a, stream);
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
  a.A = X.data, a.lda = K;    // read transposed and gathered: A(m, kk) = X[row(kk)][m]
  a.B0 = dY.data, a.ldb = N;  // gathered: B(kk, n) = dY[row(kk)][n]
  a.C = dW.data, a.ldc = N;
  auto& impl = batch.impl();
  dispatch_dtype(X.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_tensor_core_type<T>()) {
      if (p.widths_vector_aligned()) {  // dW tiles: rows over s_k, columns over r_j
        const uint32_t r_max = max_width(p.plan().output_widths);
        if (r_max <= 32)
          return launch_tc<T, kGradW, 64, 32, 1, kStore>(impl.list(batch, ListKind::grad_w, 64, 32), a, stream);
        if (r_max <= 64)
          return launch_wg<T, kGradW, 64, 64, 6>(impl.list(batch, ListKind::grad_w, 64, 64), a, stream);
        return launch_wg<T, kGradW, 64, 128, 4>(impl.list(batch, ListKind::grad_w, 64, 128), a, stream);
      }
    }
    launch_simt<T, kGradW, 1, kStore>(impl.list(batch, ListKind::grad_w, kSimtBM, kSimtBN), a, stream);
  });
}

}  // namespace qalg::gpu
