// The narrow-group law kernel's entry (narrow_law.cuh): when it applies, its shape per plan, and
// its launch for the endpoint-fused forward (tiles "nl64x128" and "nl64x64", TileEngine::narrow_law).
#include <algorithm>
#include <array>
#include <map>
#include <mutex>
#include <atomic>
#include <stdexcept>
#include <type_traits>

#include "batched_law.hpp"
#include "launch_common.cuh"
#include "narrow_law.cuh"
#include "narrow_run.hpp"
#include "tensor_map.hpp"

namespace qalg::gpu {
using namespace detail;

namespace {
// Units per CTA; 0 = automatic (narrow_auto_run, narrow_run.hpp). 16 was faster than 8 on both wide
// Qwen3-32B rows in two calls (thirteenth session: M = 32768 1414 against 1456 us, M = 8192 437
// against 473; history/narrow_session13_v2.csv) and level with 24 and 32 in the fourteenth.
std::atomic<uint32_t> g_narrow_run{0};

std::atomic<bool> g_narrow_types_first{false};

// Instantiated shapes: SK = s rounded up to 16 (32, 48, 64), or for NS = 2 to 24, 32, 40, 48, 64
// (24 and 40 end in an m16n8k8 step), with stages and CTAs per SM such that MINB · (smem + 1 KB)
// fits the SM's 228 KB (narrow_smem_bytes) and MINB · threads · registers the register file.
// NS = 1 (nl64x128, 4 warps): SK = 32 either 2 stages, 62.5 KB, 3 CTAs per SM, or (deep) 3
// stages, 81.5 KB, 2 CTAs; SK = 48 3 stages, 112 KB, 2 CTAs; SK = 64 2 stages, 103 KB, 2 CTAs.
// NS = 2 (nl64x64, 8 warps): SK = 24 3 stages, 65.8 KB, 3 CTAs (24 warps per SM), or (not deep)
// 2 stages, 50.7 KB, 4 CTAs (32 warps, 64 registers: 16-64 bytes spilled); SK = 32 2
// stages, 65.5 KB, 3 CTAs; SK = 40 2 stages, 72 KB, 3 CTAs; SK = 48 and 64 2 stages, 87.5 and
// 108.5 KB, 2 CTAs. (The first timing, call 3 of the thirteenth session: deep was slower on
// Qwen3-32B M = 32768, 1636 against 1261 us: the third CTA counts more.)
template <int SK, bool DEEP, int NS>
struct NarrowShape {
  static constexpr int kStages = NS == 2 ? (SK == 24 && DEEP ? 3 : 2) : SK == 64 ? 2 : SK == 48 ? 3 : DEEP ? 3 : 2;
  static constexpr int kMinBlocks = NS == 2 ? (SK == 24 ? (DEEP ? 3 : 4) : SK <= 40 ? 3 : 2) : SK == 32 && !DEEP ? 3 : 2;
};
std::atomic<int> g_narrow_deep{-1};  // -1: the tile's default (nl64x128 shallow, nl64x64 deep)
std::atomic<bool> g_narrow_tail{true};
std::atomic<bool> g_narrow_stream{false};
std::atomic<bool> g_narrow_zero_c{false};
std::atomic<int> g_narrow_tma_store{1};        // 0 lanes, 1 pairs (G = 2), 2 pairs and pieces (G = 1 too), 3 group boxes
std::atomic<uint32_t> g_narrow_prefetch{0};    // set_narrow_prefetch (twenty-seventh session)
std::atomic<bool> g_narrow_strided{false};     // set_narrow_unit_order (twenty-eighth session; slower)

// TS: the widest output box (columns) that leaves MINB CTAs of the shape on one SM (the TMA form
// has no per-warp staging, so its stages and box may use that room), at most 256 (a TMA box).
// WC: the W tiles' width (narrow_law.cuh kNarrowWTile).
template <int SK, bool DEEP, int WC = kNarrowSplit>
constexpr uint32_t narrow_box_cols_max() {
  using S = NarrowShape<SK, DEEP, 2>;
  constexpr size_t per_cta = 228 * 1024 / S::kMinBlocks - 1024;
  constexpr size_t off = narrow_box_offset<SK, S::kStages, 2, true, WC>();
  constexpr size_t cols = per_cta > off ? (per_cta - off) / (size_t(kNarrowBM) * 2) / 8 * 8 : 0;
  return uint32_t(cols < 256 ? cols : 256);
}

// nl64x64's shape for a plan: SK and DEEP as integral constants to go(sk, deep) (its result
// returned). One place, so that the launch and narrow_tma_store_fits agree.
template <class Go>
auto narrow64_shape(const NarrowLaw& L, Go&& go) {
  using std::integral_constant, std::true_type, std::false_type;
  if (L.s <= 24 && g_narrow_tail) {
    if (g_narrow_deep != 0) return go(integral_constant<int, 24>{}, true_type{});
    return go(integral_constant<int, 24>{}, false_type{});
  }
  if (L.s <= 32) return go(integral_constant<int, 32>{}, false_type{});
  if (L.s <= 40 && g_narrow_tail) return go(integral_constant<int, 40>{}, false_type{});
  if (L.s <= 48) return go(integral_constant<int, 48>{}, false_type{});
  return go(integral_constant<int, 64>{}, false_type{});
}

template <typename T, int SK, int VEC, bool DEEP, int NS, bool TS = false, int WC = kNarrowSplit, bool PF = false>
void launch_narrow_shape(const NarrowLaw& L, const RowFormula& f, const GemmArgs& a, cudaStream_t s) {
  constexpr int kStages = NarrowShape<SK, DEEP, NS>::kStages, kMinB = NarrowShape<SK, DEEP, NS>::kMinBlocks;
  auto kernel = narrow_law_kernel<T, SK, kStages, VEC, kMinB, NS, TS, WC, PF>;
  // TS: the box's size is the plan's; the attribute allows the widest that keeps MINB CTAs per SM.
  constexpr size_t smem_max = TS ? narrow_box_offset<SK, kStages, NS, TS, WC>() +
                                       narrow_box_bytes(narrow_box_cols_max<SK, DEEP, WC>())
                                 : narrow_smem_bytes<SK, kStages, NS, TS, WC>();
  static_assert(kMinB * (smem_max + 1024) <= 228 * 1024, "MINB CTAs must fit one SM's shared memory");
  if (L.bw > uint32_t(WC)) throw std::logic_error("launch_narrow: a W box wider than the kernel's W tiles");
  const size_t smem = TS ? narrow_box_offset<SK, kStages, NS, TS, WC>() + narrow_box_bytes(L.box_cols) : smem_max;
  static const cudaError_t attr = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem_max));
  check_cuda(attr, "cudaFuncSetAttribute(narrow_law_kernel)");
  const uint32_t grid = L.q * L.row_blocks * L.runs;
  const DType dt = std::is_same_v<T, __nv_bfloat16> ? DType::bf16 : DType::f16;
  const CUtensorMap wmap = tensor_map_2d_plain(a.B0, dt, uint64_t(L.q) * L.s, a.ldb, L.s, L.bw);
  // Y as (column within G groups, G groups, row within type, type) for the TMA stores; unused (but
  // valid) without TS.
  const CUtensorMap ymap = TS ? tensor_map_grouped_typed_rows_plain(a.C, dt, L.tma_groups * L.r, L.q / L.tma_groups, a.ldc, f,
                                                                    uint64_t(L.q) * L.c, L.box_cols, kNarrowBM)
                              : wmap;
  kernel<<<grid, kNarrowThreads<NS>, smem, s>>>(L, f, static_cast<const T*>(a.A), static_cast<T*>(a.C), wmap, ymap);
  check_cuda(cudaGetLastError(), "narrow_law_kernel launch");
}

