// Entry points of decoding (one row) and the gated FFN (gate/up merged, SiLU, down).
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "ffn_decode_fused.cuh"
#include "launch_common.cuh"
#include "validate.hpp"

namespace qalg::gpu {
using namespace detail;

uint32_t detail::multiprocessors() {
  static const uint32_t n = [] {
    int dev = 0, sms = 0;
    check_cuda(cudaGetDevice(&dev), "cudaGetDevice");
    check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "multiprocessor count");
    return uint32_t(std::max(sms, 1));
  }();
  return n;
}

namespace {

std::atomic<DecodeStaging> g_decode_staging{DecodeStaging::registers};
std::atomic<bool> g_decode_pdl{true};
std::atomic<bool> g_ffn_pdl{false};  // set_ffn_dependent_launch (twenty-first session)
std::atomic<bool> g_decode_deep{true};
std::atomic<bool> g_decode_ready{false};  // set_decode_ready_counters (twenty-seventh session)
std::atomic<int> g_decode_fused{-1};      // set_decode_fused (thirty-ninth session): -1 off
std::atomic<FfnGateEngine> g_ffn_gate{FfnGateEngine::ws64x64};
std::atomic<bool> g_ffn_gate_types{false};  // set_ffn_gate_item_order (twenty-second session)

// after_prior: launched with programmatic dependent launch (PDL) on the kernel before it in the
// stream (the FFN decode's down projection after gate/up): it starts while that kernel runs, issues
// its first W loads, and waits in the kernel (griddepcontrol.wait) before it reads x. Why: a decode
// kernel is a few µs of launch and load latency around well under a µs of bytes (the Qwen3-30B
// expert's FFN decode, 0.6 MB of weights, took 8.9 µs for its two launches), so the second
// launch's latency is hidden behind the first's instead of following it.
// One decode launch of `ctas` CTAs of `threads` threads, with PDL when after_prior.
template <typename Kernel, typename... Args>
void launch_decode(Kernel kernel, uint32_t ctas, uint32_t threads, size_t smem, bool after_prior, cudaStream_t s,
                   const char* what, Args... args) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(ctas);
  cfg.blockDim = dim3(threads);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = s;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = after_prior ? 1 : 0;
  check_cuda(cudaLaunchKernelEx(&cfg, kernel, args...), what);
}

// The register decode's compiled shapes (kernels.hpp DecodeShape): columns, lanes, rows per lane
// per batch, and the CTAs per SM its registers must allow (__launch_bounds__). The first three of
// each list are the tenth session's (64 lanes; deep batches only at one CTA per SM); the others
// came with the fit rule: 32 lanes × 8 rows so that the 160 / 192 64-column gate/up tiles of
// Qwen3-4B / -8B run in one wave at two CTAs per SM, and 16-column tiles (32-byte row segments,
// one sector) so that shapes with few output columns per group (DeepSeek-V3's gate/up: 32 tiles of
// 64 columns, 448 rows deep) spread over more SMs.
template <int C, int U, int L, int MB>
struct GemvShape {
  static constexpr int cols = C, unroll = U, lanes = L, min_blocks = MB;
};
using OneMatrixShapes = std::tuple<GemvShape<64, 4, 64, 2>, GemvShape<32, 4, 64, 4>, GemvShape<32, 12, 64, 1>,
                                   GemvShape<16, 4, 64, 8>, GemvShape<16, 12, 64, 4>>;
using TwoMatrixShapes = std::tuple<GemvShape<64, 4, 64, 1>, GemvShape<32, 4, 64, 2>, GemvShape<32, 8, 64, 1>,
                                   GemvShape<64, 8, 32, 2>, GemvShape<32, 8, 32, 4>, GemvShape<16, 8, 64, 4>>;
template <int NB>
using Shapes = std::conditional_t<NB == 1, OneMatrixShapes, TwoMatrixShapes>;
template <int NB>
constexpr size_t kShapeCount = std::tuple_size_v<Shapes<NB>>;

