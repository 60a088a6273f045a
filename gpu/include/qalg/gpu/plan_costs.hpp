#pragma once
// MAC counts read from a plan (SPEC §4). C_i = Σ_j Σ_{k∈B(i,j)} s_k r_j is KernelPlan::macs_per_row.
#include <cstdint>
#include <vector>

#include "qalg/gpu/kernel_plan.hpp"

namespace qalg::gpu {

// Σ over rows of C_{τ(p)}: the forward MACs of a projection under a given schedule.
uint64_t forward_macs(const KernelPlan& plan, const std::vector<uint32_t>& row_types);
// Σ_i C_i / (q K N): the fraction of dense MACs when every type is equally frequent (ρ_q).
double balanced_density(const KernelPlan& plan);
// A ⋆ B with A's row group a of type a: Σ_a s_a C_a; (2q² − q) b³ for Q_q with widths b.
uint64_t square_product_macs(const KernelPlan& plan);

}  // namespace qalg::gpu