// CTAs per SM of the shape launch_narrow takes for tile width bn (its MINB: the shapes are sized
// so that MINB fit, and no more), read from L's s and the switches only.
uint32_t narrow_ctas_per_sm(const NarrowLaw& L, uint32_t bn) {
  if (bn == 64)
    return narrow64_shape(L, [](auto sk, auto deep) -> uint32_t {
      return uint32_t(NarrowShape<decltype(sk)::value, decltype(deep)::value, 2>::kMinBlocks);
    });
  if (L.s <= 32) return g_narrow_deep == 1 ? NarrowShape<32, true, 1>::kMinBlocks : NarrowShape<32, false, 1>::kMinBlocks;
  return L.s <= 48 ? NarrowShape<48, false, 1>::kMinBlocks : NarrowShape<64, false, 1>::kMinBlocks;
}

// narrow_auto_run, once per grid: its search simulates the dispatch of up to 20 waves of CTAs per
// candidate run (milliseconds), and the layout is worked out at every launch.
uint32_t cached_auto_run(uint32_t types, uint32_t row_blocks, uint32_t per_block, uint32_t ctas_per_sm) {
  static std::mutex mutex;
  static std::map<std::array<uint32_t, 4>, uint32_t> runs;
  const std::array<uint32_t, 4> key{types, row_blocks, per_block, ctas_per_sm};
  std::lock_guard<std::mutex> lock(mutex);
  auto it = runs.find(key);
  if (it == runs.end()) it = runs.emplace(key, narrow_auto_run(types, row_blocks, per_block, ctas_per_sm, multiprocessors())).first;
  return it->second;
}

