#pragma once
// Row m of a batch's grouped row list (rows of type 0, then type 1, ...): from the closed form when
// the arguments carry one (work_list.hpp RowFormula; set_row_formula), else loaded from the list.
#include "work_list.hpp"

namespace qalg::gpu::detail {

__device__ __forceinline__ uint32_t list_row(const GemmArgs& g, uint32_t m) {
  const RowFormula f = g.row_formula;
  if (f.c != 0) return f.row(m);
  return g.rows[m];
}

}  // namespace qalg::gpu::detail
