// The gated FFN decode in one launch (set_decode_fused; gpu/cuda/ffn_decode_fused.cuh) against the
// two launches it replaces and against y computed on the host from the kernel's own h.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "cuda_harness.hpp"
#include "gpu/table_builders.hpp"
#include "qalg/gpu/lowering.hpp"

namespace qalg::gpu::test {
namespace {

struct FusedOff {  // every test leaves the process default (off) behind
  ~FusedOff() { set_decode_fused(-1); }
};

// y_k = h_i·Wd[i, k] + h_k·Wd[k, k] (k ≠ i), h_i·Wd[i, i] for k = i, in double, with the sum of
// the terms' magnitudes (the FP32 sum's error bound is a multiple of it).
void host_down(const std::vector<float>& h, const std::vector<float>& wd, uint32_t q, uint32_t s, uint32_t r,
               uint32_t type, std::vector<double>& y, std::vector<double>& mag) {
  const uint64_t D = uint64_t(q) * s;
  y.assign(D, 0.0), mag.assign(D, 0.0);
  for (uint32_t k = 0; k < q; ++k) {
    const std::vector<uint32_t> groups = k == type ? std::vector<uint32_t>{type} : std::vector<uint32_t>{type, k};
    for (uint32_t g : groups)
      for (uint32_t f = 0; f < r; ++f) {
        const double hv = h[uint64_t(g) * r + f];
        for (uint32_t col = 0; col < s; ++col) {
          const double t = hv * wd[(uint64_t(g) * r + f) * D + uint64_t(k) * s + col];
          y[uint64_t(k) * s + col] += t, mag[uint64_t(k) * s + col] += std::fabs(t);
        }
      }
  }
}

struct Case {
  uint32_t q, s, r;
};

// With integer x, Wg and Wu the gate/up sums are exact in FP32 whatever their order, so h must be
// bit-equal to the two launches'; y (Gaussian Wd, sums of arbitrary h) must be within FP32
// summation error of the exact sum on the kernel's h, NaN-free, the same on every graph replay
// (a fixed order of the chunks' sums), and decode_fused_chunks must name what ran. Shapes: the
// Qwen3-1.7B and DeepSeek-V3 experts' widths at q = 32 and small ones with partial chunks
// (r = 152 = 19 · 8, r = 24: at most 3 chunks), for the rule's chunks and forced ones, several types.
TEST(FfnDecodeFused, HiddenRowAsTwoLaunchesAndOutputWithinRounding) {
  FusedOff restore;
  std::mt19937_64 rng(39);
  for (const Case c : {Case{32, 64, 192}, Case{32, 224, 64}, Case{8, 40, 152}, Case{32, 64, 24}, Case{4, 160, 64}}) {
    const uint32_t D = c.q * c.s, F = c.q * c.r;
    const TableData law = complete_table(c.q);
    DevicePlan up(lower_table(law, std::vector<uint32_t>(c.q, c.s), std::vector<uint32_t>(c.q, c.r)));
    DevicePlan down(lower_table(law, std::vector<uint32_t>(c.q, c.r), std::vector<uint32_t>(c.q, c.s)));
    DevMatrix x(DType::bf16, 1, D), Wg(DType::bf16, D, F), Wu(DType::bf16, D, F), Wd(DType::bf16, F, D);
    Wg.upload(integer_values(rng, size_t(D) * F, 1));
    Wu.upload(integer_values(rng, size_t(D) * F, 1));
    const std::vector<float> wd = random_values(rng, DType::bf16, size_t(F) * D, 1.0f / std::sqrt(float(F)));
    Wd.upload(wd);
    DevMatrix h2(DType::bf16, 1, F), y2(DType::bf16, 1, D), h1(DType::bf16, 1, F), y1(DType::bf16, 1, D);
    cudaStream_t st;
    cuda_ok(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), "stream");
    for (int chunks : {0, 1, 2, 3, 5, 8}) {
      set_decode_fused(chunks);
      const uint32_t ran = decode_fused_chunks(up, down, DType::bf16);
      // Chunks of w = ceil(r / 8C) · 8 columns; C of them leave none empty iff (C − 1) · w < r, and
      // a CTA holds gate and up at 2s + s rows of w, Wd at 2w rows of s, x (2s floats), its h
      // (2w floats), the cluster's partial sums (C · s floats) and its 16 warps' sums (a slot per
      // warp or per block of 64 columns, whichever is more: 128 floats for h's w/4 units of 8
      // columns, 64 for y's s/8) in at most 227 KiB.
      const uint32_t w = chunks > 0 ? (c.r + 8 * chunks - 1) / (8 * chunks) * 8 : 0;
      const uint64_t slots_h = std::max<uint64_t>(16, (w + 31) / 32), slots_y = std::max<uint64_t>(16, (c.s + 63) / 64);
      const uint64_t smem = 2ull * 3 * c.s * w * 2 + 2ull * w * c.s * 2 + 2ull * c.s * 4 + 2ull * w * 4 +
                            uint64_t(chunks) * c.s * 4 + std::max(slots_h * 128, slots_y * 64) * 4;
      if (chunks > 0 && ((chunks - 1) * w >= c.r || smem > 227 * 1024)) {
        EXPECT_EQ(ran, 0u) << "r = " << c.r << " in " << chunks << " chunks of " << w << " columns: one empty or "
                           << smem << " bytes of shared memory";
        continue;
      }
      ASSERT_NE(ran, 0u) << "q = " << c.q << ", s = " << c.s << ", r = " << c.r << ", chunks " << chunks;
      if (chunks > 0) EXPECT_EQ(ran, uint32_t(chunks));
      for (uint32_t type : {0u, 1u, c.q - 1}) {
        x.upload(integer_values(rng, D, 2));
        set_decode_fused(-1);
        h2.poison(), y2.poison();
        gated_ffn_decode(up, down, type, x.view(), Wg.view(), Wu.view(), Wd.view(), h2.view(), y2.view(), st);
        set_decode_fused(chunks);
        h1.poison(), y1.poison();
        gated_ffn_decode(up, down, type, x.view(), Wg.view(), Wu.view(), Wd.view(), h1.view(), y1.view(), st);
        cuda_ok(cudaStreamSynchronize(st), "sync");
        const auto hv = h1.download(), yv = y1.download();
        const std::string where = "q = " + std::to_string(c.q) + ", s = " + std::to_string(c.s) + ", r = " +
                                  std::to_string(c.r) + ", " + std::to_string(ran) + " chunks, type " + std::to_string(type);
        ASSERT_EQ(hv, h2.download()) << where;
        for (float v : hv) ASSERT_TRUE(std::isfinite(v)) << where;
        std::vector<double> yr, mag;
        host_down(hv, wd, c.q, c.s, c.r, type, yr, mag);
        const uint32_t depth = 2 * c.r;
        for (uint32_t e = 0; e < D; ++e) {
          // half an output ulp (BF16: 2^-8 relative) plus the FP32 sum's error bound
          const double tol = std::fabs(yr[e]) * std::ldexp(1.0, -8) + depth * std::ldexp(1.0, -23) * mag[e];
          ASSERT_LE(std::fabs(double(yv[e]) - yr[e]), tol) << where << ", y[" << e << "] = " << yv[e] << " against " << yr[e];
        }
        const CapturedGraph graph(st, [&](cudaStream_t s) {
          gated_ffn_decode(up, down, type, x.view(), Wg.view(), Wu.view(), Wd.view(), h1.view(), y1.view(), s);
        });
        for (int rep = 0; rep < 5; ++rep) {
          h1.poison(), y1.poison();
          graph.launch();
          ASSERT_EQ(hv, h1.download()) << where << ", replay " << rep;
          ASSERT_EQ(yv, y1.download()) << where << ", replay " << rep;
        }
      }
    }
    cudaStreamDestroy(st);
  }
}

// FP16 too: the same agreement on one shape.
TEST(FfnDecodeFused, HalfPrecision) {
  FusedOff restore;
  std::mt19937_64 rng(40);
  const uint32_t q = 8, s = 64, r = 64, D = q * s, F = q * r;
  const TableData law = complete_table(q);
  DevicePlan up(lower_table(law, std::vector<uint32_t>(q, s), std::vector<uint32_t>(q, r)));
  DevicePlan down(lower_table(law, std::vector<uint32_t>(q, r), std::vector<uint32_t>(q, s)));
  DevMatrix x(DType::f16, 1, D), Wg(DType::f16, D, F), Wu(DType::f16, D, F), Wd(DType::f16, F, D);
  x.upload(integer_values(rng, D, 1));  // |g|, |u| ≤ 128: SiLU(g)·u stays within FP16's range
  Wg.upload(integer_values(rng, size_t(D) * F, 1));
  Wu.upload(integer_values(rng, size_t(D) * F, 1));
  const std::vector<float> wd = random_values(rng, DType::f16, size_t(F) * D, 1.0f / std::sqrt(float(F)));
  Wd.upload(wd);
  DevMatrix h2(DType::f16, 1, F), y2(DType::f16, 1, D), h1(DType::f16, 1, F), y1(DType::f16, 1, D);
  set_decode_fused(-1);
  gated_ffn_decode(up, down, 3, x.view(), Wg.view(), Wu.view(), Wd.view(), h2.view(), y2.view());
  set_decode_fused(0);
  ASSERT_NE(decode_fused_chunks(up, down, DType::f16), 0u);
  h1.poison(), y1.poison();
  gated_ffn_decode(up, down, 3, x.view(), Wg.view(), Wu.view(), Wd.view(), h1.view(), y1.view());
  cuda_ok(cudaDeviceSynchronize(), "sync");
  const auto hv = h1.download(), yv = y1.download();
  ASSERT_EQ(hv, h2.download());
  std::vector<double> yr, mag;
  host_down(hv, wd, q, s, r, 3, yr, mag);
  for (uint32_t e = 0; e < D; ++e)
    ASSERT_LE(std::fabs(double(yv[e]) - yr[e]), std::fabs(yr[e]) * std::ldexp(1.0, -11) + 2 * r * std::ldexp(1.0, -23) * mag[e])
        << "y[" << e << "]";
}

// Non-finite weights reach exactly the outputs they reach in the two launches: NaN in one element
// of Wd (row f of h's group g, column of y's group k) and Inf in one element of Wg (making h's
// element NaN or ±Inf, which then meets Wd's row); the NaN/Inf pattern of y and h is the two
// launches'.
TEST(FfnDecodeFused, NonFiniteWeightsReachWhatTheyReachInTwoLaunches) {
  FusedOff restore;
  std::mt19937_64 rng(41);
  const uint32_t q = 8, s = 64, r = 64, D = q * s, F = q * r, type = 2;
  const TableData law = complete_table(q);
  DevicePlan up(lower_table(law, std::vector<uint32_t>(q, s), std::vector<uint32_t>(q, r)));
  DevicePlan down(lower_table(law, std::vector<uint32_t>(q, r), std::vector<uint32_t>(q, s)));
  DevMatrix x(DType::bf16, 1, D), Wg(DType::bf16, D, F), Wu(DType::bf16, D, F), Wd(DType::bf16, F, D);
  x.upload(random_values(rng, DType::bf16, D, 1.0f));
  auto wg = random_values(rng, DType::bf16, size_t(D) * F, 0.1f);
  Wu.upload(random_values(rng, DType::bf16, size_t(D) * F, 0.1f));
  auto wd = random_values(rng, DType::bf16, size_t(F) * D, 0.1f);
  wd[(uint64_t(5) * r + 7) * D + uint64_t(5) * s + 3] = NAN;       // h_5[7] · Wd → y_5[3]
  wd[(uint64_t(type) * r + 1) * D + uint64_t(6) * s + 9] = NAN;    // h_type[1] · Wd → y_6[9]
  wg[(uint64_t(4) * s + 2) * F + uint64_t(4) * r + 11] = INFINITY;  // x_4[2] · Wg → h_4[11]
  Wg.upload(wg);
  Wd.upload(wd);
  DevMatrix h2(DType::bf16, 1, F), y2(DType::bf16, 1, D), h1(DType::bf16, 1, F), y1(DType::bf16, 1, D);
  set_decode_fused(-1);
  gated_ffn_decode(up, down, type, x.view(), Wg.view(), Wu.view(), Wd.view(), h2.view(), y2.view());
  set_decode_fused(0);
  gated_ffn_decode(up, down, type, x.view(), Wg.view(), Wu.view(), Wd.view(), h1.view(), y1.view());
  cuda_ok(cudaDeviceSynchronize(), "sync");
  const auto a = y1.download(), b = y2.download(), ha = h1.download(), hb = h2.download();
  uint64_t nonfinite = 0;
  for (uint32_t e = 0; e < D; ++e) {
    ASSERT_EQ(std::isnan(a[e]), std::isnan(b[e])) << "y[" << e << "]";
    ASSERT_EQ(std::isinf(a[e]), std::isinf(b[e])) << "y[" << e << "]";
    nonfinite += !std::isfinite(a[e]);
  }
  for (uint32_t e = 0; e < F; ++e) ASSERT_EQ(std::isfinite(ha[e]), std::isfinite(hb[e])) << "h[" << e << "]";
  EXPECT_GE(nonfinite, 2u);  // at least the two Wd elements' outputs
  EXPECT_LT(nonfinite, uint64_t(D));
}

// Where it does not apply, gated_ffn_decode runs the two launches (decode_fused_chunks = 0): a
// non-law table, widths not multiples of 8, FP32; and set_decode_fused refuses out-of-range counts.
TEST(FfnDecodeFused, AppliesOnlyWhereItCan) {
  FusedOff restore;
  set_decode_fused(0);
  TableData q2sq = tensor_table(complete_table(2), complete_table(2));
  DevicePlan up(lower_table(q2sq, {64, 64, 64, 64}, {64, 64, 64, 64}));
  DevicePlan down(lower_table(q2sq, {64, 64, 64, 64}, {64, 64, 64, 64}));
  EXPECT_EQ(decode_fused_chunks(up, down, DType::bf16), 0u);
  DevicePlan up20(lower_table(complete_table(4), {20, 20, 20, 20}, {64, 64, 64, 64}));
  DevicePlan down20(lower_table(complete_table(4), {64, 64, 64, 64}, {20, 20, 20, 20}));
  EXPECT_EQ(decode_fused_chunks(up20, down20, DType::bf16), 0u);
  DevicePlan up8(lower_table(complete_table(4), {64, 64, 64, 64}, {64, 64, 64, 64}));
  EXPECT_EQ(decode_fused_chunks(up8, up8, DType::f32), 0u);
  EXPECT_NE(decode_fused_chunks(up8, up8, DType::bf16), 0u);
  set_decode_fused(-1);
  EXPECT_EQ(decode_fused_chunks(up8, up8, DType::bf16), 0u);
  EXPECT_NE(error_of([] { set_decode_fused(9); }).find("set_decode_fused: chunks must be -1 (off), 0 (the rule's) or 1 ... 8, got 9"),
            std::string::npos);
  EXPECT_EQ(decode_fused(), -1);
}

}  // namespace
}  // namespace qalg::gpu::test