template <typename S>
DecodeShape shape_of() {
  return DecodeShape{uint32_t(S::cols), uint32_t(S::lanes), uint32_t(S::unroll)};
}
template <int NB, size_t... I>
std::vector<DecodeShape> shape_list(std::index_sequence<I...>) {
  return {shape_of<std::tuple_element_t<I, Shapes<NB>>>()...};
}
template <int NB>
const std::vector<DecodeShape>& shape_list() {
  static const std::vector<DecodeShape> v = shape_list<NB>(std::make_index_sequence<kShapeCount<NB>>{});
  return v;
}
// f.template operator()<S>() for the I-th shape of the list.
template <int NB, typename F, size_t... I>
void visit_shape(size_t i, F&& f, std::index_sequence<I...>) {
  ((i == I ? f(std::tuple_element_t<I, Shapes<NB>>{}) : void()), ...);
}
template <int NB, typename F>
void visit_shape(size_t i, F&& f) {
  visit_shape<NB>(i, f, std::make_index_sequence<kShapeCount<NB>>{});
}

// FP32 rows are twice the registers: its deep batches ask half the CTAs per SM (at the 16-bit
// types' bound, 128 registers, the FP32 two-matrix shapes spilled 764 bytes).
template <typename T, int NB, int EPI, typename S>
auto gemv_instance() {
  constexpr int mb = sizeof(T) == 4 && S::unroll > 4 && S::min_blocks > 1 ? S::min_blocks / 2 : S::min_blocks;
  return gemv_kernel<T, NB, EPI, S::cols, S::unroll, S::lanes, mb>;
}
// CTAs per SM at this shape's registers and shared memory, asked of the runtime once per kernel.
template <typename T, int NB, int EPI, typename S>
uint32_t gemv_blocks_per_sm() {
  static const uint32_t n = [] {
    int b = 0;
    check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, gemv_instance<T, NB, EPI, S>(), S::cols / 8 * S::lanes, 0),
               "cudaOccupancyMaxActiveBlocksPerMultiprocessor(gemv_kernel)");
    return uint32_t(std::max(b, 1));
  }();
  return n;
}

std::atomic<DecodeRule> g_decode_rule{DecodeRule::fit};
std::atomic<int> g_forced_one{-1}, g_forced_two{-1};  // indices into the shape lists, -1: none

// The CTAs a shape's grid has for this type: the list's tiles (64 or 32 columns), or on the law
// q output groups of ceil(r / cols) tiles each (decode_gemv.cuh gemv_tile); 0: does not apply.
uint32_t shape_ctas(const DevicePlan& p, uint32_t type, uint32_t cols) {
  const auto& impl = p.impl();
  if (cols == 64) return impl.decode_begin[type + 1] - impl.decode_begin[type];
  if (cols == 32) return impl.decode32_begin[type + 1] - impl.decode32_begin[type];
  if (!impl.decode_law) return 0;
  const uint32_t r = p.plan().output_widths[0];
  return p.q() * ((r + cols - 1) / cols);
}

