#pragma once
// Lowering (SPEC §4): a slot-compatible table becomes a KernelPlan. For row type i and output
// group j, B(i, j) collects the input groups k with c_{(i,k),(k,j)}^{(i,j)} != 0.
#include <cstdint>
#include <string>
#include <vector>

#include "qalg/gpu/kernel_plan.hpp"
#include "qalg/gpu/table_data.hpp"

namespace qalg::gpu {

// Throws std::invalid_argument unless the table has a slot layout and is slot-compatible:
// at most one basis element per slot, and every nonzero product of slot (a,b) with slot (b',d)
// has b = b' and lands in slot (a,d). The message names the condition and the basis elements.
void check_slot_compatible(const TableData& t);

// Input widths s (K = Σ s) and output widths r (N = Σ r), each of length q and nonzero.
// Rejects tables over GF(p): the kernels compute in floating point over the reals.
KernelPlan lower_table(const TableData& t, const std::vector<uint32_t>& input_widths,
                       const std::vector<uint32_t>& output_widths);

// "64,32,32,64" (one width per group), "64x4" (a width repeated), mixtures such as "64x2,32x2",
// or a single number meaning that width for all q groups. `what` names the option in errors.
std::vector<uint32_t> parse_widths(const std::string& text, uint32_t q, const std::string& what);

}  // namespace qalg::gpu
