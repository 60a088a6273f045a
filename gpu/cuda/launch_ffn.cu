// Entry points of decoding (one row) and the gated FFN (gate/up merged, SiLU, down).
#include <algorithm>
#include <stdexcept>
#include <string>

#include "launch_common.cuh"
#include "validate.hpp"

namespace qalg::gpu {
using namespace detail;

namespace {

uint32_t multiprocessors() {
  static const uint32_t n = [] {
    int dev = 0, sms = 0;
    check_cuda(cudaGetDevice(&dev), "cudaGetDevice");
    check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "multiprocessor count");
    return uint32_t(std::max(sms, 1));
  }();
  return n;
}

// 64-column tiles (512 threads each) unless they are fewer than the SMs: then 32-column tiles,
// twice as many CTAs of 256 threads, so that more SMs issue loads (decoding is bound by loads in
// flight; the 64 tiles of Qwen3-8B's down projection left half of the H200's 132 SMs idle).
template <typename T, int NB, int EPI>
void launch_gemv(const DevicePlan& p, uint32_t type, GemmArgs a, cudaStream_t s) {
  const auto& impl = p.impl();
  const uint32_t first = impl.decode_begin[type], count = impl.decode_begin[type + 1] - first;
  if (count == 0) return;
  if (count < multiprocessors()) {
    const uint32_t f32 = impl.decode32_begin[type], c32 = impl.decode32_begin[type + 1] - f32;
    gemv_kernel<T, NB, EPI, 32><<<c32, 32 / 8 * kGemvLanes, 0, s>>>(with_list(a, impl.decode32, f32));
  } else {
    gemv_kernel<T, NB, EPI, 64><<<count, kGemvThreads, 0, s>>>(with_list(a, impl.decode, first));
  }
  check_cuda(cudaGetLastError(), "gemv_kernel launch");
}

void check_type(const char* call, const DevicePlan& p, uint32_t type) {
  if (type >= p.q())
    throw std::invalid_argument(std::string(call) + ": type " + std::to_string(type) +
                                " is out of range, the plan has q = " + std::to_string(p.q()));
}

}  // namespace

void decode(const DevicePlan& p, uint32_t type, const DeviceMatrix& x, const DeviceMatrix& W,
            const DeviceMatrix& y, cudaStream_t stream) {
  check_type("decode", p, type);
  check_matrix("decode", "x", x, x.dtype, 1, p.K());
  check_matrix("decode", "W", W, x.dtype, p.K(), p.N());
  check_matrix("decode", "y", y, x.dtype, 1, p.N());
  GemmArgs a;
  a.A = x.data;
  a.B0 = W.data, a.ldb = p.N();
  a.C = y.data;
  dispatch_dtype(x.dtype, [&](auto tag) { launch_gemv<decltype(tag), 1, kStore>(p, type, a, stream); });
}

void gated_ffn(const DeviceBatch& up, const DeviceBatch& down, const DeviceMatrix& X,
               const DeviceMatrix& Wg, const DeviceMatrix& Wu, const DeviceMatrix& Wd,
               const DeviceMatrix& H, const DeviceMatrix& Y, cudaStream_t stream) {
  const DevicePlan& pu = up.plan();
  const DevicePlan& pd = down.plan();
  const uint64_t M = up.rows(), D = pu.K(), F = pu.N();
  if (pd.K() != F || pd.N() != D)
    throw std::invalid_argument("gated_ffn: the down plan must map F = " + std::to_string(F) +
                                " to D = " + std::to_string(D) + ", it maps " +
                                std::to_string(pd.K()) + " to " + std::to_string(pd.N()));
  if (up.types() != down.types())
    throw std::invalid_argument("gated_ffn: up and down batches must have the same row types");
  check_matrix("gated_ffn", "X", X, X.dtype, M, D);
  check_matrix("gated_ffn", "Wg", Wg, X.dtype, D, F);
  check_matrix("gated_ffn", "Wu", Wu, X.dtype, D, F);
  check_matrix("gated_ffn", "Wd", Wd, X.dtype, F, D);
  check_matrix("gated_ffn", "H", H, X.dtype, M, F);
  check_matrix("gated_ffn", "Y", Y, X.dtype, M, D);
  if (M == 0) return;
  GemmArgs a;
  a.rows = up.impl().rows.get();
  a.A = X.data, a.lda = D;
  a.B0 = Wg.data, a.B1 = Wu.data, a.ldb = F;
  a.C = H.data, a.ldc = F;
  auto& impl = up.impl();
  dispatch_dtype(X.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_tensor_core_type<T>()) {
      if (pu.widths_vector_aligned()) {
        uint32_t rmax = 0;
        for (uint32_t r : pu.plan().output_widths) rmax = std::max(rmax, r);
        if (rmax <= 32)
          return launch_tc<T, kForward, 64, 32, 2, kSiluMul>(impl.list(up, ListKind::forward, 64, 32), a, stream);
        return launch_tc<T, kForward, 64, 64, 2, kSiluMul>(impl.list(up, ListKind::forward, 64, 64), a, stream);
      }
    }
    launch_simt<T, kForward, 2, kSiluMul>(impl.list(up, ListKind::forward, kSimtBM, kSimtBN), a, stream);
  });
  forward(down, ForwardSchedule::endpoint_fused, H, Wd, Y, nullptr, stream);
}

void gated_ffn_decode(const DevicePlan& up, const DevicePlan& down, uint32_t type,
                      const DeviceMatrix& x, const DeviceMatrix& Wg, const DeviceMatrix& Wu,
                      const DeviceMatrix& Wd, const DeviceMatrix& h, const DeviceMatrix& y,
                      cudaStream_t stream) {
  const uint64_t D = up.K(), F = up.N();
  if (down.K() != F || down.N() != D)
    throw std::invalid_argument("gated_ffn_decode: the down plan must map F to D");
  check_type("gated_ffn_decode", up, type);
  check_type("gated_ffn_decode", down, type);
  check_matrix("gated_ffn_decode", "x", x, x.dtype, 1, D);
  check_matrix("gated_ffn_decode", "Wg", Wg, x.dtype, D, F);
  check_matrix("gated_ffn_decode", "Wu", Wu, x.dtype, D, F);
  check_matrix("gated_ffn_decode", "Wd", Wd, x.dtype, F, D);
  check_matrix("gated_ffn_decode", "h", h, x.dtype, 1, F);
  check_matrix("gated_ffn_decode", "y", y, x.dtype, 1, D);
  GemmArgs a;
  a.A = x.data;
  a.B0 = Wg.data, a.B1 = Wu.data, a.ldb = F;
  a.C = h.data;
  dispatch_dtype(x.dtype, [&](auto tag) { launch_gemv<decltype(tag), 2, kSiluMul>(up, type, a, stream); });
  decode(down, type, h, Wd, y, stream);
}

}  // namespace qalg::gpu
