// The forward's warp-specialised launches for bf16 (launch_forward_ws.hpp says why apart), and
// paired_tile_ctas, which asks the runtime about two of these bf16 kernels.
#include <stdexcept>
#include <string>

#include "launch_forward_ws.cuh"

namespace qalg::gpu {
namespace detail {
QALG_INSTANTIATE_FORWARD_WS(__nv_bfloat16)
}  // namespace detail
using namespace detail;

uint32_t paired_tile_ctas(TileConfig t) {
  if (t.engine != TileEngine::wgmma_ws_pair || t.bm != 64 || (t.bn != 64 && t.bn != 128))
    throw std::invalid_argument("paired_tile_ctas: " + tile_name(t) + " is not a compiled paired tile (wsp64x64, wsp64x128)");
  if (t.bn == 64) {
    auto k = wgs_forward_kernel<__nv_bfloat16, 64, 64, 3, 0, 4, kStore, 2>;
    constexpr size_t smem = wgs_smem_bytes<64, 64, 3, 0>();
    resident_ctas(k, 160, smem);
    return 2 * max_clusters(k, 160, smem, 2);
  }
  auto k = wgs_forward_kernel<__nv_bfloat16, 64, 128, 3, 0, 3, kStore, 2>;
  constexpr size_t smem = wgs_smem_bytes<64, 128, 3, 0>();
  resident_ctas(k, 160, smem);
  return 2 * max_clusters(k, 160, smem, 2);
}
}  // namespace qalg::gpu
