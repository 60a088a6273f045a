#pragma once
// Independent dense reference (ARCHITECTURE "independence of references"): it reads the TABLE,
// never a KernelPlan. For row type i it materialises T_i(W) ∈ F^{K×N}, whose block (k, j) is
// the sum of c_{e,f}^g W_kj over table entries with slot(e) = (i,k), slot(f) = (k,j),
// slot(g) = (i,j), and then runs ordinary dense GEMMs. Non-finite values: a NaN/Inf in W
// reaches exactly the outputs whose blocks use it, as in the plan executor; a NaN/Inf in x_k
// reaches every output column here (stored zero blocks, 0·NaN = NaN) but only the columns j with
// k ∈ B(i,j) in the executor and kernels, which treat absent blocks as structural zeros.
// block_pattern(i) is that structure, so tests can state the rule exactly.
#include <cstdint>
#include <vector>

#include "qalg/gpu/row_matrix.hpp"
#include "qalg/gpu/table_data.hpp"

namespace qalg::gpu {

class DenseReference {
 public:
  // Needs the table's slot layout; widths of length q, nonzero (std::invalid_argument).
  DenseReference(const TableData& table, std::vector<uint32_t> input_widths,
                 std::vector<uint32_t> output_widths);

  uint32_t q() const { return q_; }
  Eigen::Index K() const { return in_.back(); }
  Eigen::Index N() const { return out_.back(); }

  // T_i(W) (K×N) and the adjoint of W ↦ T_i(W) applied to G (K×N).
  template <class T>
  RowMatrix<T> row_operator(uint32_t i, const RowMatrix<T>& W) const;
  template <class T>
  RowMatrix<T> row_operator_adjoint(uint32_t i, const RowMatrix<T>& G) const;
  // Which blocks (k, j) of T_i are structurally nonzero (q×q, 1 = present).
  Eigen::Matrix<uint8_t, Eigen::Dynamic, Eigen::Dynamic> block_pattern(uint32_t i) const;

  template <class T>
  RowMatrix<T> forward(const RowMatrix<T>& X, const RowMatrix<T>& W,
                       const std::vector<uint32_t>& row_types) const;
  // x̄ = ȳ T_i(W)ᵀ per row.
  template <class T>
  RowMatrix<T> backward_input(const RowMatrix<T>& dY, const RowMatrix<T>& W,
                              const std::vector<uint32_t>& row_types) const;
  // W̄ = Σ_i adjoint_i(X_iᵀ Ȳ_i), X_i, Ȳ_i the rows of type i.
  template <class T>
  RowMatrix<T> backward_weight(const RowMatrix<T>& X, const RowMatrix<T>& dY,
                               const std::vector<uint32_t>& row_types) const;
  // A ⋆ B: the rows of A's group a are rows of type a, so (A⋆B)[group a] = A[group a] T_a(B).
  template <class T>
  RowMatrix<T> square_product(const RowMatrix<T>& A, const RowMatrix<T>& B) const;

 private:
  struct Block {
    uint32_t k, j;
    double c;
  };
  uint32_t q_;
  std::vector<Eigen::Index> in_, out_;     // prefix sums of the widths
  std::vector<std::vector<Block>> blocks_;  // blocks_[i]: the nonzero blocks of T_i
};

// (SiLU(X Wg) ⊙ (X Wu)) Wd with dense GEMMs on T_i(Wg), T_i(Wu) (`up`) and T_i(Wd) (`down`).
template <class T>
RowMatrix<T> reference_gated_ffn(const DenseReference& up, const DenseReference& down,
                                 const RowMatrix<T>& X, const RowMatrix<T>& Wg,
                                 const RowMatrix<T>& Wu, const RowMatrix<T>& Wd,
                                 const std::vector<uint32_t>& row_types);

}  // namespace qalg::gpu
