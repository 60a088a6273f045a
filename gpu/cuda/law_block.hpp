#pragma once
// The small-block forward of the complete-graph law (law_block.cu).
#include "device_impl.hpp"
#include "qalg/gpu/kernels.hpp"
#include "work_list.hpp"

namespace qalg::gpu::detail {

// Launches the forward (matrices = 1: a.B0, kStore) or the gated FFN's gate and up (matrices = 2:
// a.B0, a.B1, SiLU(gate)·up) of batch b with law_block.cu's kernel and returns true, where
// set_law_blocks is on and the batch allows it: 16-bit types, the complete-graph law with equal
// widths s, r <= 64 (multiples of 8), rows in closed form with q | M, leading dimensions multiples
// of 8 and 16-byte aligned matrices. Otherwise launches nothing and returns false.
bool launch_law_block(const DeviceBatch& b, GemmArgs a, int matrices, DType dt, cudaStream_t stream);

}  // namespace qalg::gpu::detail
