// Example consumer: one forward pass through an exported package's kernel, checked against the
// package's plan on the host (small integer inputs: FP32 sums are exact for integer coefficients).
//   consumer [M] [--calibration FILE]   exit 0 agree, 1 disagree, 2 no GPU, 3 bad calibration file
// --calibration loads the package's per-shape tile choices (calibration.csv) first; that needs no
// GPU, so it is checked on machines without one too.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "qalg_kernels/qalg_kernels.hpp"

int main(int argc, char** argv) {
  uint64_t M = 97;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--calibration" && a + 1 < argc) {
      try {
        const size_t rows = qalg_kernels::use_calibration(argv[++a]);
        std::printf("consumer: calibration %s: %zu rows\n", argv[a], rows);
      } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "consumer: %s\n", e.what());
        return 3;
      }
    } else {
      M = std::strtoull(argv[a], nullptr, 10);
    }
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "consumer: no CUDA device\n");
    return 2;
  }
  const uint64_t K = qalg_kernels::K(), N = qalg_kernels::N();
  const qalg_kernels::KernelPlan& plan = qalg_kernels::plan();

  std::vector<float> x(M * K), w(K * N), y(M * N);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(int(i * 7 % 5) - 2);
  for (size_t i = 0; i < w.size(); ++i) w[i] = float(int(i * 3 % 7) - 3);
  std::vector<int64_t> positions(M);
  for (uint64_t p = 0; p < M; ++p) positions[p] = int64_t(p);

  float *dx, *dw, *dy;
  cudaMalloc(&dx, x.size() * 4), cudaMalloc(&dw, w.size() * 4), cudaMalloc(&dy, y.size() * 4);
  cudaMemcpy(dx, x.data(), x.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(dw, w.data(), w.size() * 4, cudaMemcpyHostToDevice);
  qalg_kernels::Batch batch(qalg_kernels::types_of_positions(positions.data(), M, {}));
  qalg_kernels::forward(batch, {dx, qalg_kernels::DType::f32, M, K}, {dw, qalg_kernels::DType::f32, K, N},
                        {dy, qalg_kernels::DType::f32, M, N});
  cudaMemcpy(y.data(), dy, y.size() * 4, cudaMemcpyDeviceToHost);

  // Host: y_j = Σ_{k ∈ B(i,j)} c x_k W_kj for the row's type i (SPEC §4).
  uint64_t wrong = 0;
  for (uint64_t p = 0; p < M; ++p) {
    const uint32_t i = batch.device_batch().types()[p];
    for (uint32_t j = 0; j < plan.q; ++j)
      for (uint64_t n = plan.output_offset(j); n < plan.output_offset(j) + plan.output_widths[j]; ++n) {
        double acc = 0;
        for (const auto& t : plan.B(i, j))
          for (uint64_t k = plan.input_offset(t.input_group); k < plan.input_offset(t.input_group) + plan.input_widths[t.input_group]; ++k)
            acc += t.coefficient() * x[p * K + k] * w[k * N + n];
        wrong += std::fabs(double(y[p * N + n]) - acc) > 1e-5 * (1.0 + std::fabs(acc));
      }
  }
  std::printf("consumer: %s, M = %llu, K = %llu, N = %llu: %llu of %llu outputs differ\n", qalg_kernels::algebra(),
              (unsigned long long)M, (unsigned long long)K, (unsigned long long)N, (unsigned long long)wrong,
              (unsigned long long)(M * N));
  cudaFree(dx), cudaFree(dw), cudaFree(dy);
  return wrong == 0 ? 0 : 1;
}