// The kernel's parameters for a plan where narrow_law_applies (C's leading dimension ldc, A's lda).
NarrowLaw narrow_layout(const DeviceBatch& b, uint64_t lda, uint64_t ldc, uint32_t bn) {
  const KernelPlan& p = b.plan().plan();
  const RowFormula& f = b.impl().formula;
  NarrowLaw L;
  L.q = p.q, L.s = p.input_widths[0], L.r = p.output_widths[0], L.c = f.c;
  const uint32_t align = L.r % 8 == 0 ? 8 : 4;
  // A piece starting at column 4 mod 8 has its box start 4 columns early (TMA boxes start on 16
  // bytes): then pw + 4 columns must fit a box of at most kNarrowSplit.
  const uint32_t early = L.r % 8 == 0 && align == 8 ? 0 : 4, limit = kNarrowSplit - 8 * (early != 0);
  const uint32_t split = (L.r + limit - 1) / limit;
  L.pw = ((L.r + split - 1) / split + align - 1) / align * align;
  L.pieces = (L.r + L.pw - 1) / L.pw;
  L.bw = (L.pw + early + 7) / 8 * 8;
  if ((L.bw / 8) % 2 == 0) L.bw += 8;  // an odd number of 16-byte units: ldmatrix rows in distinct banks
  L.vec16 = L.r % 8 == 0 && L.pw % 8 == 0 && ldc % 8 == 0 ? 1 : 0;
  L.row_blocks = (L.c + kNarrowBM - 1) / kNarrowBM;
  const uint32_t run = g_narrow_run.load();
  L.run = std::min(run != 0 ? run : cached_auto_run(L.q, L.row_blocks, L.q * L.pieces, narrow_ctas_per_sm(L, bn)), L.q * L.pieces);
  L.runs = (L.q * L.pieces + L.run - 1) / L.run;
  L.order = narrow_order(L.run, L.runs, 0, 0);  // contiguous runs (narrow_set_unit_order may change it)
  L.types_first = g_narrow_types_first ? 1 : 0;
  L.lda = uint32_t(lda), L.ldc = uint32_t(ldc);
  L.stream = g_narrow_stream ? 1 : 0;
  L.zero_c = g_narrow_zero_c ? 1 : 0;
  L.prefetch = g_narrow_prefetch;
  return L;
}

// The W tiles' width of the group boxes (mode 3): 104 columns, the pieces of r = 200 (Qwen3-32B at
// q = 128: 104 + 96). With 120-column tiles a 200-column box leaves no third CTA per SM at SK = 40
// (narrow_box_cols_max<40, false> = 160); with 104 it does (200). Compiled for SK = 40 only.
constexpr int kNarrowGroupBoxW = 104;

// nl64x64 stores by TMA (the kernel's TS form): asked for, C's rows on 16 bytes, not the 4-CTA
// SK = 24 shape, and either r ≡ 4 mod 8 in one piece with pairs that never straddle a run (G = 2:
// q and the run even) or (mode 2) r ≡ 0 mod 8 (G = 1: a box per unit, pw columns, every piece on
// 16 bytes) or (mode 3) r ≡ 0 mod 8 in several pieces at SK = 40 with W boxes of at most 104
// columns and runs a multiple of the pieces (a box per group: r columns, stored after its last
// piece); the box within narrow_box_cols_max. Sets L's box_cols, tma_groups and box_pieces. Why
// G = 1 per piece is not the default: its box is rewritten every unit, so each unit waits for the
// last store's read (session 15, call 2: slower than the lanes' 16-byte stores, which r ≡ 0 mod 8
// already has). Mode 3 (twenty-seventh session; slower, twenty-ninth session) writes 400-byte row runs instead
// of 208 and waits once per group.
bool narrow_tma_store_fits(NarrowLaw& L) {
  const int mode = g_narrow_tma_store;
  if (mode == 0 || L.ldc % 8 != 0) return false;
  const bool sk40 = narrow64_shape(L, [](auto sk, auto) { return decltype(sk)::value == 40; });
  if (L.r % 8 == 0 && mode == 3 && L.pieces > 1 && sk40 && L.bw <= uint32_t(kNarrowGroupBoxW) && L.run % L.pieces == 0) {
    L.tma_groups = 1, L.box_cols = L.r, L.box_pieces = L.pieces;
    return L.box_cols <= narrow_box_cols_max<40, false, kNarrowGroupBoxW>();
  }
  if (L.r % 8 == 0 && mode == 2) {
    L.tma_groups = 1, L.box_cols = L.pw;
  } else if (L.r % 8 == 4 && L.pieces == 1 && L.q % 2 == 0 && L.run % 2 == 0) {
    L.tma_groups = 2, L.box_cols = 2 * L.r;
  } else {
    return false;
  }
  const uint32_t limit = narrow64_shape(L, [](auto sk, auto deep) -> uint32_t {
    constexpr int SK = decltype(sk)::value;
    constexpr bool DEEP = decltype(deep)::value;
    return SK == 24 && !DEEP ? 0u : narrow_box_cols_max<SK, DEEP>();
  });
  return L.box_cols % 8 == 0 && L.box_cols <= limit;
}

