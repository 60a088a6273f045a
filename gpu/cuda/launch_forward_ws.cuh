#pragma once
// The definitions of launch_forward_ws.hpp, included only by launch_forward_ws_bf16.cu and
// launch_forward_ws_f16.cu, each of which instantiates them for its type (that header says why).
#include <algorithm>
#include <stdexcept>
#include <type_traits>

#include "launch_forward_ws.hpp"
#include "tensor_map.hpp"
#include "wgs_gemm.cuh"

namespace qalg::gpu::detail {

// The kernel's copy flags for the ablation bits (wgs_gemm.cuh kAblate*).
inline uint32_t ablation_copy_flags() {
  const uint32_t a = g_ws_ablation;
  return (a & ws_ablate_no_load ? kAblateNoLoad : 0u) | (a & ws_ablate_no_mma ? kAblateNoMma : 0u) |
         (a & ws_ablate_no_store ? kAblateNoStore : 0u);
}

// The most clusters of CL CTAs of a kernel resident at once (an SM's CTAs pair only within its
// GPC, so this can be less than CTAs per SM × SMs / CL). After resident_ctas (its smem attribute).
template <typename Kernel>
uint32_t max_clusters(Kernel kernel, int threads, size_t smem, int cl) {
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cl, attr[0].val.clusterDim.y = 1, attr[0].val.clusterDim.z = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(cl * multiprocessors()), cfg.blockDim = dim3(threads), cfg.dynamicSmemBytes = smem;
  cfg.attrs = attr, cfg.numAttrs = 1;
  int n = 0;
  check_cuda(cudaOccupancyMaxActiveClusters(&n, kernel, &cfg), "cudaOccupancyMaxActiveClusters");
  return uint32_t(std::max(n, 1));
}

// The warp-specialised kernel: W through two tensor maps (64-row and 8-row boxes of 64 columns);
// RES > 0 keeps the diagonal block resident (plans whose input widths are at most RES · 64).
// f: the batch's rows in closed form (c = 0: none); with one, the x rows of full steps
// come by TMA through a 3-D map of X (wgs_gemm.cuh kRowsTma). s: the input groups' common width
// (0: unequal); when it is a multiple of 8 but not of 64, every term has a partly empty last step
// and both operands come through the grouped maps instead (wgs_gemm.cuh kGroupedTma; widths that
// are multiples of 64 keep the measured path unchanged).
// EPI = kSiluMul: the gated FFN's gate (a.B0) and up (a.B1) in one kernel, H = SiLU(gate)·up.
// CL = 2: clusters of two CTAs sharing W by multicast (the list must pair: WorkList::pairs).
// GP: the group-pair tiles (a pair_group_items list; the caller checked group_pairs_launchable).
// RP: the row-pair tiles (a pair_row_items list; the caller checked row_pairs_launchable): x's and
// Y's maps with 64-row boxes, one per half.
// Whether the kLawFirst tiles may run this list (set_ws_law_first on, the list in the law's closed
// form, and the producers not reading the slotted copy: a with_list GemmArgs without term_stride).
inline bool law_first_launchable(const WorkList& wl, const GemmArgs& la) {
  return g_ws_law_first && wl.law_order != 0 && la.term_stride == 0;
}
// LF: the kLawFirst instantiation (the caller checked law_first_launchable).
template <typename T, int BM, int BN, int STAGES, int RES, int MINB = 1, int EPI = kStore, int CL = 1, bool PACK = false,
          bool GP = false, bool RP = false, bool LF = false>
void launch_ws(const WorkList& wl, GemmArgs a, uint64_t M, uint64_t K, uint64_t N, RowFormula f, uint32_t s,
               uint32_t r, cudaStream_t stream) {
  if (wl.count == 0) return;
  if (GP && (!wl.group_pairs || r == 0 || r > 64 || r % 8 != 0 || N % r != 0))  // (before the maps divide by r)
    throw std::logic_error("launch_ws: the group-pair tiles need a paired list and equal output widths r <= 64");
  if (RP && !wl.row_pairs) throw std::logic_error("launch_ws: the row-pair tiles need a paired list");
  auto kernel = wgs_forward_kernel<T, BM, BN, STAGES, RES, MINB, EPI, CL, PACK, GP, RP, LF>;
  constexpr uint32_t box_rows = RP ? 64 : BM;  // x's and Y's boxes (RP: one per 64-row half)
  constexpr int threads = BM * 2 + 32;
  constexpr size_t smem = wgs_smem_bytes<BM, BN, STAGES, RES, EPI == kSiluMul ? 2 : 1>();
  static const uint32_t resident = resident_ctas(kernel, threads, smem);
  const DType dt = std::is_same_v<T, __nv_bfloat16> ? DType::bf16 : DType::f16;
  const bool grouped = (EPI == kStore || EPI == kSiluMul) && grouped_input_widths(s, K);
  const uint32_t q = grouped ? uint32_t(K / s) : 0;
  const CUtensorMap m64 = grouped ? tensor_map_grouped_rows(a.B0, dt, s, q, N) : tensor_map_2d(a.B0, dt, K, N, 64, 64);
  // CL = 2: every step is a whole box, and each CTA of a pair copies 32 of its 64 rows; grouped:
  // 16-row boxes of the group, for the trimmed last steps (kTrimTail)
  const bool trim = grouped && g_ws_trim_tail;
  const CUtensorMap m8 = trim ? tensor_map_grouped_rows(a.B0, dt, s, q, N, 16)
                              : tensor_map_2d(a.B0, dt, K, N, CL > 1 ? 32 : 8, 64);
  const bool rows_tma = f.c != 0 && a.lda % 8 == 0;
  a.row_formula = f;  // the producer's row offsets from the formula (c = 0: from the list)
  const CUtensorMap mA = !rows_tma ? m8
                         : grouped ? tensor_map_grouped_typed_rows(a.A, dt, s, q, a.lda, f, M, box_rows)
                                   : tensor_map_typed_rows(a.A, dt, K, a.lda, f, M, box_rows);
  uint32_t copy = (rows_tma ? kRowsTma : 0u) | (grouped ? kGroupedTma : 0u) |
                        (g_ws_fence_every_step ? kFenceEveryStep : 0u) | (g_pair_cluster_scope ? kPairClusterScope : 0u) |
                        (trim ? kTrimTail : 0u) | (g_ws_narrow_w ? kNarrowW : 0u) |
                        (g_ws_exit_after_read ? kExitAfterRead : 0u) |
                        (g_ws_prime_first ? kPrimeFirst : 0u) | (g_ws_prime_item ? kPrimeItem : 0u) |
                        ablation_copy_flags();
  const CUtensorMap u64 = GP                ? tensor_map_column_groups(a.B0, dt, K, r, uint32_t(N / r))
                          : EPI != kSiluMul ? m64
                          : grouped         ? tensor_map_grouped_rows(a.B1, dt, s, q, N)
                                            : tensor_map_2d(a.B1, dt, K, N, 64, 64);
  const CUtensorMap u8 = EPI != kSiluMul ? m8
                         : trim          ? tensor_map_grouped_rows(a.B1, dt, s, q, N, 16)
                                         : tensor_map_2d(a.B1, dt, K, N, 8, 64);
  // kTmaStore: Y (or the gated FFN's H) as typed rows, 64-row boxes of 64 columns, like X's map;
  // with equal output widths r (multiples of 8) its columns split into (column within group, group),
  // so that a box past a group's end is clipped there and every tile, partial ones too, goes by TMA
  // (BM = 128 too unless set_ws_tma_store_tall(false): one 128-row box per 64 columns, on since the thirtieth session)
  const bool tma_store =
      g_ws_tma_store && (BM == 64 || RP || g_ws_tma_store_tall) && rows_tma && a.ldc % 8 == 0;  // (pairs too: session 23)
  const bool by_groups = tma_store && r != 0 && r % 8 == 0 && N % r == 0;
  const CUtensorMap mC = !tma_store ? m8
                         : by_groups ? tensor_map_grouped_typed_rows(a.C, dt, r, uint32_t(N / r), a.ldc, f, M, box_rows)
                                     : tensor_map_typed_rows(a.C, dt, N, a.ldc, f, M, box_rows);
  copy |= tma_store ? kTmaStore : 0u;
  // kTrimTail with x by TMA: x's trimmed steps as 16-column boxes (32B swizzle)
  const CUtensorMap mA16 = trim && rows_tma ? tensor_map_grouped_typed_rows(a.A, dt, s, q, a.lda, f, M, box_rows, 16) : mA;
  const uint32_t r_group = by_groups ? r : 0u;
  // The list's items and terms; under set_ws_term_stride, where the list has term slots, the slotted
  // copy, so that the producer reads its first item's terms beside the item (GemmArgs::term_stride).
  GemmArgs la = with_list(a, wl);
  if (g_ws_term_stride && wl.term_stride != 0)
    la.items = wl.slotted_items.get(), la.terms = wl.slotted_terms.get(), la.term_stride = wl.term_stride;
  la.stamps = g_ws_stamps.load();  // (read by the kernel only in a QALG_WS_STAMPS build)
  // LF (set_ws_law_first): the first items in closed form, the list checked to be the law's
  if constexpr (LF) {
    static_assert(BM == 128 && CL == 1 && EPI == kStore && RES == 0 && !GP && !RP && !PACK, "kLawFirst: the plain 128-row tiles");
    if (!law_first_launchable(wl, la)) throw std::logic_error("launch_ws: the law-first tile needs a list in the law's closed form");
    la.law = wl.law;
    copy |= kLawFirst | (wl.law_order == 2 ? kLawReversed : 0u);
    ++g_ws_law_first_launches;
  }
  // (wgs_gemm.cuh kTmaRowsOnly: this instantiation has no cp.async path for x's rows)
  if (BM == 128 && BN == 128 && MINB == 2 && !RP && !GP && !PACK && EPI != kSiluMul &&
      !(rows_tma && (grouped || (s != 0 && s % 64 == 0))))
    throw std::logic_error("launch_ws: ws128x128 two per SM copies x's rows only by TMA (grouped or whole steps)");
  if ((GP && grouped) || ((GP || RP) && !by_groups))
    throw std::logic_error("launch_ws: the group-pair tiles need whole steps, and both pair tiles the TMA stores of groups");
  if constexpr (CL > 1) {
    if (!wl.pairs || grouped) throw std::logic_error("launch_ws: a paired launch needs a list that pairs");
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = CL, attr[0].val.clusterDim.y = 1, attr[0].val.clusterDim.z = 1;
    cudaLaunchConfig_t cfg{};
    cfg.blockDim = dim3(threads), cfg.dynamicSmemBytes = smem, cfg.stream = stream, cfg.attrs = attr, cfg.numAttrs = 1;
    static const uint32_t clusters = max_clusters(kernel, threads, smem, CL);  // each takes pairs of items
    cfg.gridDim = dim3(std::min(wl.count / CL, clusters) * CL);
    check_cuda(cudaLaunchKernelEx(&cfg, kernel, la, wl.count, uint32_t(K), m64, m8, mA, u64, u8, mC, mA16, copy,
                                  0u, r_group),
               "wgs_forward_kernel launch (pairs)");
    return;
  }
  // After the gated FFN's gate/up (t_ws_after_prior): programmatic dependent launch, so that this
  // grid's launch and set-up overlap that kernel's last CTAs (its producer waits, griddepcontrol.wait,
  // before it copies any of H).
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(std::min(wl.count, resident)), cfg.blockDim = dim3(threads), cfg.dynamicSmemBytes = smem;
  cfg.stream = stream, cfg.attrs = attr, cfg.numAttrs = detail::t_ws_after_prior ? 1 : 0;
  detail::t_ws_after_prior = false;
  check_cuda(cudaLaunchKernelEx(&cfg, kernel, la, wl.count, uint32_t(K), m64, m8, mA, u64, u8, mC, mA16, copy,
                                grouped ? s : 0u, r_group),
             "wgs_forward_kernel launch");
}
// Whether the packed kernel (wgs_gemm.cuh PACK) runs for input width s (the kernel's own test:
// grouped, trimmed, x by TMA) under the set_ws_pack_terms mode.
inline bool packs_terms(uint32_t s, uint64_t K, RowFormula f, const GemmArgs& a) {
  const WsPackTerms mode = WsPackTerms(g_ws_pack_terms.load());
  return grouped_input_widths(s, K) && g_ws_trim_tail && f.c != 0 && a.lda % 8 == 0 &&
         (mode == WsPackTerms::always || (mode == WsPackTerms::whole_steps && s % 64 == 32));
}
template <typename T>
bool launch_fused_ws(const DevicePlan& p, const WorkList& wl, GemmArgs a, TileConfig t, uint64_t M, RowFormula f,
                     cudaStream_t stream) {
  const uint64_t K = p.K(), N = p.N();
  uint32_t smax = 0, s = p.plan().input_widths.empty() ? 0 : p.plan().input_widths[0];
  for (uint32_t w : p.plan().input_widths) smax = std::max(smax, w), s = w == s ? s : 0;  // s: the common width
  uint32_t r = p.plan().output_widths.empty() ? 0 : p.plan().output_widths[0];
  for (uint32_t w : p.plan().output_widths) r = w == r ? r : 0;  // r: the common output width (0: none)
  if (t.engine == TileEngine::wgmma_ws_resident) {
    if (smax <= 128) {  // else no diagonal block fits the resident slot: stream it
      if (t.bm == 64 && t.bn == 128) return launch_ws<T, 64, 128, 3, 2>(wl, a, M, K, N, f, s, r, stream), true;
      if (t.bm == 64 && t.bn == 192) return launch_ws<T, 64, 192, 3, 2>(wl, a, M, K, N, f, s, r, stream), true;
    }
  }
  if (t.engine == TileEngine::wgmma_ws_group_pairs) {  // wl: the group-pair list (launch_fused checked it)
    if (t.bm == 128 && t.bn == 128) return launch_ws<T, 128, 128, 6, 0, 1, kStore, 1, false, true>(wl, a, M, K, N, f, s, r, stream), true;
    return false;
  }
  if (t.engine == TileEngine::wgmma_ws_row_pairs) {  // wl: the row-pair list (launch_fused checked it)
    if (t.bm == 128 && t.bn == 128 && g_row_pairs_two_per_sm)
      return launch_ws<T, 128, 128, 3, 0, 2, kStore, 1, false, false, true>(wl, a, M, K, N, f, s, r, stream), true;
    if (t.bm == 128 && t.bn == 128)
      return launch_ws<T, 128, 128, 6, 0, 1, kStore, 1, false, false, true>(wl, a, M, K, N, f, s, r, stream), true;
    return false;
  }
  if (t.engine == TileEngine::wgmma_ws_pair) {  // the lean tiles in pairs where the list pairs; else lean
    if (wl.pairs && t.bm == 64 && t.bn == 64) return launch_ws<T, 64, 64, 3, 0, 4, kStore, 2>(wl, a, M, K, N, f, s, r, stream), true;
    if (wl.pairs && t.bm == 64 && t.bn == 128)
      return launch_ws<T, 64, 128, 3, 0, 3, kStore, 2>(wl, a, M, K, N, f, s, r, stream), true;
    t.engine = TileEngine::wgmma_ws_lean;
  }
  if (t.engine == TileEngine::wgmma_ws_lean) {  // 3 / 3 / 2 stages: 4, 3 and 3 CTAs per SM
    if (t.bm == 64 && t.bn == 64) return launch_ws<T, 64, 64, 3, 0, 4>(wl, a, M, K, N, f, s, r, stream), true;
    if (t.bm == 64 && t.bn == 128) {
      // The packed kernel only where it packs (the kernel's own test: grouped, trimmed, x by TMA):
      // elsewhere its unpacked path ran 1-5 % slower than the plain kernel (call 4: the Qwen3-30B
      // expert 11.4 -> 11.8 and 11.5 -> 12.1 µs), the cost of the second loop in the producer.
      if (packs_terms(s, K, f, a)) return launch_ws<T, 64, 128, 3, 0, 3, kStore, 1, true>(wl, a, M, K, N, f, s, r, stream), true;
      return launch_ws<T, 64, 128, 3, 0, 3>(wl, a, M, K, N, f, s, r, stream), true;
    }
    if (t.bm == 64 && t.bn == 192) return launch_ws<T, 64, 192, 2, 0, 3>(wl, a, M, K, N, f, s, r, stream), true;
    // (wsl128x128, 2 stages, 2 CTAs per SM, was measured in the seventh session and dropped: slower
    // than wsl64x128 on every shape, 8B 120 against 69 µs, square n = 32768 2874 against 2309 µs.)
    return false;
  }
  // 64x64: 4 stages of 16 KB, three CTAs per SM. Why: under Nsight Compute the Triton peer (64x64
  // tiles, 6144 small CTAs, 47 % of warps active) beat ws64x192 (persistent, 2 CTAs per SM, 15 %)
  // with more L2 reads: more independent CTAs hide the epilogues and keep more loads in flight.
  if (t.bm == 64 && t.bn == 64) return launch_ws<T, 64, 64, 4, 0>(wl, a, M, K, N, f, s, r, stream), true;
  if (t.bm == 64 && t.bn == 128) return launch_ws<T, 64, 128, 4, 0>(wl, a, M, K, N, f, s, r, stream), true;
  if (t.bm == 64 && t.bn == 192) return launch_ws<T, 64, 192, 3, 0>(wl, a, M, K, N, f, s, r, stream), true;
  // 128x128: 6 stages of 32 KB, one CTA per SM (thirty-second session; 4 stages before). Why: by
  // count, the DeepSeek-V3 expert's ws64x128 (6944 steps of 24 KB, 25.4 µs in the thirtieth
  // session's call 6, ~21.5 µs after the graph replay) moves 171 MB from L2 at ~8 TB/s, the
  // measured L2 read ceiling; this tile reads each W box once per 128-row type (3472 steps of
  // 32 KB, 114 MB) but at 4 stages ran 26.8 µs, ~5 TB/s: with the consumers holding about two
  // stages, two were loading per SM, too few bytes in flight. At 6 stages four are (ptxas: 168
  // registers, no spills, as at 4). Not yet timed; the calibration picks it only where it is faster.
  // (set_ws128_two_per_sm, thirty-fourth session: 3 stages, two CTAs per SM, as the Triton peer runs
  // DeepSeek-V3 with all 256 tiles resident at once; see kernels.hpp. Only where every step's x rows
  // go by TMA (rows by formula; grouped widths, or a common width of whole 64-row steps), the
  // kernel's kTmaRowsOnly: elsewhere the 6-stage tile.)
  if (t.bm == 128 && t.bn == 128 && g_ws128_two_per_sm && f.c != 0 && a.lda % 8 == 0 &&
      (grouped_input_widths(s, K) || (s != 0 && s % 64 == 0)))
    return launch_ws<T, 128, 128, 3, 0, 2>(wl, a, M, K, N, f, s, r, stream), true;
  // set_ws_law_first: the kLawFirst instantiations (plain tiles, no slotted terms), where the list allows
  const bool law_first = law_first_launchable(wl, a) && !(g_ws_term_stride && wl.term_stride != 0);
  if (t.bm == 128 && t.bn == 128 && law_first)
    return launch_ws<T, 128, 128, 6, 0, 1, kStore, 1, false, false, false, true>(wl, a, M, K, N, f, s, r, stream), true;
  if (t.bm == 128 && t.bn == 128) return launch_ws<T, 128, 128, 6, 0>(wl, a, M, K, N, f, s, r, stream), true;
  // 128x64: 4 stages of 24 KB, two CTAs per SM (twenty-eighth session). Why: the
  // Qwen3-30B expert (s = 128, r = 48, M / q = 128) runs one item of 4 steps per CTA, and on wsl64x64
  // (3 stages, 4 CTAs per SM, the calibrated tile) its fourth step's copies wait until the consumers
  // free the first stage: a second dependent round trip in every CTA's one item. Here a CTA takes
  // a whole type (128 rows) of one group, all 4 steps in flight at once in the same shared memory
  // per SM (2 x 4 x 24 KB against 4 x 3 x 16 KB), 256 CTAs in one wave of 264 slots, half the
  // producers and W read from L2 once per type instead of twice. Timed (twenty-ninth session, call
  // 2, ablate suite, cyclic types): its skeleton 5.8 against wsl64x64's 6.1 us and its loads alone
  // 7.5 against 8.3, but whole 10.1 with per-thread stores against wsl64x64's 9.5 with TMA stores;
  // so the TMA-store epilogue can take 128-row tiles too (set_ws_tma_store_tall; one 128-row box
  // per 64 columns), on by default since the thirtieth session (whole 9.3-9.5 us on an H200).
  static_assert(2 * (wgs_smem_bytes<128, 64, 4, 0>() + 1024) <= 228 * 1024, "ws128x64: two CTAs per SM");
  if (t.bm == 128 && t.bn == 64 && law_first)
    return launch_ws<T, 128, 64, 4, 0, 2, kStore, 1, false, false, false, true>(wl, a, M, K, N, f, s, r, stream), true;
  if (t.bm == 128 && t.bn == 64) return launch_ws<T, 128, 64, 4, 0, 2>(wl, a, M, K, N, f, s, r, stream), true;
  return false;
}

// The gated FFN's gate/up on the warp-specialised kernel (wgs_gemm.cuh EPI kSiluMul), 64 × bn tiles
// (64: 3 stages of 24 KB, 3 CTAs per SM, or lean: 2 stages, 4 CTAs per SM; 128: 2 stages of 40 KB,
// 2 CTAs per SM). a: X, gate (B0), up (B1), H (C). False where no such tile is compiled (the caller
// keeps the mma.sync kernel).
template <typename T>
bool launch_gated_ws_typed(const DeviceBatch& b, GemmArgs a, uint32_t bn, bool lean, bool types_outer, cudaStream_t s) {
  const DevicePlan& p = b.plan();
  uint32_t sw = p.plan().input_widths.empty() ? 0 : p.plan().input_widths[0];
  for (uint32_t w : p.plan().input_widths) sw = w == sw ? sw : 0;  // the common input width (0: none)
  uint32_t rw = p.plan().output_widths.empty() ? 0 : p.plan().output_widths[0];
  for (uint32_t w : p.plan().output_widths) rw = w == rw ? rw : 0;  // and output width
  auto& impl = b.impl();
  const uint64_t M = b.rows(), K = p.K(), N = p.N();
  const ListKind kind = types_outer ? ListKind::forward_by_types : ListKind::forward;
  if (bn != 64 && bn != 128) return false;
  const WorkList& wl = impl.list(b, kind, 64, bn);
  if (bn == 64 && lean) return launch_ws<T, 64, 64, 2, 0, 4, kSiluMul>(wl, a, M, K, N, impl.formula, sw, rw, s), true;
  if (bn == 64 && g_ffn_pack_terms && packs_terms(sw, K, impl.formula, a))
    return launch_ws<T, 64, 64, 3, 0, 3, kSiluMul, 1, true>(wl, a, M, K, N, impl.formula, sw, rw, s), true;
  if (bn == 64) return launch_ws<T, 64, 64, 3, 0, 3, kSiluMul>(wl, a, M, K, N, impl.formula, sw, rw, s), true;
  return launch_ws<T, 64, 128, 2, 0, 2, kSiluMul>(wl, a, M, K, N, impl.formula, sw, rw, s), true;
}

// Both entry points for type T, in the translation unit that includes this once.
#define QALG_INSTANTIATE_FORWARD_WS(T)                                                                         \
  template bool launch_fused_ws<T>(const DevicePlan&, const WorkList&, GemmArgs, TileConfig, uint64_t, RowFormula, \
                                   cudaStream_t);                                                            \
  template bool launch_gated_ws_typed<T>(const DeviceBatch&, GemmArgs, uint32_t, bool, bool, cudaStream_t);
}  // namespace qalg::gpu::detail
