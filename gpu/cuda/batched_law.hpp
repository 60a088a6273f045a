#pragma once
// dX and dW of the complete-graph law as strided-batched GEMMs (cuBLAS), host-only so that CPU
// tests can run the descriptors through an emulator against the dense reference
// (tests/gpu/batched_law_test.cpp).
//
// The law (every type i: y_i = x_i W_ii, y_j = x_i W_ij + x_j W_jj for j ≠ i, all coefficients 1)
// has adjoints made of two regular families each:
//   dX: x̄_k = ȳ_k W_kkᵀ for k ≠ i, and x̄_i = Σ_j ȳ_j W_ijᵀ = ȳ · (W's block row i)ᵀ;
//   dW: W̄_ij = Σ_{rows of type i} x_iᵀ ȳ_j (i ≠ j), and W̄_jj = Σ_{all rows} x_jᵀ ȳ_j.
// With equal widths and the rows of each type in closed form (row t of type i at i·a + t·b,
// work_list.hpp RowFormula), each family is ONE strided-batched GEMM over q: the block-diagonal
// one over all rows (batch k), the block-row one over the rows of type i (batch i). The second of
// each pair overwrites what the first wrote wrongly (group i of type-i rows; the diagonal blocks),
// so each product is two launches and no accumulation. Why: measured on the H200 (eighth session,
// a probe of the four GEMMs), cuBLAS runs these in 12–14 µs for the Qwen3-30B expert where the
// work-list kernels took 21–22 µs, and in 26 µs against 37 / 58 for Qwen3-1.7B up.
#include <cstdint>
#include <limits>
#include <vector>

#include "qalg/gpu/kernel_plan.hpp"
#include "work_list.hpp"

namespace qalg::gpu::detail {

enum class Operand : uint8_t { X, W, dY, dX, dW };

// One cublasGemmStridedBatchedEx call in cuBLAS's column-major terms: for b < batch,
// C_b (m × n, ldc) = op(A_b) (m × k) · op(B_b) (k × n), β = 0, where X_b starts at element
// x_off + b · sx of its operand and op = transpose where ta / tb. A row-major matrix (rows × cols,
// ld) is the column-major (cols × rows, ld) one, so row-major products appear transposed.
struct StridedGemm {
  bool ta = false, tb = false;
  uint32_t m = 0, n = 0, k = 0, batch = 0;
  Operand a = Operand::X, b = Operand::X, c = Operand::X;
  uint64_t a_off = 0, lda = 0, sa = 0, b_off = 0, ldb = 0, sb = 0, c_off = 0, ldc = 0, sc = 0;
};

// True when every B(i, j) is exactly {i, j} (one term when i = j), each coefficient 1, and all
// input widths are equal and all output widths are equal.
inline bool diagonal_plus_row_law(const KernelPlan& p) {
  if (p.q == 0) return false;
  for (uint32_t g = 1; g < p.q; ++g)
    if (p.input_widths[g] != p.input_widths[0] || p.output_widths[g] != p.output_widths[0]) return false;
  if (p.input_widths[0] == 0 || p.output_widths[0] == 0) return false;
  for (uint32_t i = 0; i < p.q; ++i)
    for (uint32_t j = 0; j < p.q; ++j) {
      const auto& t = p.B(i, j);  // sorted by k
      const size_t want = i == j ? 1 : 2;
      if (t.size() != want) return false;
      const uint32_t lo = i < j ? i : j, hi = i < j ? j : i;
      if (t[0].input_group != lo || (want == 2 && t[1].input_group != hi)) return false;
      for (const PlanTerm& x : t)
        if (x.num != x.den || x.den == 0) return false;
    }
  return true;
}

// The GEMMs of dX (grad_x = true: dY (M × N) · Tᵀ → dX (M × K)) or dW (X, dY → dW (K × N)), in
// launch order; empty when the law, the widths or the rows' closed form do not allow it, or a
// dimension does not fit cuBLAS's 32-bit arguments.
inline std::vector<StridedGemm> batched_backward(const KernelPlan& p, const RowFormula& f, uint64_t M, bool grad_x) {
  if (!diagonal_plus_row_law(p) || f.c == 0 || uint64_t(f.c) * p.q != M) return {};
  const uint64_t q = p.q, s = p.input_widths[0], r = p.output_widths[0], K = s * q, N = r * q, c = f.c;
  const uint64_t a = f.a, b = c > 1 ? f.b : 1;  // one row per type: any row step will do
  constexpr uint64_t kInt = uint64_t(std::numeric_limits<int>::max());
  if (M > kInt || K > kInt || N > kInt || b * K > kInt || b * N > kInt) return {};
  using O = Operand;
  if (grad_x) {
    return {
        // x̄_k (all rows) = ȳ_k W_kkᵀ: Cᵀ = (W_kkᵀ)ᵀ-stored · ȳ_kᵀ, batch k
        StridedGemm{true, false, uint32_t(s), uint32_t(M), uint32_t(r), uint32_t(q), O::W, O::dY, O::dX,
                    0, N, s * N + r, 0, N, r, 0, K, s},
        // x̄_i (rows of type i) = ȳ · (block row i of W)ᵀ over all N columns, batch i
        StridedGemm{true, false, uint32_t(s), uint32_t(c), uint32_t(N), uint32_t(q), O::W, O::dY, O::dX,
                    0, N, s * N, 0, b * N, a * N, 0, b * K, a * K + s},
    };
  }
  return {
      // block row i of W̄ = x_iᵀ ȳ over the rows of type i, batch i
      StridedGemm{false, true, uint32_t(N), uint32_t(s), uint32_t(c), uint32_t(q), O::dY, O::X, O::dW,
                  0, b * N, a * N, 0, b * K, a * K + s, 0, N, s * N},
      // W̄_jj = x_jᵀ ȳ_j over all rows, batch j
      StridedGemm{false, true, uint32_t(r), uint32_t(s), uint32_t(M), uint32_t(q), O::dY, O::X, O::dW,
                  0, N, r, 0, K, s, 0, N, s * N + r},
  };
}

}  // namespace qalg::gpu::detail