// The index of the shape to launch (see kernels.hpp DecodeRule); T and EPI only for occupancy.
template <typename T, int NB, int EPI>
size_t choose_shape(const DevicePlan& p, uint32_t type) {
  const auto& list = shape_list<NB>();
  const int forced = NB == 1 ? g_forced_one.load() : g_forced_two.load();
  if (forced >= 0 && shape_ctas(p, type, list[size_t(forced)].cols) != 0) return size_t(forced);
  const bool deep_ok = g_decode_deep;
  const auto& impl = p.impl();
  const uint32_t sms = multiprocessors(), depth = std::max<uint32_t>(impl.decode_depth_max, 1);
  const auto index_of = [&](DecodeShape d) {
    return size_t(std::find(list.begin(), list.end(), d) - list.begin());
  };
  if (g_decode_rule == DecodeRule::session10) {
    const uint32_t c64 = shape_ctas(p, type, 64), c32 = shape_ctas(p, type, 32);
    if (c64 >= sms) return index_of({64, 64, 4});
    const bool deep = deep_ok && c32 <= sms && impl.decode_depth_max > 4 * kGemvLanes;
    return index_of({32, 64, deep ? (NB == 1 ? 12u : 8u) : 4u});
  }
  size_t best = list.size();
  constexpr int kKeys = 7;
  uint64_t best_key[kKeys] = {};
  for (size_t i = 0; i < list.size(); ++i) {
    const DecodeShape d = list[i];
    const uint32_t ctas = shape_ctas(p, type, d.cols);
    if (ctas == 0 || (!deep_ok && d.unroll > 4)) continue;
    uint32_t per_sm = 1;
    visit_shape<NB>(i, [&](auto shape) { per_sm = gemv_blocks_per_sm<T, NB, EPI, decltype(shape)>(); });
    const uint64_t waves = (ctas + uint64_t(sms) * per_sm - 1) / (uint64_t(sms) * per_sm);
    const uint64_t batches = (depth + d.lanes * d.unroll - 1) / (d.lanes * d.unroll);
    // Idle SMs count first beyond 1/16 of them, then 16-column tiles (32-byte row segments, half a
    // DRAM burst) are avoided, then idle SMs count exactly. Measured on the H200's FFN decodes
    // (twelfth session): Qwen3-8B's down projection, 128 CTAs of 32 columns against 256 of 16,
    // 11.6-11.8 against 12.3-12.9 µs; Qwen3-4B's, 96 of 32 against 160 of 16, 9.8 against 9.6-9.9;
    // Qwen3-1.7B's, 64 against 128, 8.5-8.6 against 8.1-8.5.
    const uint32_t busy_enough = sms - sms / 16;
    const uint64_t idle = sms - std::min(ctas, sms), far_idle = ctas >= busy_enough ? 0 : busy_enough - ctas;
    // Lexicographic, smaller first: round trips, SMs idle beyond 1/16, 16-column tiles, idle SMs,
    // narrower tiles, fewer lanes, deeper batches.
    const uint64_t key[kKeys] = {waves * batches, far_idle, d.cols < 32, idle, 64u - d.cols, 64u - d.lanes, d.unroll};
    if (best == list.size() || std::lexicographical_compare(key, key + kKeys, best_key, best_key + kKeys))
      best = i, std::copy(key, key + kKeys, best_key);
  }
  if (best == list.size()) throw std::logic_error("decode: no register shape applies");  // 64 always does
  return best;
}

template <typename T, int NB, int EPI>
void launch_gemv_shape(size_t i, uint32_t ctas, GemmArgs a, bool after_prior, cudaStream_t s) {
  visit_shape<NB>(i, [&](auto shape) {
    using S = decltype(shape);
    launch_decode(gemv_instance<T, NB, EPI, S>(), ctas, S::cols / 8 * S::lanes, 0, after_prior, s,
                  "gemv_kernel launch", a);
  });
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
  launch_decode(kernel, ctas, COLS / 8 * kGemvLanes, bulk_smem_bytes<NB, COLS>(depth_max), after_prior, s,
                "gemv_staged_kernel launch", a, depth_max, uint32_t(bulk));
}

bool aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; }

template <typename T, int NB, int EPI>
void launch_gemv(const DevicePlan& p, uint32_t type, GemmArgs a, cudaStream_t s, bool after_prior = false) {
  const auto& impl = p.impl();
  const uint32_t first = impl.decode_begin[type], count = impl.decode_begin[type + 1] - first;
  if (count == 0) return;
  if (impl.decode_law) {  // the hand-over fields (role, counters) are the caller's
    a.decode_law.s = p.plan().input_widths[0], a.decode_law.r = p.plan().output_widths[0], a.decode_law.type = type;
  } else if (a.decode_law.role != kDecodePlain) {
    throw std::logic_error("launch_gemv: decode hand-over counters on a plan without the law's tiles");
  }
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
  // The register form: the shape's tiles from its list (64 or 32 columns) or, on the law, from the
  // CTA index (a list's address is still passed; the kernel does not read it).
  const size_t i = choose_shape<T, NB, EPI>(p, type);
  const uint32_t cols = shape_list<NB>()[i].cols, ctas = shape_ctas(p, type, cols);
  const GemmArgs la = cols == 32 ? with_list(a, impl.decode32, impl.decode32_begin[type]) : with_list(a, impl.decode, first);
  launch_gemv_shape<T, NB, EPI>(i, ctas, la, after_prior, s);
}