// set_narrow_unit_order(strided): the units in boxes of what one output box holds (TS: a pair of
// groups, or a group's pieces) or else a group's pieces, strided over the row block's CTAs where
// narrow_strided_fits (narrow_units.hpp); otherwise the contiguous runs.
void narrow_set_unit_order(NarrowLaw& L, bool ts) {
  L.strided = 0, L.box_shift = 0;
  const int bs = narrow_box_shift(ts, L.tma_groups, L.pieces);
  if (g_narrow_strided && bs >= 0 && narrow_strided_fits(L.q * L.pieces, L.run, uint32_t(bs)))
    L.strided = 1, L.box_shift = uint32_t(bs);
  L.order = narrow_order(L.run, L.runs, L.box_shift, L.strided);
}
}  // namespace

void set_narrow_unit_order(bool strided) { g_narrow_strided = strided; }
bool narrow_unit_order_strided() { return g_narrow_strided.load(); }

void set_narrow_run(uint32_t units) {
  if (units > 4096)
    throw std::invalid_argument("set_narrow_run: units per CTA must be 0 (automatic) or in [1, 4096], got " +
                                std::to_string(units));
  g_narrow_run = units;
}
uint32_t narrow_run() { return g_narrow_run.load(); }
void set_narrow_types_first(bool on) { g_narrow_types_first = on; }
void set_narrow_deep(int deep) {
  if (deep < -1 || deep > 1)
    throw std::invalid_argument("set_narrow_deep: -1 (each tile's default), 0 or 1, got " + std::to_string(deep));
  g_narrow_deep = deep;
}
void set_narrow_tail(bool on) { g_narrow_tail = on; }
void set_narrow_streaming_stores(bool on) { g_narrow_stream = on; }
void set_narrow_zero_accumulator(bool on) { g_narrow_zero_c = on; }
void set_narrow_tma_store(int mode) {
  if (mode < 0 || mode > 3)
    throw std::invalid_argument("set_narrow_tma_store: 0 (lanes), 1 (boxes of two groups), 2 (also a box per piece) or 3 "
                                "(also a box per group of pieces), got " + std::to_string(mode));
  g_narrow_tma_store = mode;
}
void set_narrow_prefetch(uint32_t units) {
  if (units > 8) throw std::invalid_argument("set_narrow_prefetch: units ahead must be in [0, 8], got " + std::to_string(units));
  g_narrow_prefetch = units;
}
bool narrow_stores_by_tma(const DeviceBatch& b) {
  if (!narrow_law_applies(b)) return false;
  NarrowLaw L = narrow_layout(b, b.plan().plan().K(), b.plan().plan().N(), 64);
  return narrow_tma_store_fits(L);
}

