#pragma once
// dX's work list (SPEC §5), host-only so that CPU tests can run it through a list emulator against
// the dense reference (tests/gpu/grad_x_list_test.cpp). Output group k of a type-i row sums
// ȳ_j W_kjᵀ over the j with k ∈ B(i, j).
// Block-diagonal runs (opt-in, uniform widths s and r only): for the complete-graph law, every
// group k ≠ i of a type-i row is x̄_k = ȳ_k W_kkᵀ, one r-deep product. At r = 24 (Qwen3-30B expert,
// q = 32) that was 992 tiles of one 64-deep step each, 62 % zero fill, a CTA per 64 × 64 tile. A run
// of G consecutive such groups k1 .. k1 + G − 1 (equal coefficients) is one tile G·s wide whose one
// term reduces over ȳ's columns of the whole run (G·r deep) against W's rows of the run, with the
// flag `diagonal`: the kernel zero-fills element (kk, n) of W unless column n and reduction index kk
// lie in the same group, ⌊n / s⌋ = ⌊kk / r⌋ (absolute indices; in_off = k·s, out_off = k·r). So the
// cross products of the run read zeros, never W's off-diagonal blocks (which may hold NaN or Inf).
#include <cstdint>
#include <vector>

#include "qalg/gpu/kernel_plan.hpp"
#include "work_list.hpp"

namespace qalg::gpu::detail {

// Uniform widths (every input group s wide, every output group r wide), or {0, 0}.
inline BlockDiagonal uniform_widths(const KernelPlan& p) {
  if (p.input_widths.empty() || p.input_widths.size() != p.output_widths.size()) return {};
  for (uint32_t w : p.input_widths)
    if (w != p.input_widths[0] || w == 0) return {};
  for (uint32_t w : p.output_widths)
    if (w != p.output_widths[0] || w == 0) return {};
  return {p.input_widths[0], p.output_widths[0]};
}

// type_begin: q + 1 offsets of the types in the grouped row list; in_off / out_off: q + 1 column
// offsets of the input / output groups. runs: build block-diagonal runs where the plan allows them
// (uniform widths; the returned periods say whether any term is one), tiles of at most bn columns.
inline BlockDiagonal build_grad_x_list(const KernelPlan& p, const std::vector<uint32_t>& type_begin,
                                       const std::vector<uint64_t>& in_off, const std::vector<uint64_t>& out_off,
                                       uint32_t bm, uint32_t bn, bool runs, std::vector<WorkItem>& items,
                                       std::vector<Term>& terms) {
  const uint32_t q = p.q;
  const BlockDiagonal bd = runs ? uniform_widths(p) : BlockDiagonal{};
  bool used = false;
  // The coefficient c when group k of a type-i row is exactly c · ȳ_k W_kkᵀ (one term, j = k).
  auto diagonal_only = [&](uint32_t i, uint32_t k, float& c) {
    uint32_t n = 0;
    for (uint32_t j = 0; j < q; ++j)
      for (const PlanTerm& t : p.B(i, j))
        if (t.input_group == k) {
          if (j != k || ++n > 1) return false;
          c = static_cast<float>(t.coefficient());
        }
    return n == 1 && c != 0.0f;
  };
  auto add_items = [&](uint32_t i, uint64_t n_begin, uint32_t width, uint32_t t0) {
    const uint32_t cnt = type_begin[i + 1] - type_begin[i];
    const uint32_t tc = static_cast<uint32_t>(terms.size()) - t0;
    for (uint32_t n0 = 0; n0 < width; n0 += bn)
      for (uint32_t m0 = 0; m0 < cnt; m0 += bm)
        items.push_back(WorkItem{type_begin[i] + m0, std::min(bm, cnt - m0), uint32_t(n_begin + n0),
                                 std::min(bn, width - n0), t0, tc, 0.f, 0});
  };
  const uint32_t G = bd.s ? std::max<uint32_t>(1, bn / bd.s) : 1;  // groups per run tile
  for (uint32_t k = 0; k < q; ++k) {
    for (uint32_t i = 0; i < q; ++i) {
      if (type_begin[i + 1] == type_begin[i]) continue;
      float c = 0;
      if (G > 1 && diagonal_only(i, k, c)) {
        // k starts a run unless k − 1 would have taken it (then k was emitted there)
        float cp = 0;
        if (k > 0 && (k % G) != 0 && diagonal_only(i, k - 1, cp) && cp == c) continue;
        uint32_t g = 1;
        float cn = 0;
        while (k + g < q && (k + g) % G != 0 && diagonal_only(i, k + g, cn) && cn == c) ++g;
        if (g > 1) {
          const uint32_t t0 = static_cast<uint32_t>(terms.size());
          terms.push_back(Term{uint32_t(out_off[k]), g * bd.r, c, 1});
          add_items(i, in_off[k], g * bd.s, t0);
          used = true;
          continue;
        }
      }
      const uint32_t t0 = static_cast<uint32_t>(terms.size());
      for (uint32_t j = 0; j < q; ++j)
        for (const PlanTerm& t : p.B(i, j))
          if (t.input_group == k)
            terms.push_back(Term{uint32_t(out_off[j]), p.output_widths[j], static_cast<float>(t.coefficient()), 0});
      merge_adjacent_terms(terms, t0);  // consecutive groups j: one long reduction
      add_items(i, in_off[k], p.input_widths[k], t0);
    }
  }
  return used ? bd : BlockDiagonal{};
}

}  // namespace qalg::gpu::detail