// The fused decode (ffn_decode_fused.cuh): its chunk width for C chunks per output group, and the
// number of chunks to launch (0: it does not apply). Chunks are multiples of 8 columns of h's
// groups (16-byte copies), none empty, and a CTA's tiles fit in shared memory. The rule: among the
// chunk counts whose q clusters are all resident at once (cudaOccupancyMaxActiveClusters: a
// cluster's CTAs share a GPC, so one CTA per SM in clusters of C can leave SMs unusable and a
// second wave doubles the time), the fewest whose grid (q · C CTAs) leaves at most 1/16 of the SMs
// idle (as choose_shape counts busy), else the most; with none resident at once, the most that
// fit. `forced` (1 … 8) takes that many where it fits.
constexpr uint32_t kFusedSmemMax = 227 * 1024;
uint32_t fused_width(uint32_t r, uint32_t chunks) { return (r + 8 * chunks - 1) / (8 * chunks) * 8; }
bool fused_fits(uint32_t s, uint32_t r, uint32_t chunks) {
  const uint32_t w = fused_width(r, chunks);
  return chunks >= 1 && chunks <= kFusedDecodeMaxChunks && (chunks - 1) * w < r && w <= kFusedDecodeMaxWidth &&
         s <= kFusedDecodeMaxWidth &&
         FusedDecodeLayout(s, w, chunks).total <= kFusedSmemMax;
}
template <typename T>
cudaLaunchConfig_t fused_config(const FusedDecodeArgs& a, uint32_t q, cudaStream_t st, cudaLaunchAttribute* attrs) {
  static const cudaError_t attr = cudaFuncSetAttribute(ffn_decode_fused_kernel<T>,
                                                       cudaFuncAttributeMaxDynamicSharedMemorySize, int(kFusedSmemMax));
  check_cuda(attr, "cudaFuncSetAttribute(ffn_decode_fused_kernel)");
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(q * a.chunks);
  cfg.blockDim = dim3(kFusedDecodeThreads);
  cfg.dynamicSmemBytes = FusedDecodeLayout(a.s, a.w, a.chunks).total;
  cfg.stream = st;
  attrs[0].id = cudaLaunchAttributeClusterDimension;
  attrs[0].val.clusterDim.x = a.chunks, attrs[0].val.clusterDim.y = 1, attrs[0].val.clusterDim.z = 1;
  cfg.attrs = attrs;
  cfg.numAttrs = 1;
  return cfg;
}
// How many clusters of `chunks` CTAs of this shape the device holds at once (cached per device,
// type and shape: the query is a driver call, and the rule runs at every launch).
uint32_t fused_resident_clusters(uint32_t s, uint32_t r, uint32_t chunks, DType t) {
  static std::mutex m;
  static std::map<std::array<uint32_t, 5>, uint32_t> cache;
  int dev = 0;
  check_cuda(cudaGetDevice(&dev), "cudaGetDevice");
  const std::array<uint32_t, 5> key{uint32_t(dev), uint32_t(t), s, r, chunks};
  std::lock_guard<std::mutex> lock(m);
  if (const auto it = cache.find(key); it != cache.end()) return it->second;
  FusedDecodeArgs a;
  a.s = s, a.r = r, a.chunks = chunks, a.w = fused_width(r, chunks);
  cudaLaunchAttribute attrs[1];
  int n = 0;
  if (t == DType::bf16) {
    const cudaLaunchConfig_t cfg = fused_config<__nv_bfloat16>(a, 1, nullptr, attrs);
    check_cuda(cudaOccupancyMaxActiveClusters(&n, ffn_decode_fused_kernel<__nv_bfloat16>, &cfg),
               "cudaOccupancyMaxActiveClusters(ffn_decode_fused_kernel)");
  } else {
    const cudaLaunchConfig_t cfg = fused_config<__half>(a, 1, nullptr, attrs);
    check_cuda(cudaOccupancyMaxActiveClusters(&n, ffn_decode_fused_kernel<__half>, &cfg),
               "cudaOccupancyMaxActiveClusters(ffn_decode_fused_kernel)");
  }
  return cache[key] = uint32_t(n < 0 ? 0 : n);
}
uint32_t fused_chunks(const DevicePlan& up, const DevicePlan& down, DType t, int mode) {
  if (mode < 0 || !(t == DType::bf16 || t == DType::f16) || !up.impl().decode_law || !down.impl().decode_law) return 0;
  const uint32_t q = up.q(), s = up.plan().input_widths[0], r = up.plan().output_widths[0];
  if (down.q() != q || down.plan().input_widths[0] != r || down.plan().output_widths[0] != s) return 0;
  if (s % 8 != 0 || r % 8 != 0) return 0;
  if (mode > 0) return fused_fits(s, r, uint32_t(mode)) ? uint32_t(mode) : 0;
  const uint32_t sms = multiprocessors(), busy = sms - sms / 16;
  uint32_t fit = 0, resident = 0;
  for (uint32_t c = 1; c <= kFusedDecodeMaxChunks; ++c) {
    if (!fused_fits(s, r, c)) continue;
    fit = c;
    if (fused_resident_clusters(s, r, c, t) < q) continue;
    resident = c;
    if (uint64_t(q) * c >= busy) break;
  }
  return resident != 0 ? resident : fit;
}
template <typename T>
void launch_fused_decode(const FusedDecodeArgs& a, uint32_t q, cudaStream_t st) {
  cudaLaunchAttribute attrs[1];
  const cudaLaunchConfig_t cfg = fused_config<T>(a, q, st, attrs);
  check_cuda(cudaLaunchKernelEx(&cfg, ffn_decode_fused_kernel<T>, a), "ffn_decode_fused_kernel launch");
}

