#pragma once
// Row-major dense matrices, the layout of X (M×K), the canonical weight bank W (K×N) and Y.
#include <cmath>

#include <Eigen/Dense>

namespace qalg::gpu {

template <class T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// SiLU(z) = z · sigmoid(z), the gate non-linearity of the gated FFN.
template <class T>
T silu(T z) {
  return z / (T(1) + std::exp(-z));
}

}  // namespace qalg::gpu
