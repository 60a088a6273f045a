// MAC counts from a plan (plan_costs.hpp).
#include "qalg/gpu/plan_costs.hpp"

#include <stdexcept>

namespace qalg::gpu {

uint64_t forward_macs(const KernelPlan& plan, const std::vector<uint32_t>& row_types) {
  std::vector<uint64_t> per_type(plan.q);
  for (uint32_t i = 0; i < plan.q; ++i) per_type[i] = plan.macs_per_row(i);
  uint64_t total = 0;
  for (uint32_t t : row_types) {
    if (t >= plan.q) throw std::invalid_argument("forward_macs: row type out of range");
    total += per_type[t];
  }
  return total;
}

double balanced_density(const KernelPlan& plan) {
  double total = 0;
  for (uint32_t i = 0; i < plan.q; ++i) total += double(plan.macs_per_row(i));
  return total / (double(plan.q) * double(plan.K()) * double(plan.N()));
}

uint64_t square_product_macs(const KernelPlan& plan) {
  uint64_t total = 0;
  for (uint32_t a = 0; a < plan.q; ++a) total += uint64_t(plan.input_widths[a]) * plan.macs_per_row(a);
  return total;
}

}  // namespace qalg::gpu