void check_type(const char* call, const DevicePlan& p, uint32_t type) {
  if (type >= p.q())
    throw std::invalid_argument(std::string(call) + ": type " + std::to_string(type) +
                                " is out of range, the plan has q = " + std::to_string(p.q()));
}

}  // namespace

void set_ffn_gate_engine(FfnGateEngine e) { g_ffn_gate = e; }
FfnGateEngine ffn_gate_engine() { return g_ffn_gate.load(); }
void set_ffn_gate_item_order(WsItemOrder o) { g_ffn_gate_types = o == WsItemOrder::types; }
WsItemOrder ffn_gate_item_order() { return g_ffn_gate_types ? WsItemOrder::types : WsItemOrder::columns; }
void set_ffn_dependent_launch(bool on) { g_ffn_pdl = on; }
bool ffn_dependent_launch() { return g_ffn_pdl.load(); }

void set_decode_engines(DecodeStaging staging, bool dependent_launch, bool deep_batches) {
  g_decode_staging = staging, g_decode_pdl = dependent_launch, g_decode_deep = deep_batches;
}

std::vector<DecodeShape> decode_shapes(int matrices) {
  if (matrices != 1 && matrices != 2)
    throw std::invalid_argument("decode_shapes: matrices must be 1 or 2, got " + std::to_string(matrices));
  return matrices == 1 ? shape_list<1>() : shape_list<2>();
}

std::string decode_shape_name(DecodeShape s) {
  return std::to_string(s.cols) + "x" + std::to_string(s.lanes) + "x" + std::to_string(s.unroll);
}

void set_decode_rule(DecodeRule r) { g_decode_rule = r; }
void set_decode_ready_counters(bool on) { g_decode_ready = on; }
bool decode_ready_counters() { return g_decode_ready.load(); }
void set_decode_fused(int chunks) {
  if (chunks < -1 || chunks > int(kFusedDecodeMaxChunks))
    throw std::invalid_argument("set_decode_fused: chunks must be -1 (off), 0 (the rule's) or 1 ... 8, got " +
                                std::to_string(chunks));
  g_decode_fused = chunks;
}
int decode_fused() { return g_decode_fused.load(); }
uint32_t decode_fused_chunks(const DevicePlan& up, const DevicePlan& down, DType dtype) {
  return fused_chunks(up, down, dtype, g_decode_fused.load());
}

void set_decode_shapes(DecodeShape one_matrix, DecodeShape two_matrices) {
  const auto index = [](DecodeShape d, const std::vector<DecodeShape>& list, int m) {
    if (d == DecodeShape{}) return -1;
    const auto it = std::find(list.begin(), list.end(), d);
    if (it == list.end()) {
      std::string known;
      for (const DecodeShape& k : list) known += (known.empty() ? "" : ", ") + decode_shape_name(k);
      throw std::invalid_argument("set_decode_shapes: " + decode_shape_name(d) + " is not a compiled " +
                                  std::to_string(m) + "-matrix decode shape (cols x lanes x unroll: " + known + ")");
    }
    return int(it - list.begin());
  };
  const int one = index(one_matrix, shape_list<1>(), 1), two = index(two_matrices, shape_list<2>(), 2);
  g_forced_one = one, g_forced_two = two;
}

