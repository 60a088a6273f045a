#pragma once
// launch_forward_types.cu: the forward over groups of row types (wst_gemm.cuh), for launch_forward.cu.
#include <vector>

#include "device_impl.hpp"

namespace qalg::gpu::detail {

// The compiled tiles: bm = 64 · (row types per CTA), warps = bm/16 + 1.
const std::vector<TileConfig>& compiled_type_group_tiles();
// Launches the grouped list (ListKind::forward_groups of bm/64 items per group) for bf16/fp16;
// false when (dt, t) is not compiled.
bool launch_forward_types(DType dt, const WorkList& wl, GemmArgs a, TileConfig t, uint64_t K, uint64_t N,
                          cudaStream_t s);

}  // namespace qalg::gpu::detail
