#pragma once
// The forward's warp-specialised launches (wgs_gemm.cuh): declared here, defined in
// launch_forward_ws.cuh and compiled once per 16-bit type (launch_forward_ws_bf16.cu,
// launch_forward_ws_f16.cu). Why two translation units: these 21 kernel instantiations per type
// made launch_forward.cu the build's critical path (52 s of a 2-core build; ~87 s device builds
// waited on it), and the GPU machine's 16 cores compile the two halves side by side.
#include <atomic>
#include <cstdint>

#include "launch_common.cuh"

namespace qalg::gpu::detail {
// The kernels.hpp switches the warp-specialised launches read (defined in launch_forward.cu, set
// by its set_ws_* functions).
extern std::atomic<bool> g_ws_fence_every_step;  // wgs_gemm.cuh kFenceEveryStep
extern std::atomic<bool> g_pair_cluster_scope;  // wgs_gemm.cuh kPairClusterScope
extern std::atomic<bool> g_ws_tma_store;  // wgs_gemm.cuh kTmaStore (on: session 19, call 2)
extern std::atomic<bool> g_ws_tma_store_tall;  // ... for the 128-row tiles too (written: session 29; on: session 30)
extern std::atomic<bool> g_row_pairs_two_per_sm;  // wsm: 3 stages, two CTAs per SM instead of 6 and one (session 32)
extern std::atomic<bool> g_ws128_two_per_sm;  // ws128x128: 3 stages, two CTAs per SM instead of 6 and one (session 34)
extern std::atomic<bool> g_ws_trim_tail;  // wgs_gemm.cuh kTrimTail (session 20)
extern std::atomic<bool> g_ws_narrow_w;  // wgs_gemm.cuh kNarrowW (on: session 21, call 1)
extern std::atomic<uint32_t> g_ws_pack_terms;  // wgs_gemm.cuh PACK (session 24)
extern std::atomic<bool> g_ffn_pack_terms;  // the same for the gated FFN's gate/up (set_ffn_pack_terms)
extern std::atomic<bool> g_ws_term_stride;  // GemmArgs::term_stride (set_ws_term_stride, session 33)
extern std::atomic<bool> g_ws_exit_after_read;  // wgs_gemm.cuh kExitAfterRead (session 33)
extern std::atomic<uint32_t> g_ws_ablation;  // WsAblation bits (timing experiments only)
extern std::atomic<bool> g_ws_law_first;    // wgs_gemm.cuh kLawFirst (session 53)
extern std::atomic<uint64_t> g_ws_law_first_launches;  // launches that took it (ws_law_first_launches)
extern std::atomic<bool> g_ws_prime_first;  // wgs_gemm.cuh kPrimeFirst (session 37; on since 38)
extern std::atomic<bool> g_ws_prime_item;  // wgs_gemm.cuh kPrimeItem (session 42; with kPrimeFirst only)
extern std::atomic<unsigned long long*> g_ws_stamps;  // set_ws_stamps (QALG_WS_STAMPS builds only)

// The endpoint-fused forward of list wl on the warp-specialised tile t (engines wgmma_ws,
// _resident, _lean, _pair, _group_pairs, _row_pairs); false where no such tile is compiled.
// M: the batch's rows; f: the rows in closed form (c = 0: none). T: __nv_bfloat16 or __half.
template <typename T>
bool launch_fused_ws(const DevicePlan& p, const WorkList& wl, GemmArgs a, TileConfig t, uint64_t M, RowFormula f,
                     cudaStream_t stream);
// launch_gated_ws (launch_common.cuh) for one type.
template <typename T>
bool launch_gated_ws_typed(const DeviceBatch& b, GemmArgs a, uint32_t bn, bool lean, bool types_outer, cudaStream_t s);
}  // namespace qalg::gpu::detail
