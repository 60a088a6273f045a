// CPU executor of a KernelPlan (plan_executor.hpp). Rows are gathered by type so that each
// term of B(i, j) is one block GEMM over all rows of type i.
#include "qalg/gpu/plan_executor.hpp"

#include <stdexcept>
#include <string>

#include "qalg/gpu/schedule.hpp"

namespace qalg::gpu {
namespace {

struct Offsets {
  std::vector<Eigen::Index> in, out;  // prefix sums of s and r
};

Offsets offsets_of(const KernelPlan& p) {
  Offsets o{{0}, {0}};
  for (uint32_t g = 0; g < p.q; ++g) {
    o.in.push_back(o.in.back() + Eigen::Index(p.input_widths[g]));
    o.out.push_back(o.out.back() + Eigen::Index(p.output_widths[g]));
  }
  return o;
}

void require_plan(const KernelPlan& p, const char* what) {
  if (p.q == 0 || p.input_widths.size() != p.q || p.output_widths.size() != p.q ||
      p.terms.size() != size_t(p.q) * p.q)
    throw std::invalid_argument(std::string(what) + ": malformed plan (q, widths and terms disagree)");
}

template <class M>
void require_shape(const M& m, uint64_t rows, uint64_t cols, const char* what, const char* name) {
  if (uint64_t(m.rows()) != rows || uint64_t(m.cols()) != cols)
    throw std::invalid_argument(std::string(what) + ": " + name + " is " + std::to_string(m.rows()) +
                                "x" + std::to_string(m.cols()) + ", the plan needs " +
                                std::to_string(rows) + "x" + std::to_string(cols));
}

// rows_by_type[i] = the row indices of type i, in order.
std::vector<std::vector<Eigen::Index>> rows_by_type(const std::vector<uint32_t>& types, uint32_t q) {
  std::vector<std::vector<Eigen::Index>> rows(q);
  for (size_t p = 0; p < types.size(); ++p) rows[types[p]].push_back(Eigen::Index(p));
  return rows;
}

template <class T>
T coefficient_as(const PlanTerm& t) {
  return T(double(t.num) / double(t.den));
}

}  // namespace

template <class T>
RowMatrix<T> plan_forward(const KernelPlan& plan, const RowMatrix<T>& X, const RowMatrix<T>& W,
                          const std::vector<uint32_t>& row_types, uint64_t* macs) {
  require_plan(plan, "plan_forward");
  require_shape(X, X.rows(), plan.K(), "plan_forward", "X");
  require_shape(W, plan.K(), plan.N(), "plan_forward", "W");
  validate_row_types(row_types, X.rows(), plan.q, "plan_forward: row_types");
  const Offsets o = offsets_of(plan);
  RowMatrix<T> Y = RowMatrix<T>::Zero(X.rows(), Eigen::Index(plan.N()));
  auto rows = rows_by_type(row_types, plan.q);
  for (uint32_t i = 0; i < plan.q; ++i) {
    if (rows[i].empty()) continue;
    RowMatrix<T> Xi = X(rows[i], Eigen::all);  // (m_i, K)
    RowMatrix<T> Yi = RowMatrix<T>::Zero(Xi.rows(), Y.cols());  // (m_i, N)
    for (uint32_t j = 0; j < plan.q; ++j)
      for (const PlanTerm& t : plan.B(i, j)) {
        const uint32_t k = t.input_group;
        auto xk = Xi.middleCols(o.in[k], plan.input_widths[k]);                          // (m_i, s_k)
        auto Wkj = W.block(o.in[k], o.out[j], plan.input_widths[k], plan.output_widths[j]);  // (s_k, r_j)
        Yi.middleCols(o.out[j], plan.output_widths[j]).noalias() += coefficient_as<T>(t) * (xk * Wkj);
        if (macs) *macs += uint64_t(Xi.rows()) * plan.input_widths[k] * plan.output_widths[j];
      }
    Y(rows[i], Eigen::all) = Yi;
  }
  return Y;
}

template <class T>
RowMatrix<T> plan_backward_input(const KernelPlan& plan, const RowMatrix<T>& dY,
                                 const RowMatrix<T>& W, const std::vector<uint32_t>& row_types,
                                 uint64_t* macs) {
  require_plan(plan, "plan_backward_input");
  require_shape(dY, dY.rows(), plan.N(), "plan_backward_input", "dY");
  require_shape(W, plan.K(), plan.N(), "plan_backward_input", "W");
  validate_row_types(row_types, dY.rows(), plan.q, "plan_backward_input: row_types");
  const Offsets o = offsets_of(plan);
  RowMatrix<T> dX = RowMatrix<T>::Zero(dY.rows(), Eigen::Index(plan.K()));
  auto rows = rows_by_type(row_types, plan.q);
  for (uint32_t i = 0; i < plan.q; ++i) {
    if (rows[i].empty()) continue;
    RowMatrix<T> dYi = dY(rows[i], Eigen::all);                    // (m_i, N)
    RowMatrix<T> dXi = RowMatrix<T>::Zero(dYi.rows(), dX.cols());  // (m_i, K)
    for (uint32_t j = 0; j < plan.q; ++j)
      for (const PlanTerm& t : plan.B(i, j)) {
        const uint32_t k = t.input_group;
        auto dyj = dYi.middleCols(o.out[j], plan.output_widths[j]);                      // (m_i, r_j)
        auto Wkj = W.block(o.in[k], o.out[j], plan.input_widths[k], plan.output_widths[j]);  // (s_k, r_j)
        dXi.middleCols(o.in[k], plan.input_widths[k]).noalias() +=
            coefficient_as<T>(t) * (dyj * Wkj.transpose());
        if (macs) *macs += uint64_t(dYi.rows()) * plan.input_widths[k] * plan.output_widths[j];
      }
    dX(rows[i], Eigen::all) = dXi;
  }
  return dX;
}

template <class T>
RowMatrix<T> plan_backward_weight(const KernelPlan& plan, const RowMatrix<T>& X,
                                  const RowMatrix<T>& dY, const std::vector<uint32_t>& row_types,
                                  uint64_t* macs) {
  require_plan(plan, "plan_backward_weight");
  require_shape(X, X.rows(), plan.K(), "plan_backward_weight", "X");
  require_shape(dY, X.rows(), plan.N(), "plan_backward_weight", "dY");
  validate_row_types(row_types, X.rows(), plan.q, "plan_backward_weight: row_types");
  const Offsets o = offsets_of(plan);
  RowMatrix<T> dW = RowMatrix<T>::Zero(Eigen::Index(plan.K()), Eigen::Index(plan.N()));
  auto rows = rows_by_type(row_types, plan.q);
  for (uint32_t i = 0; i < plan.q; ++i) {
    if (rows[i].empty()) continue;
    RowMatrix<T> Xi = X(rows[i], Eigen::all);    // (m_i, K)
    RowMatrix<T> dYi = dY(rows[i], Eigen::all);  // (m_i, N)
    for (uint32_t j = 0; j < plan.q; ++j)
      for (const PlanTerm& t : plan.B(i, j)) {
        const uint32_t k = t.input_group;
        auto xk = Xi.middleCols(o.in[k], plan.input_widths[k]);     // (m_i, s_k)
        auto dyj = dYi.middleCols(o.out[j], plan.output_widths[j]);  // (m_i, r_j)
        dW.block(o.in[k], o.out[j], plan.input_widths[k], plan.output_widths[j]).noalias() +=
            coefficient_as<T>(t) * (xk.transpose() * dyj);
        if (macs) *macs += uint64_t(Xi.rows()) * plan.input_widths[k] * plan.output_widths[j];
      }
  }
  return dW;
}

template <class T>
RowMatrix<T> plan_square_product(const KernelPlan& plan, const RowMatrix<T>& A,
                                 const RowMatrix<T>& B, uint64_t* macs) {
  require_plan(plan, "plan_square_product");
  require_shape(A, plan.K(), plan.K(), "plan_square_product", "A");
  require_shape(B, plan.K(), plan.N(), "plan_square_product", "B");
  const Offsets o = offsets_of(plan);
  RowMatrix<T> C = RowMatrix<T>::Zero(A.rows(), B.cols());
  for (uint32_t a = 0; a < plan.q; ++a)
    for (uint32_t d = 0; d < plan.q; ++d)
      for (const PlanTerm& t : plan.B(a, d)) {
        const uint32_t b = t.input_group;
        auto Aab = A.block(o.in[a], o.in[b], plan.input_widths[a], plan.input_widths[b]);   // (s_a, s_b)
        auto Bbd = B.block(o.in[b], o.out[d], plan.input_widths[b], plan.output_widths[d]);  // (s_b, r_d)
        C.block(o.in[a], o.out[d], plan.input_widths[a], plan.output_widths[d]).noalias() +=
            coefficient_as<T>(t) * (Aab * Bbd);
        if (macs)
          *macs += uint64_t(plan.input_widths[a]) * plan.input_widths[b] * plan.output_widths[d];
      }
  return C;
}

template <class T>
RowMatrix<T> plan_gated_ffn(const KernelPlan& up, const KernelPlan& down, const RowMatrix<T>& X,
                            const RowMatrix<T>& Wg, const RowMatrix<T>& Wu, const RowMatrix<T>& Wd,
                            const std::vector<uint32_t>& row_types, uint64_t* macs) {
  require_plan(up, "plan_gated_ffn (up)");
  require_plan(down, "plan_gated_ffn (down)");
  if (down.q != up.q || down.input_widths != up.output_widths)
    throw std::invalid_argument("plan_gated_ffn: the down plan's input widths must equal the up "
                                "plan's output widths (same q)");
  if (down.table_hash != up.table_hash)
    throw std::invalid_argument("plan_gated_ffn: up and down plans come from different tables");
  RowMatrix<T> gate = plan_forward(up, X, Wg, row_types, macs);  // (M, F)
  RowMatrix<T> lin = plan_forward(up, X, Wu, row_types, macs);   // (M, F)
  RowMatrix<T> H = gate.unaryExpr([](T z) { return silu(z); }).cwiseProduct(lin);
  return plan_forward(down, H, Wd, row_types, macs);
}

#define QALG_INSTANTIATE(T)                                                                        \
  template RowMatrix<T> plan_forward(const KernelPlan&, const RowMatrix<T>&, const RowMatrix<T>&,  \
                                     const std::vector<uint32_t>&, uint64_t*);                     \
  template RowMatrix<T> plan_backward_input(const KernelPlan&, const RowMatrix<T>&,                \
                                            const RowMatrix<T>&, const std::vector<uint32_t>&,     \
                                            uint64_t*);                                            \
  template RowMatrix<T> plan_backward_weight(const KernelPlan&, const RowMatrix<T>&,               \
                                             const RowMatrix<T>&, const std::vector<uint32_t>&,    \
                                             uint64_t*);                                           \
  template RowMatrix<T> plan_square_product(const KernelPlan&, const RowMatrix<T>&,                \
                                            const RowMatrix<T>&, uint64_t*);                       \
  template RowMatrix<T> plan_gated_ffn(const KernelPlan&, const KernelPlan&, const RowMatrix<T>&,  \
                                       const RowMatrix<T>&, const RowMatrix<T>&,                   \
                                       const RowMatrix<T>&, const std::vector<uint32_t>&, uint64_t*);
QALG_INSTANTIATE(float)
QALG_INSTANTIATE(double)
#undef QALG_INSTANTIATE

}  // namespace qalg::gpu
