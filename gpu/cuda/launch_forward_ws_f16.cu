// The forward's warp-specialised launches for fp16 (launch_forward_ws.hpp says why apart).
#include "launch_forward_ws.cuh"

namespace qalg::gpu::detail {
QALG_INSTANTIATE_FORWARD_WS(__half)
}  // namespace qalg::gpu::detail
