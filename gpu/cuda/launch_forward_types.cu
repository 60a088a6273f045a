// The endpoint-fused forward through wst_gemm.cuh (engine wgmma_ws_types, tiles "wt"): groups of
// bm/64 row types of one (output group, column tile) per CTA. A file of its own so that its
// instantiations compile in parallel with launch_forward.cu.
#include <algorithm>
#include <type_traits>

#include "launch_common.cuh"
#include "launch_forward_types.hpp"
#include "tensor_map.hpp"
#include "wst_gemm.cuh"

namespace qalg::gpu::detail {
namespace {

template <typename T, int G, int BN, int STAGES, int MINB = 1>
void launch_wt(const WorkList& wl, GemmArgs a, uint64_t K, uint64_t N, cudaStream_t s) {
  const uint32_t groups = wl.count;
  if (groups == 0) return;
  auto kernel = wst_forward_kernel<T, G, BN, STAGES, MINB>;
  constexpr int threads = G * 128 + 32;
  constexpr size_t smem = wst_smem_bytes<G, BN, STAGES>();
  static const uint32_t resident = resident_ctas(kernel, threads, smem);
  const DType dt = std::is_same_v<T, __nv_bfloat16> ? DType::bf16 : DType::f16;
  const CUtensorMap m64 = tensor_map_2d(a.B0, dt, K, N, 64, 64), m8 = tensor_map_2d(a.B0, dt, K, N, 8, 64);
  kernel<<<std::min(groups, resident), threads, smem, s>>>(with_list(a, wl), groups, uint32_t(K), m64, m8);
  check_cuda(cudaGetLastError(), "wst_forward_kernel launch");
}

template <typename T>
bool launch(const WorkList& wl, GemmArgs a, TileConfig t, uint64_t K, uint64_t N, cudaStream_t s) {
  // Stages: 128x128 keeps two CTAs per SM (3 × 32 KB); the wider tiles run one CTA per SM.
  if (t.bm == 128 && t.bn == 128) return launch_wt<T, 2, 128, 3, 2>(wl, a, K, N, s), true;
  if (t.bm == 128 && t.bn == 192) return launch_wt<T, 2, 192, 4>(wl, a, K, N, s), true;
  if (t.bm == 128 && t.bn == 256) return launch_wt<T, 2, 256, 4>(wl, a, K, N, s), true;
  if (t.bm == 256 && t.bn == 128) return launch_wt<T, 4, 128, 4>(wl, a, K, N, s), true;
  return false;
}

}  // namespace

const std::vector<TileConfig>& compiled_type_group_tiles() {
  static const std::vector<TileConfig> tiles = {{128, 128, 9, TileEngine::wgmma_ws_types},
                                                {128, 192, 9, TileEngine::wgmma_ws_types},
                                                {128, 256, 9, TileEngine::wgmma_ws_types},
                                                {256, 128, 17, TileEngine::wgmma_ws_types}};
  return tiles;
}

bool launch_forward_types(DType dt, const WorkList& wl, GemmArgs a, TileConfig t, uint64_t K, uint64_t N,
                          cudaStream_t s) {
  if (dt == DType::bf16) return launch<__nv_bfloat16>(wl, a, t, K, N, s);
  if (dt == DType::f16) return launch<__half>(wl, a, t, K, N, s);
  return false;
}

}  // namespace qalg::gpu::detail
