// The gated FFN in one kernel (narrow_ffn.cuh): when it applies, its settings, and its launch.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "batched_law.hpp"
#include "launch_common.cuh"
#include "narrow_ffn.cuh"

namespace qalg::gpu {
using namespace detail;

namespace {
std::atomic<int> g_narrow_ffn{1};        // 0 off, 1 where it applies
std::atomic<uint32_t> g_narrow_ffn_run{0};  // output groups per CTA; 0 = automatic
std::atomic<int> g_narrow_ffn_stages{2};

// CTAs per SM that the shared memory allows (at most 4: 128 threads × 128 registers each).
template <int SD, int RF, int STAGES>
constexpr int ffn_min_blocks() {
  constexpr size_t per = FfnLayout<SD, RF>::template bytes<STAGES>() + 1024;
  constexpr size_t n = 228 * 1024 / per;
  return n > 4 ? 4 : int(n);
}

// The instantiated (SD, RF): gate/up's input and output group widths. go(sd, rf) with both as
// integral constants; false where the pair is not instantiated.
template <class Go>
bool narrow_ffn_shape(uint32_t sd, uint32_t rf, Go&& go) {
  using std::integral_constant;
  auto with_rf = [&](auto sdc) {
    switch (rf) {
      case 16: go(sdc, integral_constant<int, 16>{}); return true;
      case 24: go(sdc, integral_constant<int, 24>{}); return true;
      case 32: go(sdc, integral_constant<int, 32>{}); return true;
      default: return false;
    }
  };
  if (sd == 32) return with_rf(integral_constant<int, 32>{});
  if (sd == 64) return with_rf(integral_constant<int, 64>{});
  return false;
}

// About two CTAs per SM, at most 16 output groups per CTA (the narrow-law tiles' rule). Measured
// on the Qwen3-30B expert (1024 units; session 16, call 2, whole FFN, alternating medians, µs):
// 2 stages at runs 1 / 2 / 3 (one wave of 3 CTAs per SM, the first rule) / 4 / 8: 26.1 / 26.1 /
// 20.4 / 19.8 / 26.8; 3 stages at runs 1 / 2 / 4 / 8: 28.4 / 23.5 / 20.2 (20.3 again as the
// first rule's 4) / 26.3. This rule gives 4.
uint32_t narrow_ffn_auto_run(uint64_t units_in_grid) {
  const uint64_t slots = 2ull * multiprocessors();
  return uint32_t(std::clamp<uint64_t>((units_in_grid + slots - 1) / slots, 1, 16));
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }
}  // namespace

bool narrow_ffn_applies(const DeviceBatch& up, const DeviceBatch& down) {
  const KernelPlan& pu = up.plan().plan();
  const KernelPlan& pd = down.plan().plan();
  if (!diagonal_plus_row_law(pu) || !diagonal_plus_row_law(pd) || pu.q != pd.q) return false;
  if (pd.input_widths[0] != pu.output_widths[0] || pd.output_widths[0] != pu.input_widths[0]) return false;
  if (up.types() != down.types()) return false;
  const RowFormula& f = up.impl().formula;
  if (f.c == 0 || uint64_t(f.c) * pu.q != up.rows() || up.rows() >= (uint64_t(1) << 32)) return false;
  const uint64_t grid = uint64_t(pu.q) * ((f.c + kFfnBM - 1) / kFfnBM) * pu.q;  // at a run of 1
  if (grid >= (uint64_t(1) << 31)) return false;
  return narrow_ffn_shape(pu.input_widths[0], pu.output_widths[0], [](auto, auto) {});
}

void set_narrow_ffn(int mode) {
  if (mode < 0 || mode > 1)
    throw std::invalid_argument("set_narrow_ffn: 0 (gate/up and down as two kernels) or 1 (one kernel where it applies), got " +
                                std::to_string(mode));
  g_narrow_ffn = mode;
}
int narrow_ffn() { return g_narrow_ffn.load(); }
void set_narrow_ffn_run(uint32_t groups) {
  if (groups > 4096)
    throw std::invalid_argument("set_narrow_ffn_run: output groups per CTA must be 0 (automatic) or in [1, 4096], got " +
                                std::to_string(groups));
  g_narrow_ffn_run = groups;
}
void set_narrow_ffn_stages(int stages) {
  if (stages != 2 && stages != 3)
    throw std::invalid_argument("set_narrow_ffn_stages: 2 or 3, got " + std::to_string(stages));
  g_narrow_ffn_stages = stages;
}

namespace detail {
template <typename T>
bool launch_narrow_ffn(const DeviceBatch& up, const DeviceBatch& down, const void* X, const void* Wg, const void* Wu,
                       const void* Wd, void* H, void* Y, cudaStream_t stream) {
  if (g_narrow_ffn == 0 || !narrow_ffn_applies(up, down)) return false;
  for (const void* p : {X, Wg, Wu, Wd, static_cast<const void*>(H), static_cast<const void*>(Y)})
    if (!aligned16(p)) return false;  // 16-byte copies and stores
  const KernelPlan& pu = up.plan().plan();
  const RowFormula& f = up.impl().formula;
  NarrowFfn L;
  L.q = pu.q, L.c = f.c;
  L.row_blocks = (f.c + kFfnBM - 1) / kFfnBM;
  L.D = pu.K(), L.F = pu.N();
  const int stages = g_narrow_ffn_stages;
  return narrow_ffn_shape(pu.input_widths[0], pu.output_widths[0], [&](auto sdc, auto rfc) {
    constexpr int SD = decltype(sdc)::value, RF = decltype(rfc)::value;
    auto go = [&](auto stc) {
      constexpr int S = decltype(stc)::value, kMinB = ffn_min_blocks<SD, RF, S>();
      static_assert(kMinB >= 1, "one CTA must fit an SM's shared memory");
      constexpr size_t smem = FfnLayout<SD, RF>::template bytes<S>();
      auto kernel = narrow_ffn_kernel<T, SD, RF, S, kMinB>;
      static const cudaError_t attr = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
      check_cuda(attr, "cudaFuncSetAttribute(narrow_ffn_kernel)");
      const uint32_t run = g_narrow_ffn_run.load();
      L.run = std::min(run != 0 ? run : narrow_ffn_auto_run(uint64_t(L.q) * L.row_blocks * L.q), L.q);
      L.runs = (L.q + L.run - 1) / L.run;
      const uint32_t grid = L.q * L.row_blocks * L.runs;
      kernel<<<grid, kFfnThreads, smem, stream>>>(L, f, static_cast<const T*>(X), static_cast<const T*>(Wg),
                                                  static_cast<const T*>(Wu), static_cast<const T*>(Wd), static_cast<T*>(H),
                                                  static_cast<T*>(Y));
      check_cuda(cudaGetLastError(), "narrow_ffn_kernel launch");
    };
    if (stages == 3) go(std::integral_constant<int, 3>{});
    else go(std::integral_constant<int, 2>{});
  });
}
template bool launch_narrow_ffn<__nv_bfloat16>(const DeviceBatch&, const DeviceBatch&, const void*, const void*, const void*,
                                               const void*, void*, void*, cudaStream_t);
template bool launch_narrow_ffn<__half>(const DeviceBatch&, const DeviceBatch&, const void*, const void*, const void*,
                                        const void*, void*, void*, cudaStream_t);
}  // namespace detail

}  // namespace qalg::gpu
