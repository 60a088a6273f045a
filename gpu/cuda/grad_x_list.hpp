#pragma once
// dX's work list (SPEC §5), host-only so that CPU tests can run it through a list emulator against
// the dense reference (tests/gpu/grad_x_list_test.cpp). Output group k of a type-i row sums
// ȳ_j W_kjᵀ over the j with k ∈ B(i, j); one item per (k, column tile, type, row tile).
// Tried and dropped (sixth session, H200): block-diagonal runs, the groups k ≠ i whose x̄_k is one
// product ȳ_k W_kkᵀ sharing 128-column tiles with W's off-diagonal blocks zero-filled. Correct
// (conformance and this list's emulator), but dX got slower on every shape measured: Qwen3-30B
// expert up 24.9 → 34.4 µs, down 25.2 → 52.3, Qwen3-1.7B up 43.9 → 62.8, the rest unchanged.
#include <cstdint>
#include <vector>

#include "qalg/gpu/kernel_plan.hpp"
#include "work_list.hpp"

namespace qalg::gpu::detail {

// type_begin: q + 1 offsets of the types in the grouped row list; in_off / out_off: q + 1 column
// offsets of the input / output groups.
inline void build_grad_x_list(const KernelPlan& p, const std::vector<uint32_t>& type_begin,
                              const std::vector<uint64_t>& in_off, const std::vector<uint64_t>& out_off, uint32_t bm,
                              uint32_t bn, std::vector<WorkItem>& items, std::vector<Term>& terms) {
  const uint32_t q = p.q;
  for (uint32_t k = 0; k < q; ++k)
    for (uint32_t n0 = 0; n0 < p.input_widths[k]; n0 += bn)
      for (uint32_t i = 0; i < q; ++i) {
        const uint32_t cnt = type_begin[i + 1] - type_begin[i];
        if (cnt == 0) continue;
        const uint32_t t0 = static_cast<uint32_t>(terms.size());
        for (uint32_t j = 0; j < q; ++j)
          for (const PlanTerm& t : p.B(i, j))
            if (t.input_group == k)
              terms.push_back(Term{uint32_t(out_off[j]), p.output_widths[j], static_cast<float>(t.coefficient()), 0});
        merge_adjacent_terms(terms, t0);  // consecutive groups j: one long reduction
        const uint32_t tc = static_cast<uint32_t>(terms.size()) - t0;
        for (uint32_t m0 = 0; m0 < cnt; m0 += bm)
          items.push_back(WorkItem{type_begin[i] + m0, std::min(bm, cnt - m0), uint32_t(in_off[k] + n0),
                                   std::min(bn, p.input_widths[k] - n0), t0, tc, 0.f, 0});
      }
}

}  // namespace qalg::gpu::detail
