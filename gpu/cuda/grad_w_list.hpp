#pragma once
// dW's work list (SPEC §5), host-only so that CPU tests can run it through a list emulator against
// the dense reference (tests/gpu/grad_w_list_test.cpp). Block (k, j) of W̄ sums x_kᵀ ȳ_j over the
// rows of every type i with k ∈ B(i, j). Column runs: consecutive output groups j whose term lists
// are equal are one column range of W̄ (the groups are adjacent columns, and B(kk, n) = ȳ[row][n]
// is read per column), tiled by bn as a whole. Why: for the complete-graph law every off-diagonal
// block (k, j ≠ k) of block row k has the same terms (the rows of type k), so at r = 24 (Qwen3-30B
// expert, q = 32) 32 tiles per k that were 37 % used become ~13 full ones.
#include <cstdint>
#include <vector>

#include "qalg/gpu/kernel_plan.hpp"
#include "work_list.hpp"

namespace qalg::gpu::detail {

inline bool same_terms(const std::vector<Term>& a, const std::vector<Term>& b) {
  if (a.size() != b.size()) return false;
  for (size_t t = 0; t < a.size(); ++t)
    if (a[t].a != b[t].a || a[t].len != b[t].len || a[t].coef != b[t].coef || a[t].diagonal != b[t].diagonal)
      return false;
  return true;
}

// type_begin: q + 1 offsets of the types in the grouped row list; in_off / out_off: q + 1 column
// offsets of the input / output groups (K = in_off[q], N = out_off[q]).
inline void build_grad_w_list(const KernelPlan& p, const std::vector<uint32_t>& type_begin,
                              const std::vector<uint64_t>& in_off, const std::vector<uint64_t>& out_off, uint32_t bm,
                              uint32_t bn, std::vector<WorkItem>& items, std::vector<Term>& terms) {
  const uint32_t q = p.q;
  std::vector<std::vector<Term>> per(q);
  for (uint32_t k = 0; k < q; ++k) {
    for (uint32_t j = 0; j < q; ++j) {
      per[j].clear();
      for (uint32_t i = 0; i < q; ++i) {
        const uint32_t cnt = type_begin[i + 1] - type_begin[i];
        if (cnt == 0) continue;
        for (const PlanTerm& t : p.B(i, j))
          if (t.input_group == k) per[j].push_back(Term{type_begin[i], cnt, static_cast<float>(t.coefficient()), 0});
      }
      merge_adjacent_terms(per[j], 0);  // W̄_jj: the types' rows are one range of the row list
    }
    for (uint32_t j = 0; j < q;) {
      uint32_t end = j + 1;
      while (end < q && same_terms(per[end], per[j])) ++end;
      const uint32_t width = static_cast<uint32_t>(out_off[end] - out_off[j]);
      const uint32_t t0 = static_cast<uint32_t>(terms.size());
      terms.insert(terms.end(), per[j].begin(), per[j].end());
      const uint32_t tc = static_cast<uint32_t>(per[j].size());
      for (uint32_t m0 = 0; m0 < p.input_widths[k]; m0 += bm)
        for (uint32_t n0 = 0; n0 < width; n0 += bn)
          items.push_back(WorkItem{uint32_t(in_off[k] + m0), std::min(bm, p.input_widths[k] - m0),
                                   uint32_t(out_off[j] + n0), std::min(bn, width - n0), t0, tc, 0.f, 0});
      j = end;
    }
  }
}

}  // namespace qalg::gpu::detail
