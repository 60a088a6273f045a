// Entry points of decoding (one row) and the gated FFN (gate/up merged, SiLU, down).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "launch_common.cuh"
#include "validate.hpp"

namespace qalg::gpu {
using namespace detail;

namespace {

std::atomic<DecodeStaging> g_decode_staging{DecodeStaging::registers};
std::atomic<bool> g_decode_pdl{true};
std::atomic<bool> g_decode_deep{true};
std::atomic<FfnGateEngine> g_ffn_gate{FfnGateEngine::ws64x64};

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
// after_prior: launched with programmatic dependent launch (PDL) on the kernel before it in the
// stream (the FFN decode's down projection after gate/up): it starts while that kernel runs, issues
// its first W loads, and waits in the kernel (griddepcontrol.wait) before it reads x. Why: a decode
// kernel is a few µs of launch and load latency around well under a µs of bytes (the Qwen3-30B
// expert's FFN decode, 0.6 MB of weights, took 8.9 µs for its two launches), so the second
// launch's latency is hidden behind the first's instead of following it.
// One decode launch of `ctas` CTAs of COLS / 8 · kGemvLanes threads, with PDL when after_prior.
template <int COLS, typename Kernel, typename... Args>
void launch_decode(Kernel kernel, uint32_t ctas, size_t smem, bool after_prior, cudaStream_t s, const char* what,
                   Args... args) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(ctas);
  cfg.blockDim = dim3(COLS / 8 * kGemvLanes);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = s;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = after_prior ? 1 : 0;
  check_cuda(cudaLaunchKernelEx(&cfg, kernel, args...), what);
}
template <typename T, int NB, int EPI, int COLS, int UNROLL = 4>
void launch_gemv_grid(uint32_t ctas, GemmArgs a, bool after_prior, cudaStream_t s) {
  launch_decode<COLS>(gemv_kernel<T, NB, EPI, COLS, UNROLL>, ctas, 0, after_prior, s, "gemv_kernel launch", a);
}

// The staged decode (decode_gemv.cuh gemv_staged_kernel): dynamic shared memory for NB W tiles of
// depth_max rows × COLS columns and depth_max floats of c·x; used up to kBulkSmem bytes.
constexpr size_t kBulkSmem = 200 * 1024;
template <int NB, int COLS>
size_t bulk_smem_bytes(uint32_t depth_max) {
  return size_t(NB) * depth_max * COLS * 2 + size_t(depth_max) * sizeof(float);
}
template <typename T, int NB, int EPI, int COLS>
void launch_gemv_staged(uint32_t ctas, GemmArgs a, uint32_t depth_max, bool bulk, bool after_prior, cudaStream_t s) {
  auto kernel = gemv_staged_kernel<T, NB, EPI, COLS>;
  static const cudaError_t attr =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kBulkSmem));
  check_cuda(attr, "cudaFuncSetAttribute(gemv_staged_kernel)");
  launch_decode<COLS>(kernel, ctas, bulk_smem_bytes<NB, COLS>(depth_max), after_prior, s, "gemv_staged_kernel launch",
                      a, depth_max, uint32_t(bulk));
}

bool aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; }

template <typename T, int NB, int EPI>
void launch_gemv(const DevicePlan& p, uint32_t type, GemmArgs a, cudaStream_t s, bool after_prior = false) {
  const auto& impl = p.impl();
  const uint32_t first = impl.decode_begin[type], count = impl.decode_begin[type + 1] - first;
  if (count == 0) return;
  if (impl.decode_law) a.decode_law = DecodeLaw{p.plan().input_widths[0], p.plan().output_widths[0], type};
  const bool narrow = count < multiprocessors();
  // The staged forms where every copied row segment is whole 16-byte chunks at 16-byte addresses.
  const DecodeStaging staging = g_decode_staging;
  const bool staged = staging != DecodeStaging::registers && is_tensor_core_type<T>() && p.widths_vector_aligned() && a.ldb % 8 == 0 && aligned16(a.B0) &&
                    (NB == 1 || aligned16(a.B1)) &&
                    (narrow ? bulk_smem_bytes<NB, 32>(impl.decode_depth_max)
                            : bulk_smem_bytes<NB, 64>(impl.decode_depth_max)) <= kBulkSmem;
  if constexpr (is_tensor_core_type<T>()) {
    if (staged) {
      const bool bulk = staging == DecodeStaging::bulk;
      if (narrow) {
        const uint32_t f32 = impl.decode32_begin[type], c32 = impl.decode32_begin[type + 1] - f32;
        launch_gemv_staged<T, NB, EPI, 32>(c32, with_list(a, impl.decode32, f32), impl.decode_depth_max, bulk,
                                           after_prior, s);
      } else {
        launch_gemv_staged<T, NB, EPI, 64>(count, with_list(a, impl.decode, first), impl.decode_depth_max, bulk,
                                           after_prior, s);
      }
      return;
    }
  }
  if (narrow) {
    const uint32_t f32 = impl.decode32_begin[type], c32 = impl.decode32_begin[type + 1] - f32;
    // Deep batches where the 32-column grid is at most one wave of one CTA per SM and some tile
    // reduces over more rows than one batch of 4 per lane covers (decode_gemv.cuh gemv_kernel).
    const bool deep = g_decode_deep && c32 <= multiprocessors() && impl.decode_depth_max > 4 * kGemvLanes;
    if (deep)
      launch_gemv_grid<T, NB, EPI, 32, NB == 1 ? 12 : 8>(c32, with_list(a, impl.decode32, f32), after_prior, s);
    else
      launch_gemv_grid<T, NB, EPI, 32>(c32, with_list(a, impl.decode32, f32), after_prior, s);
  } else {
    launch_gemv_grid<T, NB, EPI, 64>(count, with_list(a, impl.decode, first), after_prior, s);
  }
}

void check_type(const char* call, const DevicePlan& p, uint32_t type) {
  if (type >= p.q())
    throw std::invalid_argument(std::string(call) + ": type " + std::to_string(type) +
                                " is out of range, the plan has q = " + std::to_string(p.q()));
}

}  // namespace

void set_ffn_gate_engine(FfnGateEngine e) { g_ffn_gate = e; }

void set_decode_engines(DecodeStaging staging, bool dependent_launch, bool deep_batches) {
  g_decode_staging = staging, g_decode_pdl = dependent_launch, g_decode_deep = deep_batches;
}

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
  const FfnGateEngine engine = g_ffn_gate;
  dispatch_dtype(X.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_tensor_core_type<T>()) {
      if (pu.widths_vector_aligned()) {
        uint32_t rmax = 0;
        for (uint32_t r : pu.plan().output_widths) rmax = std::max(rmax, r);
        // Output groups of at most 32 columns keep the 32-wide mma.sync tile: a 64-column TMA box
        // would read the next groups' columns of W too (the Qwen3-30B expert: r = 24).
        if (rmax <= 32)
          return launch_tc<T, kForward, 64, 32, 2, kSiluMul>(impl.list(up, ListKind::forward, 64, 32), a, stream);
        if (engine != FfnGateEngine::mma_sync &&
            launch_gated_ws(up, a, engine == FfnGateEngine::ws64x64 ? 64 : 128, X.dtype, stream))
          return;
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
  GemmArgs b;  // the down projection, PDL after gate/up: it reads h only after that grid is done
  b.A = h.data;
  b.B0 = Wd.data, b.ldb = down.N();
  b.C = y.data;
  dispatch_dtype(x.dtype, [&](auto tag) { launch_gemv<decltype(tag), 1, kStore>(down, type, b, stream, g_decode_pdl); });
}

}  // namespace qalg::gpu
