#pragma once
// One conformance case (issue 6): a table lowered with given widths, run through every CUDA
// kernel in one dtype, each output poisoned first and compared with the cuBLAS dense reference
// built from the table. Each comparison is one CSV row (cuda_harness.hpp record()).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuda_harness.hpp"
#include "qalg/gpu/table_data.hpp"

namespace qalg::gpu::test {

struct TableCase {
  std::string name;
  TableData table;
  std::vector<uint32_t> s, r;  // input / output widths
};

enum Kernels : unsigned {
  kFwdFused = 1, kFwdDiag = 2, kDecode = 4, kGradX = 8, kGradW = 16, kSquare = 32, kFfn = 64,
  kAll = 127
};

// integer: inputs in small integer ranges, outputs must equal the rounded reference exactly.
void run_conformance(const TableCase& c, DType t, bool integer, uint64_t M, uint64_t seed,
                     unsigned kernels = kAll);

}  // namespace qalg::gpu::test
