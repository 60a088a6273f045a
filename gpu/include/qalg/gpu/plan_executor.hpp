#pragma once
// CPU executor of a KernelPlan (Eigen; T = float or double). Reads ONLY the plan, so that
// comparing it with dense_reference.hpp (which reads only the table) tests the lowering.
// Rows of type i: y_j = Σ_{k∈B(i,j)} c · x_k W_kj (SPEC §4); backward per SPEC §5.
// Every function validates shapes and row types first (std::invalid_argument) and, when
// `macs` is given, adds the multiply-accumulates it performed (for the SPEC §4 cost checks).
#include <cstdint>
#include <vector>

#include "qalg/gpu/kernel_plan.hpp"
#include "qalg/gpu/row_matrix.hpp"

namespace qalg::gpu {

// Y (M×N) from X (M×K), W (K×N), one type < q per row.
template <class T>
RowMatrix<T> plan_forward(const KernelPlan& plan, const RowMatrix<T>& X, const RowMatrix<T>& W,
                          const std::vector<uint32_t>& row_types, uint64_t* macs = nullptr);

// dX (M×K) from dY (M×N): x̄_k += Σ_{j : k∈B(i,j)} c · ȳ_j W_kjᵀ.
template <class T>
RowMatrix<T> plan_backward_input(const KernelPlan& plan, const RowMatrix<T>& dY,
                                 const RowMatrix<T>& W, const std::vector<uint32_t>& row_types,
                                 uint64_t* macs = nullptr);

// dW (K×N), summed over rows: W̄_kj += Σ_i Σ_{rows of type i, k∈B(i,j)} c · x_kᵀ ȳ_j.
template <class T>
RowMatrix<T> plan_backward_weight(const KernelPlan& plan, const RowMatrix<T>& X,
                                  const RowMatrix<T>& dY, const std::vector<uint32_t>& row_types,
                                  uint64_t* macs = nullptr);

// Block-algebra product A ⋆ B: A is K×K (row and column groups s), B is K×N (groups s × r),
// (A⋆B)_{ad} = Σ_{b∈B(a,d)} c · A_ab B_bd. With s = r = b·1 this is the n×n square product.
template <class T>
RowMatrix<T> plan_square_product(const KernelPlan& plan, const RowMatrix<T>& A,
                                 const RowMatrix<T>& B, uint64_t* macs = nullptr);

// Gated FFN (SiLU(X Wg) ⊙ (X Wu)) Wd with all three projections algebraic: Wg, Wu follow `up`
// (D→F), Wd follows `down` (F→D'), whose input widths must equal up's output widths.
template <class T>
RowMatrix<T> plan_gated_ffn(const KernelPlan& up, const KernelPlan& down, const RowMatrix<T>& X,
                            const RowMatrix<T>& Wg, const RowMatrix<T>& Wu, const RowMatrix<T>& Wd,
                            const std::vector<uint32_t>& row_types, uint64_t* macs = nullptr);

}  // namespace qalg::gpu
