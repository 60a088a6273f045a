#pragma once
// A CPU emulator of what every backward kernel does with a work list (gpu/cuda/work_list.hpp), for
// the dX and dW list tests: each item's tile is computed and stored, split-K chunks add into their
// FP32 slot and the slot is stored once; every store is counted, so a test can ask for exactly one
// store per output element.
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cuda/work_list.hpp"
#include "qalg/gpu/dense_reference.hpp"

namespace qalg::gpu::test {

inline std::vector<uint64_t> offsets(const std::vector<uint32_t>& widths) {
  std::vector<uint64_t> o(widths.size() + 1, 0);
  for (size_t g = 0; g < widths.size(); ++g) o[g + 1] = o[g] + widths[g];
  return o;
}

// The grouped row list of a batch (rows of type 0, then type 1, ...) and its q + 1 type offsets.
inline void grouped_rows(const std::vector<uint32_t>& types, uint32_t q, std::vector<uint32_t>& type_begin,
                         std::vector<uint32_t>& rows) {
  type_begin.assign(q + 1, 0);
  rows.assign(types.size(), 0);
  for (uint32_t t : types) ++type_begin[t + 1];
  for (uint32_t i = 0; i < q; ++i) type_begin[i + 1] += type_begin[i];
  std::vector<uint32_t> fill(type_begin.begin(), type_begin.end() - 1);
  for (size_t r = 0; r < types.size(); ++r) rows[fill[types[r]]++] = uint32_t(r);
}

// value(w, m, n): tile element (m, n) of item w; at(w, m, n): the output element it lands on (a
// pair of indices; w is the item or, for a slot, the slot's tile). Unstored elements stay NaN.
template <class Value, class At>
RowMatrix<double> emulate_list(const std::vector<detail::WorkItem>& items, const std::vector<detail::WorkItem>& slots,
                               Eigen::Index out_rows, Eigen::Index out_cols, Value&& value, At&& at,
                               RowMatrix<int>& covered) {
  RowMatrix<double> out = RowMatrix<double>::Constant(out_rows, out_cols, std::nan(""));
  std::vector<RowMatrix<double>> partial(slots.size(), RowMatrix<double>::Zero(out_rows, out_cols));
  covered = RowMatrix<int>::Zero(out_rows, out_cols);
  for (const detail::WorkItem& w : items)
    for (uint32_t m = 0; m < w.m_count; ++m)
      for (uint32_t n = 0; n < w.n_count; ++n) {
        const auto [r, c] = at(w, m, n);
        const double v = value(w, m, n);
        if (w.slot) partial[w.slot - 1](r, c) += v;
        else out(r, c) = v, ++covered(r, c);
      }
  for (size_t s = 0; s < slots.size(); ++s)
    for (uint32_t m = 0; m < slots[s].m_count; ++m)
      for (uint32_t n = 0; n < slots[s].n_count; ++n) {
        const auto [r, c] = at(slots[s], m, n);
        out(r, c) = partial[s](r, c), ++covered(r, c);
      }
  return out;
}

// "" when every output element was stored exactly once, else what went wrong.
inline std::string stored_once(const RowMatrix<int>& covered) {
  if (covered.size() == 0 || (covered.minCoeff() == 1 && covered.maxCoeff() == 1)) return "";
  return "an element stored " + std::to_string(covered.minCoeff()) + " to " + std::to_string(covered.maxCoeff()) +
         " times";
}

}  // namespace qalg::gpu::test