bool narrow_law_applies(const DeviceBatch& b) {
  auto& impl = b.impl();
  std::lock_guard<std::mutex> lock(impl.mutex);
  if (impl.narrow_state < 0) {
    const KernelPlan& p = b.plan().plan();
    const RowFormula& f = impl.formula;
    bool ok = diagonal_plus_row_law(p) && f.c != 0 && uint64_t(f.c) * p.q == b.rows();
    if (ok) {
      const uint32_t s = p.input_widths[0], r = p.output_widths[0];
      // N a multiple of 8: W's row pitch must be a multiple of 16 bytes for its tensor map
      ok = s <= 64 && s % 4 == 0 && r % 4 == 0 && (uint64_t(p.q) * r) % 8 == 0 && b.rows() < (uint64_t(1) << 32);
      // the largest grid: one unit per CTA, 64-row blocks, pieces of kNarrowSplit columns
      if (ok) ok = uint64_t(p.q) * ((f.c + 63) / 64) * p.q * ((r + kNarrowSplit - 1) / kNarrowSplit) < (uint64_t(1) << 31);
    }
    impl.narrow_state = ok ? 1 : 0;
  }
  return impl.narrow_state == 1;
}

namespace detail {
template <typename T>
bool launch_narrow(const DeviceBatch& b, const GemmArgs& a, uint32_t bn, cudaStream_t stream) {
  if (!narrow_law_applies(b)) return false;
  const RowFormula& f = b.impl().formula;
  NarrowLaw L = narrow_layout(b, a.lda, a.ldc, bn);
  const bool v8 = L.s % 8 == 0;  // x copies of 16 bytes
  auto go = [&](auto sk, auto deep, auto ns, auto ts) {
    constexpr int SK = decltype(sk)::value, NS = decltype(ns)::value;
    constexpr bool DEEP = decltype(deep)::value, TS = decltype(ts)::value;
    // L2 prefetches (set_narrow_prefetch): compiled into nl64x64 at SK = 40 with lane stores only
    // (Qwen3-32B at q = 128; the group boxes below have their own); elsewhere the setting is ignored.
    if constexpr (SK == 40 && NS == 2 && !TS) {
      if (L.prefetch) {
        if (v8) return launch_narrow_shape<T, SK, 8, DEEP, NS, TS, kNarrowSplit, true>(L, f, a, stream);
        return launch_narrow_shape<T, SK, 4, DEEP, NS, TS, kNarrowSplit, true>(L, f, a, stream);
      }
    }
    if (v8) launch_narrow_shape<T, SK, 8, DEEP, NS, TS>(L, f, a, stream);
    else launch_narrow_shape<T, SK, 4, DEEP, NS, TS>(L, f, a, stream);
  };
  if (bn == 64) {  // nl64x64: 8 warps of 64 columns
    const bool ts = narrow_tma_store_fits(L);
    narrow_set_unit_order(L, ts);
    narrow64_shape(L, [&](auto sk, auto deep) {
      const std::integral_constant<int, 2> ns;
      constexpr bool kTs = !(decltype(sk)::value == 24 && !decltype(deep)::value);  // not the 4-CTA shape
      if constexpr (kTs) {
        if constexpr (decltype(sk)::value == 40) {  // mode 3's group boxes: narrower W tiles (kNarrowGroupBoxW)
          if (ts && L.box_pieces > 1) {
            if (L.prefetch) {
              if (v8) return launch_narrow_shape<T, 40, 8, false, 2, true, kNarrowGroupBoxW, true>(L, f, a, stream);
              return launch_narrow_shape<T, 40, 4, false, 2, true, kNarrowGroupBoxW, true>(L, f, a, stream);
            }
            if (v8) return launch_narrow_shape<T, 40, 8, false, 2, true, kNarrowGroupBoxW>(L, f, a, stream);
            return launch_narrow_shape<T, 40, 4, false, 2, true, kNarrowGroupBoxW>(L, f, a, stream);
          }
        }
        if (ts) return go(sk, deep, ns, std::true_type{});
      }
      go(sk, deep, ns, std::false_type{});
    });
  } else {
    const std::integral_constant<int, 1> ns;
    narrow_set_unit_order(L, false);
    if (L.s <= 32) {
      if (g_narrow_deep == 1) go(std::integral_constant<int, 32>{}, std::true_type{}, ns, std::false_type{});
      else go(std::integral_constant<int, 32>{}, std::false_type{}, ns, std::false_type{});
    } else if (L.s <= 48) {
      go(std::integral_constant<int, 48>{}, std::false_type{}, ns, std::false_type{});
    } else {
      go(std::integral_constant<int, 64>{}, std::false_type{}, ns, std::false_type{});
    }
  }
  return true;
}
template bool launch_narrow<__nv_bfloat16>(const DeviceBatch&, const GemmArgs&, uint32_t, cudaStream_t);
template bool launch_narrow<__half>(const DeviceBatch&, const GemmArgs&, uint32_t, cudaStream_t);
}  // namespace detail

}  // namespace qalg::gpu
