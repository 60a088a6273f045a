// The dense reference's two GEMMs (reference_gemm.hpp) against each other: cuBLAS and the plain
// loop are separate code, so on integer-valued inputs and a table with dyadic coefficients (every
// product and sum exact in FP32) they must agree bit for bit on forward, dX and dW, in each dtype,
// with uneven widths, uneven random types and a type with no rows.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "cuda_harness.hpp"
#include "gpu/table_builders.hpp"
#include "qalg/gpu/cuda_dense_reference.hpp"

namespace qalg::gpu::test {
namespace {

// out poisoned with NaN first: an element the reference does not write fails the comparison.
std::vector<float> poisoned_run(size_t n, const std::function<void(float*)>& run) {
  DevFloats out(n);
  cuda_ok(cudaMemset(out.p, 0xff, n * 4), "cudaMemset");
  run(out.p);
  cuda_ok(cudaDeviceSynchronize(), "reference");
  return out.download();
}

// Elements that differ, NaN counting as differing from everything (the harness's exact comparison
// on the FP32 grid: NaN != NaN).
uint64_t differing(const std::vector<float>& a, const std::vector<float>& b) { return compare(a, b, DType::f32).mismatches; }

TEST(ReferenceGemm, PlainLoopAndCublasAgreeExactly) {
  std::mt19937_64 rng(20261207);
  const uint32_t q = 5;
  const std::vector<uint32_t> s{16, 24, 8, 40, 16}, r{32, 8, 24, 16, 8};
  uint32_t K = 0, N = 0;
  for (uint32_t g = 0; g < q; ++g) K += s[g], N += r[g];
  for (int trial = 0; trial < 3; ++trial) {
    // a random simple quiver in a basis scaled by powers of two (coefficients 1/4 … 4)
    const TableData base = quiver_table(q, random_simple_arrows(rng, q, 0.6));
    std::vector<Fraction> lambda(base.dim);
    for (auto& l : lambda) l = rng() % 2 ? Fraction{int64_t(1) << (rng() % 3), 1} : Fraction{1, int64_t(1) << (rng() % 3)};
    const TableData table = rescaled_table(base, lambda);
    CudaDenseReference by_cublas(table, s, r, ReferenceGemm::cublas), by_plain(table, s, r, ReferenceGemm::plain);
    ASSERT_EQ(by_plain.gemm(), ReferenceGemm::plain);
    const uint32_t M = 97 + 40 * trial;
    std::vector<uint32_t> types(M);
    for (auto& t : types) t = uint32_t(rng() % (q - 1));  // type q - 1 has no rows
    for (DType t : {DType::bf16, DType::f16, DType::f32}) {
      const std::string at = "trial " + std::to_string(trial) + ", dtype " + std::to_string(int(t));
      DevMatrix X(t, M, K), W(t, K, N), dY(t, M, N);
      X.upload(integer_values(rng, size_t(M) * K, 2));
      W.upload(integer_values(rng, size_t(K) * N, 2));
      dY.upload(integer_values(rng, size_t(M) * N, 2));
      const auto y_c = poisoned_run(size_t(M) * N, [&](float* o) { by_cublas.forward(types, X.view(), W.view(), o); });
      const auto y_p = poisoned_run(size_t(M) * N, [&](float* o) { by_plain.forward(types, X.view(), W.view(), o); });
      EXPECT_EQ(differing(y_c, y_p), 0u) << "forward, " << at;
      const auto dx_c = poisoned_run(size_t(M) * K, [&](float* o) { by_cublas.grad_x(types, dY.view(), W.view(), o); });
      const auto dx_p = poisoned_run(size_t(M) * K, [&](float* o) { by_plain.grad_x(types, dY.view(), W.view(), o); });
      EXPECT_EQ(differing(dx_c, dx_p), 0u) << "dX, " << at;
      const auto dw_c = poisoned_run(size_t(K) * N, [&](float* o) { by_cublas.grad_w(types, X.view(), dY.view(), o); });
      const auto dw_p = poisoned_run(size_t(K) * N, [&](float* o) { by_plain.grad_w(types, X.view(), dY.view(), o); });
      EXPECT_EQ(differing(dw_c, dw_p), 0u) << "dW, " << at;
      // not all zero: the comparison above compared something
      size_t nonzero = 0;
      for (float v : y_c) nonzero += v != 0.0f;
      EXPECT_GT(nonzero, y_c.size() / 4) << at;
    }
  }
}

}  // namespace
}  // namespace qalg::gpu::test
