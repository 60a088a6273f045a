// Dense reference from the table's structure constants (dense_reference.hpp).
#include "qalg/gpu/dense_reference.hpp"

#include <map>
#include <stdexcept>
#include <string>

#include "qalg/gpu/schedule.hpp"

namespace qalg::gpu {
namespace {

std::vector<Eigen::Index> prefix(const std::vector<uint32_t>& w, uint32_t q, const char* what) {
  if (w.size() != q)
    throw std::invalid_argument(std::string("dense reference: ") + what + " need q = " +
                                std::to_string(q) + " widths, got " + std::to_string(w.size()));
  std::vector<Eigen::Index> p{0};
  for (uint32_t x : w) {
    if (x == 0) throw std::invalid_argument(std::string("dense reference: ") + what + " has a 0");
    p.push_back(p.back() + Eigen::Index(x));
  }
  return p;
}

template <class M>
void require(const M& m, Eigen::Index rows, Eigen::Index cols, const char* name) {
  if (m.rows() != rows || m.cols() != cols)
    throw std::invalid_argument(std::string("dense reference: ") + name + " is " +
                                std::to_string(m.rows()) + "x" + std::to_string(m.cols()) +
                                ", expected " + std::to_string(rows) + "x" + std::to_string(cols));
}

std::vector<std::vector<Eigen::Index>> rows_of_each_type(const std::vector<uint32_t>& types, uint32_t q) {
  std::vector<std::vector<Eigen::Index>> rows(q);
  for (size_t p = 0; p < types.size(); ++p) rows[types[p]].push_back(Eigen::Index(p));
  return rows;
}

}  // namespace

DenseReference::DenseReference(const TableData& table, std::vector<uint32_t> input_widths,
                               std::vector<uint32_t> output_widths) {
  if (!table.slot_grid || table.slots.size() != table.dim)
    throw std::invalid_argument("dense reference: the table has no slot layout");
  q_ = *table.slot_grid;
  in_ = prefix(input_widths, q_, "input widths");
  out_ = prefix(output_widths, q_, "output widths");
  // Scan every entry: e·f -> g contributes to T_i block (k, j) when the slots read
  // (i,k)·(k,j) -> (i,j); everything else plays no part in the type-i row action.
  std::vector<std::map<std::pair<uint32_t, uint32_t>, double>> acc(q_);
  for (const TableEntry& e : table.entries) {
    auto [i, k] = table.slots[e.i];
    auto [k2, j] = table.slots[e.j];
    auto [i2, j2] = table.slots[e.k];
    if (k != k2 || i != i2 || j != j2) continue;
    acc[i][{k, j}] += double(e.num) / double(e.den);
  }
  blocks_.resize(q_);
  for (uint32_t i = 0; i < q_; ++i)
    for (auto& [kj, c] : acc[i])
      if (c != 0) blocks_[i].push_back({kj.first, kj.second, c});
}

Eigen::Matrix<uint8_t, Eigen::Dynamic, Eigen::Dynamic> DenseReference::block_pattern(uint32_t i) const {
  Eigen::Matrix<uint8_t, Eigen::Dynamic, Eigen::Dynamic> p =
      Eigen::Matrix<uint8_t, Eigen::Dynamic, Eigen::Dynamic>::Zero(q_, q_);
  for (const Block& b : blocks_.at(i)) p(b.k, b.j) = 1;
  return p;
}

template <class T>
RowMatrix<T> DenseReference::row_operator(uint32_t i, const RowMatrix<T>& W) const {
  require(W, K(), N(), "W");
  RowMatrix<T> Ti = RowMatrix<T>::Zero(K(), N());
  for (const Block& b : blocks_.at(i)) {
    Eigen::Index rows = in_[b.k + 1] - in_[b.k], cols = out_[b.j + 1] - out_[b.j];
    Ti.block(in_[b.k], out_[b.j], rows, cols) += T(b.c) * W.block(in_[b.k], out_[b.j], rows, cols);
  }
  return Ti;
}

template <class T>
RowMatrix<T> DenseReference::row_operator_adjoint(uint32_t i, const RowMatrix<T>& G) const {
  // <T_i(W), G> = Σ_blocks c <W_kj, G_kj>, so the adjoint scales and keeps the same blocks.
  return row_operator(i, G);
}

template <class T>
RowMatrix<T> DenseReference::forward(const RowMatrix<T>& X, const RowMatrix<T>& W,
                                     const std::vector<uint32_t>& row_types) const {
  require(X, X.rows(), K(), "X");
  validate_row_types(row_types, X.rows(), q_, "dense reference: row_types");
  RowMatrix<T> Y(X.rows(), N());
  const auto by_type = rows_of_each_type(row_types, q_);
  for (uint32_t i = 0; i < q_; ++i) {
    const auto& rows = by_type[i];
    if (rows.empty()) continue;
    RowMatrix<T> Xi = X(rows, Eigen::all);
    Y(rows, Eigen::all) = Xi * row_operator(i, W);
  }
  return Y;
}

template <class T>
RowMatrix<T> DenseReference::backward_input(const RowMatrix<T>& dY, const RowMatrix<T>& W,
                                            const std::vector<uint32_t>& row_types) const {
  require(dY, dY.rows(), N(), "dY");
  validate_row_types(row_types, dY.rows(), q_, "dense reference: row_types");
  RowMatrix<T> dX(dY.rows(), K());
  const auto by_type = rows_of_each_type(row_types, q_);
  for (uint32_t i = 0; i < q_; ++i) {
    const auto& rows = by_type[i];
    if (rows.empty()) continue;
    RowMatrix<T> dYi = dY(rows, Eigen::all);
    dX(rows, Eigen::all) = dYi * row_operator(i, W).transpose();
  }
  return dX;
}

template <class T>
RowMatrix<T> DenseReference::backward_weight(const RowMatrix<T>& X, const RowMatrix<T>& dY,
                                             const std::vector<uint32_t>& row_types) const {
  require(X, X.rows(), K(), "X");
  require(dY, X.rows(), N(), "dY");
  validate_row_types(row_types, X.rows(), q_, "dense reference: row_types");
  RowMatrix<T> dW = RowMatrix<T>::Zero(K(), N());
  const auto by_type = rows_of_each_type(row_types, q_);
  for (uint32_t i = 0; i < q_; ++i) {
    const auto& rows = by_type[i];
    if (rows.empty()) continue;
    RowMatrix<T> Xi = X(rows, Eigen::all), dYi = dY(rows, Eigen::all);
    RowMatrix<T> G = Xi.transpose() * dYi;  // (K, N): gradient of <X_i T_i(W), Ȳ_i> in T_i(W)
    dW += row_operator_adjoint(i, G);
  }
  return dW;
}

template <class T>
RowMatrix<T> DenseReference::square_product(const RowMatrix<T>& A, const RowMatrix<T>& B) const {
  require(A, K(), K(), "A");
  require(B, K(), N(), "B");
  RowMatrix<T> C(K(), N());
  for (uint32_t a = 0; a < q_; ++a) {
    Eigen::Index rows = in_[a + 1] - in_[a];
    C.middleRows(in_[a], rows) = A.middleRows(in_[a], rows) * row_operator(a, B);
  }
  return C;
}

template <class T>
RowMatrix<T> reference_gated_ffn(const DenseReference& up, const DenseReference& down,
                                 const RowMatrix<T>& X, const RowMatrix<T>& Wg,
                                 const RowMatrix<T>& Wu, const RowMatrix<T>& Wd,
                                 const std::vector<uint32_t>& row_types) {
  if (down.K() != up.N() || down.q() != up.q())
    throw std::invalid_argument("dense reference FFN: down input width must equal up output width");
  RowMatrix<T> gate = up.forward(X, Wg, row_types);
  RowMatrix<T> lin = up.forward(X, Wu, row_types);
  RowMatrix<T> H(gate.rows(), gate.cols());
  for (Eigen::Index r = 0; r < H.rows(); ++r)
    for (Eigen::Index c = 0; c < H.cols(); ++c) H(r, c) = silu(gate(r, c)) * lin(r, c);
  return down.forward(H, Wd, row_types);
}

#define QALG_INSTANTIATE(T)                                                                       \
  template RowMatrix<T> DenseReference::row_operator(uint32_t, const RowMatrix<T>&) const;        \
  template RowMatrix<T> DenseReference::row_operator_adjoint(uint32_t, const RowMatrix<T>&) const; \
  template RowMatrix<T> DenseReference::forward(const RowMatrix<T>&, const RowMatrix<T>&,         \
                                                const std::vector<uint32_t>&) const;              \
  template RowMatrix<T> DenseReference::backward_input(const RowMatrix<T>&, const RowMatrix<T>&,  \
                                                       const std::vector<uint32_t>&) const;       \
  template RowMatrix<T> DenseReference::backward_weight(const RowMatrix<T>&, const RowMatrix<T>&, \
                                                        const std::vector<uint32_t>&) const;      \
  template RowMatrix<T> DenseReference::square_product(const RowMatrix<T>&, const RowMatrix<T>&)  \
      const;                                                                                      \
  template RowMatrix<T> reference_gated_ffn(const DenseReference&, const DenseReference&,         \
                                            const RowMatrix<T>&, const RowMatrix<T>&,             \
                                            const RowMatrix<T>&, const RowMatrix<T>&,             \
                                            const std::vector<uint32_t>&);
QALG_INSTANTIATE(float)
QALG_INSTANTIATE(double)
#undef QALG_INSTANTIATE

}  // namespace qalg::gpu