DecodeShape decode_shape(const DevicePlan& p, uint32_t type, int matrices, DType dtype) {
  check_type("decode_shape", p, type);
  if (matrices != 1 && matrices != 2)
    throw std::invalid_argument("decode_shape: matrices must be 1 or 2, got " + std::to_string(matrices));
  DecodeShape out;
  dispatch_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    out = matrices == 1 ? shape_list<1>()[choose_shape<T, 1, kStore>(p, type)]
                        : shape_list<2>()[choose_shape<T, 2, kSiluMul>(p, type)];
  });
  return out;
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
  bool fused = false;
  dispatch_dtype(X.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_tensor_core_type<T>())
      fused = launch_narrow_ffn<T>(up, down, X.data, Wg.data, Wu.data, Wd.data, H.data, Y.data, stream);
  });
  if (fused) return;
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
            launch_gated_ws(up, a, engine == FfnGateEngine::ws64x128 ? 128 : 64, engine == FfnGateEngine::wsl64x64,
                            g_ffn_gate_types, X.dtype, stream))
          return;
        return launch_tc<T, kForward, 64, 64, 2, kSiluMul>(impl.list(up, ListKind::forward, 64, 64), a, stream);
      }
    }
    launch_simt<T, kForward, 2, kSiluMul>(impl.list(up, ListKind::forward, kSimtBM, kSimtBN), a, stream);
  });
  // The down projection (when on a warp-specialised tile) by programmatic dependent launch after the
  // gate/up kernel: its launch and set-up overlap gate/up's last CTAs; it copies H only after that
  // grid is done (set_ffn_dependent_launch).
  DependentLaunchScope after_gate_up(g_ffn_pdl);
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
  // set_decode_fused: both projections in one launch (ffn_decode_fused.cuh) where it applies.
  if (const uint32_t chunks = fused_chunks(up, down, x.dtype, g_decode_fused.load());
      chunks != 0 && aligned16(Wg.data) && aligned16(Wu.data) && aligned16(Wd.data)) {
    FusedDecodeArgs f;
    f.x = x.data, f.wg = Wg.data, f.wu = Wu.data, f.wd = Wd.data, f.h = h.data, f.y = y.data;
    f.s = up.plan().input_widths[0], f.r = up.plan().output_widths[0], f.type = type;
    f.chunks = chunks, f.w = fused_width(f.r, chunks), f.D = D, f.F = F;
    if (x.dtype == DType::bf16) launch_fused_decode<__nv_bfloat16>(f, up.q(), stream);
    else launch_fused_decode<__half>(f, up.q(), stream);
    return;
  }
  GemmArgs a;
  a.A = x.data;
  a.B0 = Wg.data, a.B1 = Wu.data, a.ldb = F;
  a.C = h.data;
  GemmArgs b;  // the down projection, PDL after gate/up: it reads h only after that grid is done
  b.A = h.data;
  b.B0 = Wd.data, b.ldb = down.N();
  b.C = y.data;
  // set_decode_ready_counters: where both plans take the law's tiles in the register form, the down
  // projection's CTAs wait for the two groups of h they read (decode_gemv.cuh decode_wait_inputs)
  // instead of the whole gate/up grid. Its counters are up's; target and waiters from the shapes
  // launch_gemv will choose (choose_shape is a function of the plan, type and settings).
  if (g_decode_ready && g_decode_staging == DecodeStaging::registers && up.impl().decode_law && down.impl().decode_law &&
      up.impl().decode_ready.get() != nullptr) {
    dispatch_dtype(x.dtype, [&](auto tag) {
      using T = decltype(tag);
      const uint32_t cols_up = shape_list<2>()[choose_shape<T, 2, kSiluMul>(up, type)].cols;
      const uint32_t cols_down = shape_list<1>()[choose_shape<T, 1, kStore>(down, type)].cols;
      const uint32_t r_up = up.plan().output_widths[0];
      a.decode_law.role = kDecodeSignals, b.decode_law.role = kDecodeWaits;
      a.decode_law.ready = b.decode_law.ready = up.impl().decode_ready.get();
      b.decode_law.target = (r_up + cols_up - 1) / cols_up;
      b.decode_law.waiters = shape_ctas(down, type, cols_down);
      b.decode_law.q = up.q();
    });
  }
  dispatch_dtype(x.dtype, [&](auto tag) { launch_gemv<decltype(tag), 2, kSiluMul>(up, type, a, stream); });
  dispatch_dtype(x.dtype, [&](auto tag) { launch_gemv<decltype(tag), 1, kStore>(down, type, b, stream, g_decode_pdl); });
}

}  // namespace qalg::gpu
