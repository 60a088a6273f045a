// Entry points of the forward map (SPEC §4, §6): endpoint-fused, diagonal-first, block products.
#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "launch_common.cuh"
#include "launch_forward_types.hpp"
#include "launch_forward_ws.hpp"
#include "tensor_map.hpp"
#include "validate.hpp"

namespace qalg::gpu {
using namespace detail;

namespace {
// Process-wide default: the warp-specialised Hopper kernel with 64x128 tiles, which works for every
// 16-bit plan with widths that are multiples of 8 (the issue-7 benchmark calibrates per shape).
std::atomic<uint32_t> g_bm{64}, g_bn{128}, g_warps{5}, g_engine{uint32_t(TileEngine::wgmma_ws)};
std::atomic<bool> g_row_formula{false};
std::atomic<bool> g_law_grid{true};
std::atomic<bool> g_ws_types_outer{false};       // set_ws_item_order
std::atomic<bool> g_ws_items_descending{false};  // set_ws_items_descending (thirty-fifth session)
}  // namespace
thread_local bool detail::t_ws_after_prior = false;
namespace detail {  // (declared in launch_forward_ws.hpp)
std::atomic<bool> g_ws_fence_every_step{false};  // wgs_gemm.cuh kFenceEveryStep
std::atomic<bool> g_pair_cluster_scope{false};   // wgs_gemm.cuh kPairClusterScope
std::atomic<bool> g_ws_tma_store{true};          // wgs_gemm.cuh kTmaStore (on: session 19, call 2)
std::atomic<bool> g_ws_tma_store_tall{true};     // ... for the 128-row tiles too (written: session 29; on: session 30)
std::atomic<bool> g_row_pairs_two_per_sm{false};  // wsm: 3 stages, two CTAs per SM instead of 6 and one (session 32)
std::atomic<bool> g_ws128_two_per_sm{false};  // ws128x128: 3 stages, two CTAs per SM instead of 6 and one (session 34)
std::atomic<bool> g_ws_trim_tail{true};          // wgs_gemm.cuh kTrimTail (session 20)
std::atomic<bool> g_ws_narrow_w{true};           // wgs_gemm.cuh kNarrowW (on: session 21, call 1)
std::atomic<uint32_t> g_ws_pack_terms{uint32_t(WsPackTerms::whole_steps)};  // wgs_gemm.cuh PACK (session 24)
std::atomic<bool> g_ffn_pack_terms{true};        // the same for the gated FFN's gate/up (set_ffn_pack_terms)
std::atomic<bool> g_ws_term_stride{false};       // GemmArgs::term_stride (set_ws_term_stride, session 33)
std::atomic<bool> g_ws_exit_after_read{false};   // wgs_gemm.cuh kExitAfterRead (session 33)
std::atomic<uint32_t> g_ws_ablation{0};          // WsAblation bits (timing experiments only)
std::atomic<bool> g_ws_law_first{true};          // wgs_gemm.cuh kLawFirst (written and on: session 53)
std::atomic<uint64_t> g_ws_law_first_launches{0};
std::atomic<bool> g_ws_prime_first{true};        // wgs_gemm.cuh kPrimeFirst (session 37; on since 38)
std::atomic<bool> g_ws_prime_item{false};        // wgs_gemm.cuh kPrimeItem (session 42; with kPrimeFirst only)
std::atomic<unsigned long long*> g_ws_stamps{nullptr};  // set_ws_stamps (QALG_WS_STAMPS builds only)
}  // namespace detail
namespace {

// The compiled wgmma forward tiles (bm, bn); stages per tile are chosen for 1-2 CTAs per SM.
// (64x64, 64x192, 64x256 and 128x256 were dropped in the sixth session: never the calibrated pick
// in six sessions of runs, and each costs CI compile time.)
template <typename T>
bool launch_fused_wg(const WorkList& wl, GemmArgs a, TileConfig t, cudaStream_t s) {
  if (t.bm == 64 && t.bn == 128) return launch_wg<T, kForward, 64, 128, 4>(wl, a, s), true;
  if (t.bm == 128 && t.bn == 128) return launch_wg<T, kForward, 128, 128, 4>(wl, a, s), true;
  return false;
}
// The many-CTA tiles: 3 stages of (bm + bn) · 128 bytes; 4 CTAs per SM at 64x64 (49 KB each),
// 3 at 64x128 (73 KB), 2 at 128x128 (97 KB, 8 warps each).
template <typename T>
bool launch_fused_wm(const WorkList& wl, GemmArgs a, TileConfig t, cudaStream_t s) {
  if (t.bm == 64 && t.bn == 64) return launch_wm<T, kForward, 64, 64, 3, 4>(wl, a, s), true;
  if (t.bm == 64 && t.bn == 128) return launch_wm<T, kForward, 64, 128, 3, 3>(wl, a, s), true;
  if (t.bm == 128 && t.bn == 128) return launch_wm<T, kForward, 128, 128, 3, 2>(wl, a, s), true;
  return false;
}
// The lean tiles: 2 stages, so 6 CTAs per SM at 64x64 (33 KB each), 4 at 64x128, 3 at 64x192
// (65 KB). (128x128 at 3 per SM would need more than the 80 registers per thread that leaves.) Within a CTA the next step's copies overlap only the current step's wgmma; the
// other CTAs of the SM hide the rest, as the Triton peer's ~7 small CTAs per SM do.
template <typename T>
bool launch_fused_wl(const WorkList& wl, GemmArgs a, TileConfig t, cudaStream_t s) {
  if (t.bm == 64 && t.bn == 64) return launch_wm<T, kForward, 64, 64, 2, 6>(wl, a, s), true;
  if (t.bm == 64 && t.bn == 128) return launch_wm<T, kForward, 64, 128, 2, 4>(wl, a, s), true;
  if (t.bm == 64 && t.bn == 192) return launch_wm<T, kForward, 64, 192, 2, 3>(wl, a, s), true;
  return false;
}
bool is_compiled_wm_tile(const TileConfig& t) {
  if (t.engine == TileEngine::wgmma_many_lean)
    return t.bm == 64 && (t.bn == 64 || t.bn == 128 || t.bn == 192);
  return (t.bm == 64 && (t.bn == 64 || t.bn == 128)) || (t.bm == 128 && t.bn == 128);
}
bool is_compiled_ws_tile(const TileConfig& t) {
  if (t.engine == TileEngine::wgmma_ws_group_pairs || t.engine == TileEngine::wgmma_ws_row_pairs)
    return t.bm == 128 && t.bn == 128;
  if (t.engine == TileEngine::wgmma_ws_resident) return t.bm == 64 && (t.bn == 128 || t.bn == 192);
  if (t.engine == TileEngine::wgmma_ws_lean) return t.bm == 64 && (t.bn == 64 || t.bn == 128 || t.bn == 192);
  if (t.engine == TileEngine::wgmma_ws_pair) return t.bm == 64 && (t.bn == 64 || t.bn == 128);
  // (ws64x256 was dropped in the sixth session: never picked, slowest of all on every shape.)
  return (t.bm == 64 && (t.bn == 64 || t.bn == 128 || t.bn == 192)) || (t.bm == 128 && (t.bn == 64 || t.bn == 128));
}

bool is_compiled_wg_tile(const TileConfig& t) { return (t.bm == 64 || t.bm == 128) && t.bn == 128; }

// What the pair tiles (GP, RP) share on this batch with leading dimensions lda, ldc: equal output
// widths r, multiples of 8, rows in closed form, the TMA stores on. Returns r, 0 where any fails.
uint32_t pair_tiles_output_width(const DeviceBatch& b, uint64_t lda, uint64_t ldc) {
  const KernelPlan& p = b.plan().plan();
  if (p.output_widths.empty()) return 0;
  const uint32_t r = p.output_widths[0];
  for (uint32_t w : p.output_widths)
    if (w != r) return 0;
  const RowFormula& f = b.impl().formula;
  const bool ok = r % 8 == 0 && f.c != 0 && b.rows() % f.c == 0 && lda % 8 == 0 && ldc % 8 == 0 && g_ws_tma_store;
  return ok ? r : 0;
}

// Whether the group-pair tiles run as themselves (wgs_gemm.cuh GP) on this batch: the above with
// r <= 64, the TMA stores of 128-row tiles on too, every term whole 64-row steps (the list pairs).
// Elsewhere a wsg tile runs as ws128x64, the 128-row tile of one group.
bool group_pairs_launchable(const DeviceBatch& b, uint64_t lda, uint64_t ldc) {
  const uint32_t r = pair_tiles_output_width(b, lda, ldc);
  if (r == 0 || r > 64 || !g_ws_tma_store_tall) return false;
  return b.impl().list(b, ListKind::forward_group_pairs, 128, 128).group_pairs;
}

// Whether the row-pair tiles run as themselves (wgs_gemm.cuh RP) on this batch: the above (their
// stores are 64-row boxes: the tall tiles' switch does not apply), every term whole 64-row steps or
// the input widths grouped (grouped_input_widths), and every 64-row item a box of its own (the list
// pairs). Elsewhere a wsm tile runs as ws64x128.
bool row_pairs_launchable(const DeviceBatch& b, uint64_t lda, uint64_t ldc) {
  if (pair_tiles_output_width(b, lda, ldc) == 0) return false;
  return b.impl().list(b, ListKind::forward_row_pairs, 128, 128).row_pairs;
}

// Whether the batch's forward can take its items from the law's closed form (work_list.hpp
// LawGrid): the complete-graph law, rows in closed form with q | M, and a grid that fits. If so,
// fills a.law, a.row_formula and list.count (a list with no items: the kernel reads none).
bool law_applies(const DeviceBatch& b, uint32_t bm, uint32_t bn, bool by_rows, GemmArgs& a, WorkList& list) {
  auto& impl = b.impl();
  const KernelPlan& p = b.plan().plan();
  {
    std::lock_guard<std::mutex> lock(impl.mutex);
    if (impl.law_state < 0) {
      const RowFormula& f = impl.formula;
      bool ok = diagonal_plus_row_law(p) && f.c != 0 && uint64_t(f.c) * p.q == b.rows();
      // the largest grid (64-row, 64-column tiles) within a launch's 2^31 - 1 CTAs and 32-bit indices
      if (ok) ok = uint64_t(p.q) * p.q * ((f.c + 63) / 64) * ((p.output_widths[0] + 63) / 64) < (uint64_t(1) << 31);
      impl.law_state = ok ? 1 : 0;
    }
  }
  if (!impl.law_state) return false;
  a.law = law_grid(p.q, p.input_widths[0], p.output_widths[0], impl.formula.c, bm, bn, by_rows);
  a.row_formula = impl.formula;
  list.count = a.law.count();
  return true;
}

template <typename T>
// types_outer: the warp-specialised tiles walk their items type outer (WsItemOrder::types);
// descending: they walk them last first (set_ws_items_descending; the other tiles keep the list's order).
void launch_fused(const DeviceBatch& b, GemmArgs a, TileConfig t, bool types_outer, bool descending, cudaStream_t s) {
  auto& impl = b.impl();
  if constexpr (is_tensor_core_type<T>()) {
    if (t.engine == TileEngine::narrow_law) {
      if (launch_narrow<T>(b, a, t.bn, s)) return;
      t = TileConfig{64, 128, 4};  // not a narrow-group law plan: the mma.sync tile
    }
    if (b.plan().widths_vector_aligned()) {
      // Narrow output groups (r_j <= 32) waste most of a 64/128-wide tile: clamp to 32 columns
      // (mma.sync). The wg_gemm.cuh tiles (wg, wm, wmr, wl) keep their width: their copies
      // zero-fill past n_count, so the extra columns cost tensor-core time, not bytes, and the
      // calibration compares the two (Qwen3-30B expert training: r = 24).
      uint32_t rmax = 0;
      for (uint32_t r : b.plan().plan().output_widths) rmax = std::max(rmax, r);
      const bool wg_kernel = t.engine == TileEngine::wgmma || t.engine == TileEngine::wgmma_many ||
                             t.engine == TileEngine::wgmma_many_rows || t.engine == TileEngine::wgmma_many_lean;
      if (rmax <= 32 && !wg_kernel) t = TileConfig{t.bm, 32, 4};
      // The group-pair tile where it does not apply is the 128-row tile of one group; decided before
      // the list below is built for the tile's shape (a 128-column list under a 64-column kernel
      // would leave half of every wide tile unwritten).
      if (t.engine == TileEngine::wgmma_ws_group_pairs && !group_pairs_launchable(b, a.lda, a.ldc))
        t = TileConfig{128, 64, 9, TileEngine::wgmma_ws};
      if (t.engine == TileEngine::wgmma_ws_row_pairs && !row_pairs_launchable(b, a.lda, a.ldc))
        t = TileConfig{64, 128, 5, TileEngine::wgmma_ws};
      const auto& wl = impl.list(b, ListKind::forward, t.bm, t.bn);
      // The complete-graph law with rows in closed form: the wg_gemm.cuh tiles compute their items
      // from the index (LawGrid) in the same two orders as the lists they would read.
      const bool by_rows = t.engine == TileEngine::wgmma_many_rows || t.engine == TileEngine::wgmma_many_lean;
      WorkList law_list;
      GemmArgs la = a;
      const bool law = wg_kernel && law_grid_enabled() && law_applies(b, t.bm, t.bn, by_rows, la, law_list);
      if (t.engine == TileEngine::wgmma) {
        if (launch_fused_wg<T>(law ? law_list : wl, law ? la : a, t, s)) return;
        throw std::invalid_argument("forward: no compiled wgmma tile " + tile_name(t));
      }
      if (t.engine == TileEngine::wgmma_many || t.engine == TileEngine::wgmma_many_rows) {
        const WorkList& order = law ? law_list : !by_rows ? wl : impl.list(b, ListKind::forward_by_rows, t.bm, t.bn);
        if (launch_fused_wm<T>(order, law ? la : a, t, s)) return;
        throw std::invalid_argument("forward: no compiled many-CTA tile " + tile_name(t));
      }
      if (t.engine == TileEngine::wgmma_many_lean) {
        if (launch_fused_wl<T>(law ? law_list : impl.list(b, ListKind::forward_by_rows, t.bm, t.bn), law ? la : a, t, s))
          return;
        throw std::invalid_argument("forward: no compiled lean many-CTA tile " + tile_name(t));
      }
      if (t.engine == TileEngine::wgmma_ws_types) {
        const DType dt = std::is_same_v<T, __nv_bfloat16> ? DType::bf16 : DType::f16;
        if (launch_forward_types(dt, impl.list(b, ListKind::forward_groups, t.bm, t.bn), a, t, b.plan().K(),
                                 b.plan().N(), s))
          return;
        throw std::invalid_argument("forward: no compiled type-group tile " + tile_name(t));
      }
      if (t.engine == TileEngine::wgmma_ws_group_pairs) {  // (group_pairs_launchable: checked above)
        if (launch_fused_ws<T>(b.plan(), impl.list(b, ListKind::forward_group_pairs, t.bm, t.bn), a, t, b.rows(),
                               impl.formula, s))
          return;
        throw std::invalid_argument("forward: no compiled group-pair tile " + tile_name(t));
      }
      if (t.engine == TileEngine::wgmma_ws_row_pairs) {  // (row_pairs_launchable: checked above)
        if (launch_fused_ws<T>(b.plan(), impl.list(b, ListKind::forward_row_pairs, t.bm, t.bn), a, t, b.rows(),
                               impl.formula, s))
          return;
        throw std::invalid_argument("forward: no compiled row-pair tile " + tile_name(t));
      }
      if (t.engine == TileEngine::wgmma_ws || t.engine == TileEngine::wgmma_ws_resident ||
          t.engine == TileEngine::wgmma_ws_lean || t.engine == TileEngine::wgmma_ws_pair) {
        // (Items from the law's closed form here too, set_ws_law_grid, twenty-second session: removed
        // in the twenty-third. In three same-call A/Bs against the code without it, e73d0cb, the
        // projections that carry targets ran slower with it, on or off: Qwen3-1.7B 1-5 %, 4B 2-5 %
        // warm and 6 % flushed, Qwen3-32B at M = 2048 2-5 % warm and 7 % flushed; 8B and the squares
        // level or faster. Its code in the producer cost the kernels even where it was not used.)
        const WorkList& order =
            types_outer || descending
                ? impl.list(b, types_outer ? ListKind::forward_by_types : ListKind::forward, t.bm, t.bn, descending)
                : wl;
        if (launch_fused_ws<T>(b.plan(), order, a, t, b.rows(), impl.formula, s)) return;
        throw std::invalid_argument("forward: no compiled warp-specialised tile " + tile_name(t));
      }
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
    if (b.plan().vector_width() == 4) {  // widths multiple of 4: 8-byte copies (mma.sync only)
      // Three tiles, picked by the calibrated tile's shape (Qwen3-32B at q = 256: s = 20, r = 100,
      // 128 rows per type): 128 rows per CTA read each W block half as often as 64.
      if (t.bm == 128 && t.bn == 128 && t.warps == 8)
        return launch_tc<T, kForward, 128, 128, 1, kStore, 4, 8>(impl.list(b, ListKind::forward, 128, 128), a, s);
      if (t.bm == 128 && t.bn == 64)
        return launch_tc<T, kForward, 128, 64, 1, kStore, 4>(impl.list(b, ListKind::forward, 128, 64), a, s);
      return launch_tc<T, kForward, 64, 128, 1, kStore, 4>(impl.list(b, ListKind::forward, 64, 128), a, s);
    }
  }
  launch_simt<T, kForward, 1, kStore>(impl.list(b, ListKind::forward, kSimtBM, kSimtBN), a, s);
}

template <typename T>
void launch_diagonal_first(const DeviceBatch& b, GemmArgs a, float* ws, cudaStream_t s) {
  auto& impl = b.impl();
  GemmArgs p1 = a;  // pass 1: x_j W_jj for all rows into the FP32 workspace
  p1.rows = impl.identity.get();
  p1.row_formula = {};  // the identity list, not the batch's
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

namespace detail {
bool launch_gated_ws(const DeviceBatch& b, GemmArgs a, uint32_t bn, bool lean, bool types_outer, DType dt,
                     cudaStream_t s) {
  if (dt == DType::bf16) return launch_gated_ws_typed<__nv_bfloat16>(b, a, bn, lean, types_outer, s);
  if (dt == DType::f16) return launch_gated_ws_typed<__half>(b, a, bn, lean, types_outer, s);
  return false;
}
}  // namespace detail

std::string tile_name(const TileConfig& t) {
  if (t.engine == TileEngine::wgmma) return "wg" + std::to_string(t.bm) + "x" + std::to_string(t.bn);
  if (t.engine == TileEngine::wgmma_ws) return "ws" + std::to_string(t.bm) + "x" + std::to_string(t.bn);
  if (t.engine == TileEngine::wgmma_ws_resident) return "wr" + std::to_string(t.bm) + "x" + std::to_string(t.bn);
  if (t.engine == TileEngine::wgmma_ws_lean) return "wsl" + std::to_string(t.bm) + "x" + std::to_string(t.bn);
  if (t.engine == TileEngine::wgmma_ws_pair) return "wsp" + std::to_string(t.bm) + "x" + std::to_string(t.bn);
  if (t.engine == TileEngine::wgmma_ws_group_pairs) return "wsg" + std::to_string(t.bm) + "x" + std::to_string(t.bn);
  if (t.engine == TileEngine::wgmma_ws_row_pairs) return "wsm" + std::to_string(t.bm) + "x" + std::to_string(t.bn);
  if (t.engine == TileEngine::wgmma_ws_types) return "wt" + std::to_string(t.bm) + "x" + std::to_string(t.bn);
  if (t.engine == TileEngine::wgmma_many) return "wm" + std::to_string(t.bm) + "x" + std::to_string(t.bn);
  if (t.engine == TileEngine::wgmma_many_rows) return "wmr" + std::to_string(t.bm) + "x" + std::to_string(t.bn);
  if (t.engine == TileEngine::wgmma_many_lean) return "wl" + std::to_string(t.bm) + "x" + std::to_string(t.bn);
  if (t.engine == TileEngine::cublas_batched) return "cublas-batched";
  if (t.engine == TileEngine::narrow_law) return "nl" + std::to_string(t.bm) + "x" + std::to_string(t.bn);
  return std::to_string(t.bm) + "x" + std::to_string(t.bn) + "w" + std::to_string(t.warps);
}

void set_forward_tiles(TileConfig t) {
  if (t.engine == TileEngine::cublas_batched)
    throw std::invalid_argument("set_forward_tiles: cublas_batched is an engine of dX and dW (set_backward_engines), not a forward tile");
  if (t.engine == TileEngine::wgmma_ws_types) {
    std::string names;
    for (const TileConfig& c : compiled_type_group_tiles()) {
      if (c.bm == t.bm && c.bn == t.bn) {
        g_bm = c.bm, g_bn = c.bn, g_warps = c.warps, g_engine = uint32_t(c.engine);
        return;
      }
      names += (names.empty() ? "" : ", ") + std::to_string(c.bm) + "x" + std::to_string(c.bn);
    }
    throw std::invalid_argument("set_forward_tiles: type-group tile " + tile_name(t) + " is not compiled (wt: " +
                                names + ")");
  }
  // The wgmma engines: validate against the compiled set, derive the warps, store.
  auto accept = [&](bool compiled, const char* kind, const char* compiled_list, uint32_t warps) {
    if (!compiled)
      throw std::invalid_argument(std::string("set_forward_tiles: ") + kind + " tile " + tile_name(t) +
                                  " is not compiled (" + compiled_list + ")");
    g_bm = t.bm, g_bn = t.bn, g_warps = warps, g_engine = uint32_t(t.engine);
  };
  if (t.engine == TileEngine::wgmma_ws || t.engine == TileEngine::wgmma_ws_resident ||
      t.engine == TileEngine::wgmma_ws_lean || t.engine == TileEngine::wgmma_ws_pair ||
      t.engine == TileEngine::wgmma_ws_group_pairs || t.engine == TileEngine::wgmma_ws_row_pairs)
    return accept(is_compiled_ws_tile(t), "warp-specialised",
                  "ws: 64x64, 64x128, 64x192, 128x64, 128x128; wr: 64x128, 64x192; wsl: 64x64, 64x128, 64x192; wsp: 64x64, "
                  "64x128; wsg: 128x128; wsm: 128x128",
                  t.bm / 16 + 1);
  if (t.engine == TileEngine::wgmma_many || t.engine == TileEngine::wgmma_many_rows ||
      t.engine == TileEngine::wgmma_many_lean)
    return accept(is_compiled_wm_tile(t), "many-CTA", "wm, wmr: 64x64, 64x128, 128x128; wl: 64x64, 64x128, 64x192", t.bm / 16);
  if (t.engine == TileEngine::wgmma)
    return accept(is_compiled_wg_tile(t), "wgmma", "64x128, 128x128", t.bm / 16);
  if (t.engine == TileEngine::narrow_law)
    return accept(t.bm == 64 && (t.bn == 128 || t.bn == 64), "narrow-group law", "nl64x128, nl64x64", t.bn == 64 ? 8 : 4);
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
  g_engine = uint32_t(t.engine);
}
std::vector<TileConfig> forward_tiles_for_vector_width(uint32_t vector_width) {
  if (vector_width >= 8) return compiled_forward_tiles();
  if (vector_width == 4)
    return {{64, 128, 4}, {128, 64, 4}, {128, 128, 8}, {64, 128, 4, TileEngine::narrow_law}, {64, 64, 8, TileEngine::narrow_law}};
  return {};
}
std::vector<TileConfig> compiled_forward_tiles() {
  constexpr auto wg = TileEngine::wgmma, ws = TileEngine::wgmma_ws, wr = TileEngine::wgmma_ws_resident,
                 wm = TileEngine::wgmma_many, wmr = TileEngine::wgmma_many_rows, wl = TileEngine::wgmma_many_lean,
                 wsl = TileEngine::wgmma_ws_lean, wsp = TileEngine::wgmma_ws_pair,
                 wsg = TileEngine::wgmma_ws_group_pairs, wsm = TileEngine::wgmma_ws_row_pairs;
  std::vector<TileConfig> v = {{64, 128, 4}, {128, 128, 4}, {64, 64, 4}, {128, 64, 4}, {128, 128, 8},
                               {64, 128, 8}, {64, 192, 8}, {64, 256, 8}, {64, 128, 4, wg}, {128, 128, 8, wg},
                               {64, 64, 5, ws}, {64, 128, 5, ws}, {64, 192, 5, ws}, {128, 64, 9, ws}, {128, 128, 9, ws},
                               {64, 128, 5, wr}, {64, 192, 5, wr}, {64, 64, 4, wm}, {64, 128, 4, wm},
                               {128, 128, 8, wm}, {64, 64, 4, wmr}, {64, 128, 4, wmr}, {128, 128, 8, wmr},
                               {64, 64, 4, wl}, {64, 128, 4, wl}, {64, 192, 4, wl}, {64, 64, 5, wsl},
                               {64, 128, 5, wsl}, {64, 192, 5, wsl}, {64, 64, 5, wsp}, {64, 128, 5, wsp}, {128, 128, 9, wsg},
                               {128, 128, 9, wsm},
                               {64, 128, 4, TileEngine::narrow_law},
                               {64, 64, 8, TileEngine::narrow_law}};
  for (const TileConfig& t : compiled_type_group_tiles()) v.push_back(t);
  return v;
}


// What the special tiles' "apply" questions share: t is a compiled tile of that engine, the widths
// vector-aligned, and some output width above 32 (at most 32, launch_fused runs the mma.sync tile).
bool special_tile_candidate(const DeviceBatch& b, TileConfig t, TileEngine engine) {
  if (t.engine != engine || !is_compiled_ws_tile(t) || !b.plan().widths_vector_aligned()) return false;
  uint32_t rmax = 0;
  for (uint32_t r : b.plan().plan().output_widths) rmax = std::max(rmax, r);
  return rmax > 32;
}

bool paired_tiles_apply(const DeviceBatch& b, TileConfig t) {
  return special_tile_candidate(b, t, TileEngine::wgmma_ws_pair) &&
         b.impl().list(b, g_ws_types_outer ? ListKind::forward_by_types : ListKind::forward, t.bm, t.bn).pairs;
}

uint32_t forward_term_stride(const DeviceBatch& b, TileConfig t) {
  return b.impl().list(b, g_ws_types_outer ? ListKind::forward_by_types : ListKind::forward, t.bm, t.bn).term_stride;
}

bool group_pair_tiles_apply(const DeviceBatch& b, TileConfig t) {
  return special_tile_candidate(b, t, TileEngine::wgmma_ws_group_pairs) &&
         group_pairs_launchable(b, b.plan().K(), b.plan().N());
}

bool row_pair_tiles_apply(const DeviceBatch& b, TileConfig t) {
  return special_tile_candidate(b, t, TileEngine::wgmma_ws_row_pairs) &&
         row_pairs_launchable(b, b.plan().K(), b.plan().N());
}

void set_row_formula(bool on) { g_row_formula = on; }
void set_law_grid(bool on) { g_law_grid = on; }
void set_ws_fence_every_step(bool on) { g_ws_fence_every_step = on; }
void set_paired_cluster_scope(bool on) { g_pair_cluster_scope = on; }
void set_ws_tma_store(bool on) { g_ws_tma_store = on; }
bool ws_tma_store() { return g_ws_tma_store.load(); }
void set_ws_tma_store_tall(bool on) { g_ws_tma_store_tall = on; }
void set_ws_exit_after_read(bool on) { g_ws_exit_after_read = on; }
bool ws_exit_after_read() { return g_ws_exit_after_read.load(); }
void set_ws_term_stride(bool on) { g_ws_term_stride = on; }
void set_ws_stamps(unsigned long long* stamps) { g_ws_stamps = stamps; }
void set_ws_law_first(bool on) { g_ws_law_first = on; }
bool ws_law_first() { return g_ws_law_first.load(); }
uint64_t ws_law_first_launches() { return g_ws_law_first_launches.load(); }
void set_ws_prime_first(bool on) { g_ws_prime_first = on; }
bool ws_prime_first() { return g_ws_prime_first.load(); }
void set_ws_prime_item(bool on) { g_ws_prime_item = on; }
bool ws_prime_item() { return g_ws_prime_item.load(); }
bool ws_stamps_compiled() {
#ifdef QALG_WS_STAMPS
  return true;
#else
  return false;
#endif
}
bool ws_term_stride() { return g_ws_term_stride.load(); }
void set_row_pairs_two_per_sm(bool on) { g_row_pairs_two_per_sm = on; }
bool row_pairs_two_per_sm() { return g_row_pairs_two_per_sm.load(); }
void set_ws_items_descending(bool on) { g_ws_items_descending = on; }
bool ws_items_descending() { return g_ws_items_descending.load(); }
void set_ws128_two_per_sm(bool on) { g_ws128_two_per_sm = on; }
bool ws128_two_per_sm() { return g_ws128_two_per_sm.load(); }
bool ws_tma_store_tall() { return g_ws_tma_store_tall.load(); }
void set_ws_trim_tail(bool on) { g_ws_trim_tail = on; }
bool ws_trim_tail() { return g_ws_trim_tail.load(); }
void set_ws_narrow_w(bool on) { g_ws_narrow_w = on; }
void set_ws_pack_terms(WsPackTerms m) {
  if (uint32_t(m) > uint32_t(WsPackTerms::always))
    throw std::invalid_argument("set_ws_pack_terms: unknown mode " + std::to_string(uint32_t(m)) +
                                " (off 0, whole_steps 1, always 2)");
  g_ws_pack_terms = uint32_t(m);
}
void set_ffn_pack_terms(bool on) { g_ffn_pack_terms = on; }
bool ffn_pack_terms() { return g_ffn_pack_terms.load(); }
WsPackTerms ws_pack_terms() { return WsPackTerms(g_ws_pack_terms.load()); }
bool ws_narrow_w() { return g_ws_narrow_w.load(); }
void set_ws_ablation(uint32_t mask) {
  if (mask & ~uint32_t(ws_ablate_no_load | ws_ablate_no_mma | ws_ablate_no_store))
    throw std::invalid_argument("set_ws_ablation: unknown bits in mask " + std::to_string(mask) +
                                " (known: no_load 1, no_mma 2, no_store 4)");
  g_ws_ablation = mask;
}
uint32_t ws_ablation() { return g_ws_ablation.load(); }
void set_ws_item_order(WsItemOrder o) { g_ws_types_outer = o == WsItemOrder::types; }
WsItemOrder ws_item_order() { return g_ws_types_outer ? WsItemOrder::types : WsItemOrder::columns; }
bool law_grid_enabled() { return g_law_grid.load(); }
bool row_formula_enabled() { return g_row_formula.load(); }

TileConfig forward_tiles() {
  return TileConfig{g_bm.load(), g_bn.load(), g_warps.load(), TileEngine(g_engine.load())};
}

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
  if (row_formula_enabled()) a.row_formula = batch.impl().formula;
  a.A = X.data, a.lda = K;
  a.B0 = W.data, a.ldb = N;
  a.C = Y.data, a.ldc = N;
  TileConfig t = forward_tiles();
  bool types_outer = g_ws_types_outer, descending = g_ws_items_descending;
  if (const auto e = find_calibration(K, N, p.q(), M)) {  // issue 7 calibration
    t = e->tiles;
    if (e->order) types_outer = *e->order == WsItemOrder::types, descending = e->descending;
  }
  dispatch_dtype(X.dtype, [&](auto tag) {
    using T = decltype(tag);
    if (schedule == ForwardSchedule::endpoint_fused)
      launch_fused<T>(batch, a, t, types_outer, descending, stream);
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
