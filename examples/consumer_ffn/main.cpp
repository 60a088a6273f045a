// Example consumer of two kernel packages in one program: h = up(x), y = down(h), each row through
// its own algebra law (SPEC §4), checked against both packages' plans on the host (small integer
// inputs: FP32 sums are exact for integer coefficients).
//   consumer_ffn [M]    exit 0 agree, 1 disagree, 2 no GPU, 3 the packages do not chain (N_up != K_down)
// Without a GPU it still prints both packages' shapes: two plans, one binary, one kernel runtime.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "ffn_down/ffn_down.hpp"
#include "ffn_up/ffn_up.hpp"

namespace {

using qalg::gpu::KernelPlan;

// Host: out_j = Σ_{k ∈ B(i,j)} c in_k W_kj for the row's type i (SPEC §4).
std::vector<double> plan_product(const KernelPlan& plan, const std::vector<uint32_t>& types,
                                 const std::vector<double>& in, const std::vector<float>& w) {
  const uint64_t M = types.size(), K = plan.K(), N = plan.N();
  std::vector<double> out(M * N, 0.0);
  for (uint64_t p = 0; p < M; ++p)
    for (uint32_t j = 0; j < plan.q; ++j)
      for (uint64_t n = plan.output_offset(j); n < plan.output_offset(j) + plan.output_widths[j]; ++n)
        for (const auto& t : plan.B(types[p], j))
          for (uint64_t k = plan.input_offset(t.input_group); k < plan.input_offset(t.input_group) + plan.input_widths[t.input_group]; ++k)
            out[p * N + n] += t.coefficient() * in[p * K + k] * w[k * N + n];
  return out;
}

float* to_device(const std::vector<float>& v) {
  float* d = nullptr;
  cudaMalloc(&d, v.size() * 4);
  cudaMemcpy(d, v.data(), v.size() * 4, cudaMemcpyHostToDevice);
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t M = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 97;
  const uint64_t K = ffn_up::K(), H = ffn_up::N(), N = ffn_down::N();
  std::printf("consumer_ffn: ffn_up %s, K = %llu, N = %llu; ffn_down %s, K = %llu, N = %llu\n", ffn_up::algebra(),
              (unsigned long long)K, (unsigned long long)H, ffn_down::algebra(), (unsigned long long)ffn_down::K(),
              (unsigned long long)N);
  if (ffn_down::K() != H) {
    std::fprintf(stderr, "consumer_ffn: ffn_down takes K = %llu, ffn_up gives N = %llu\n",
                 (unsigned long long)ffn_down::K(), (unsigned long long)H);
    return 3;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "consumer_ffn: no CUDA device\n");
    return 2;
  }
  std::vector<float> x(M * K), w_up(K * H), w_down(H * N), h(M * H), y(M * N);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(int(i * 7 % 5) - 2);
  for (size_t i = 0; i < w_up.size(); ++i) w_up[i] = float(int(i * 3 % 7) - 3);
  for (size_t i = 0; i < w_down.size(); ++i) w_down[i] = float(int(i * 5 % 3) - 1);
  std::vector<int64_t> positions(M);
  for (uint64_t p = 0; p < M; ++p) positions[p] = int64_t(p);

  float *dx = to_device(x), *dwu = to_device(w_up), *dwd = to_device(w_down), *dh = to_device(h), *dy = to_device(y);
  ffn_up::Batch up_batch(ffn_up::types_of_positions(positions.data(), M, {}));
  ffn_down::Batch down_batch(ffn_down::types_of_positions(positions.data(), M, {}));
  ffn_up::forward(up_batch, {dx, ffn_up::DType::f32, M, K}, {dwu, ffn_up::DType::f32, K, H}, {dh, ffn_up::DType::f32, M, H});
  ffn_down::forward(down_batch, {dh, ffn_down::DType::f32, M, H}, {dwd, ffn_down::DType::f32, H, N},
                    {dy, ffn_down::DType::f32, M, N});
  cudaMemcpy(y.data(), dy, y.size() * 4, cudaMemcpyDeviceToHost);

  const std::vector<double> hidden =
      plan_product(ffn_up::plan(), up_batch.device_batch().types(), std::vector<double>(x.begin(), x.end()), w_up);
  const std::vector<double> expect = plan_product(ffn_down::plan(), down_batch.device_batch().types(), hidden, w_down);
  uint64_t wrong = 0;
  for (size_t i = 0; i < y.size(); ++i) wrong += std::fabs(double(y[i]) - expect[i]) > 1e-5 * (1.0 + std::fabs(expect[i]));
  std::printf("consumer_ffn: M = %llu: %llu of %llu outputs differ\n", (unsigned long long)M, (unsigned long long)wrong,
              (unsigned long long)y.size());
  for (float* d : {dx, dwu, dwd, dh, dy}) cudaFree(d);
  return wrong == 0 ? 0 : 1;
}
