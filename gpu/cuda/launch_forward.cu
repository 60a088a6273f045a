// Entry points of the forward map (SPEC §4, §6): endpoint-fused, diagonal-first, block products.
#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <string>

#include "launch_common.cuh"
#include "validate.hpp"

namespace qalg::gpu {
using namespace detail;

namespace {
std::atomic<uint32_t> g_bm{64}, g_bn{128}, g_warps{4};

template <typename T>
void launch_fused(const DeviceBatch& b, GemmArgs a, TileConfig t, cudaStream_t s) {
  auto& impl = b.impl();
  if constexpr (is_tensor_core_type<T>()) {
    if (b.plan().widths_vector_aligned()) {
      // Narrow output groups (r_j <= 32) waste most of a 64/128-wide tile: clamp to 32 columns.
      uint32_t rmax = 0;
      for (uint32_t r : b.plan().plan().output_widths) rmax = std::max(rmax, r);
      if (rmax <= 32) t = TileConfig{t.bm, 32, 4};
      const auto& wl = impl.list(b, ListKind::forward, t.bm, t.bn);
      if (t.bn == 32) {
        if (t.bm == 128) return launch_tc<T, kForward, 128, 32, 1, kStore>(wl, a, s);
        return launch_tc<T, kForward, 64, 32, 1, kStore>(impl.list(b, ListKind::forward, 64, 32), a, s);
      }
      if (t.warps == 4) {
        if (t.bm == 64 && t.bn == 128) return launch_tc<T, kForward, 64, 128, 1, kStore>(wl, a, s);
        if (t.bm == 128 && t.bn == 128) return launch_tc<T, kForward, 128, 128, 1, kStore>(wl, a, s);
        if (t.bm == 64 && t.bn == 64) return launch_tc<T, kForward, 64, 64, 1, kStore>(wl, a, s);
        if (t.bm == 128 && t.bn == 64) return launch_tc<T, kForward, 128, 64, 1, kStore>(wl, a, s);
      } else {
        if (t.bm == 128 && t.bn == 128) return launch_tc<T, kForward, 128, 128, 1, kStore, 8, 8>(wl, a, s);
        if (t.bm == 64 && t.bn == 128) return launch_tc<T, kForward, 64, 128, 1, kStore, 8, 8>(wl, a, s);
        if (t.bm == 64 && t.bn == 192) return launch_tc<T, kForward, 64, 192, 1, kStore, 8, 8>(wl, a, s);
        if (t.bm == 64 && t.bn == 256) return launch_tc<T, kForward, 64, 256, 1, kStore, 8, 8>(wl, a, s);
      }
      throw std::invalid_argument("forward: no compiled tile " + std::to_string(t.bm) + "x" + std::to_string(t.bn));
    }
    if (b.plan().vector_width() == 4)  // widths multiple of 4: 8-byte copies
      return launch_tc<T, kForward, 64, 128, 1, kStore, 4>(impl.list(b, ListKind::forward, 64, 128), a, s);
  }
  launch_simt<T, kForward, 1, kStore>(impl.list(b, ListKind::forward, kSimtBM, kSimtBN), a, s);
}

template <typename T>
void launch_diagonal_first(const DeviceBatch& b, GemmArgs a, float* ws, cudaStream_t s) {
  auto& impl = b.impl();
  GemmArgs p1 = a;  // pass 1: x_j W_jj for all rows into the FP32 workspace
  p1.rows = impl.identity.get();
  p1.C = ws;
  GemmArgs p2 = a;  // pass 2: the type-dependent terms, plus c·(x_j W_jj)
  p2.ws = ws;
  if constexpr (is_tensor_core_type<T>()) {
    if (b.plan().widths_vector_aligned()) {
      launch_tc<T, kForward, 128, 128, 1, kStoreF32>(impl.list(b, ListKind::diag_pass1, 128, 128), p1, s);
      launch_tc<T, kForward, 64, 128, 1, kDiagAdd>(impl.list(b, ListKind::diag_pass2, 64, 128), p2, s);
      return;
    }
  }
  launch_simt<T, kForward, 1, kStoreF32>(impl.list(b, ListKind::diag_pass1, kSimtBM, kSimtBN), p1, s);
  launch_simt<T, kForward, 1, kDiagAdd>(impl.list(b, ListKind::diag_pass2, kSimtBM, kSimtBN), p2, s);
}
}  // namespace

void set_forward_tiles(TileConfig t) {
  const bool ok = (t.warps == 4 && (t.bm == 64 || t.bm == 128) && (t.bn == 64 || t.bn == 128)) ||
                  (t.warps == 8 && (t.bm == 64 || t.bm == 128) && t.bn == 128) ||
                  (t.warps == 8 && t.bm == 64 && (t.bn == 192 || t.bn == 256));
  if (!ok)
    throw std::invalid_argument("set_forward_tiles: tile " + std::to_string(t.bm) + "x" +
                                std::to_string(t.bn) + " with " + std::to_string(t.warps) +
                                " warps is not compiled (4 warps: bm, bn in {64, 128}; 8 warps: 64/128x128, 64x192, 64x256)");
  g_bm = t.bm;
  g_bn = t.bn;
  g_warps = t.warps;
}
TileConfig forward_tiles() { return TileConfig{g_bm.load(), g_bn.load(), g_warps.load()}; }

void forward(const DeviceBatch& batch, ForwardSchedule schedule, const DeviceMatrix& X,
             const DeviceMatrix& W, const DeviceMatrix& Y, float* workspace, cudaStream_t stream) {
  const DevicePlan& p = batch.plan();
  const uint64_t M = batch.rows(), K = p.K(), N = p.N();
  check_matrix("forward", "X", X, X.dtype, M, K);
  check_matrix("forward", "W", W, X.dtype, K, N);
  check_matrix("forward", "Y", Y, X.dtype, M, N);
  if (schedule == ForwardSchedule::diagonal_first) check_workspace("forward", workspace);
  if (M == 0) return;
  GemmArgs a;
  a.rows = batch.impl().rows.get();
  a.A = X.data, a.lda = K;
  a.B0 = W.data, a.ldb = N;
  a.C = Y.data, a.ldc = N;
  TileConfig t = forward_tiles();
  if (const auto e = find_calibration(K, N, p.q(), M)) t = e->tiles;  // issue 7 calibration
  dispatch_dtype(X.dtype, [&](auto tag) {
    using T = decltype(tag);
    if (schedule == ForwardSchedule::endpoint_fused)
      launch_fused<T>(batch, a, t, stream);
    else
      launch_diagonal_first<T>(batch, a, workspace, stream);
  });
}

void block_product(const DeviceBatch& batch, const DeviceMatrix& A, const DeviceMatrix& B,
                   const DeviceMatrix& C, cudaStream_t stream) {
  const KernelPlan& p = batch.plan().plan();
  const uint64_t n = batch.rows();
  for (uint32_t g = 0; g < p.q; ++g)
    if (p.input_widths[g] != n / p.q || p.output_widths[g] != n / p.q)
      throw std::invalid_argument("block_product: every group width must be n/q = " +
                                  std::to_string(n / p.q) + ", group " + std::to_string(g) +
                                  " is " + std::to_string(p.input_widths[g]) + "->" +
                                  std::to_string(p.output_widths[g]));
  if (n % p.q != 0 || batch.types() != interval_types(n, p.q, n / p.q))
    throw std::invalid_argument("block_product: the batch must be interval_types(n, q, n/q)");
  forward(batch, ForwardSchedule::endpoint_fused, A, B, C, nullptr, stream);
}

}  // namespace qalg::gpu
