#pragma once
// The set-up the residue and stamps suites share (thirty-seventh session, from the residue suite's):
// one M = 2048 projection's operands (seeded), its fastest dense call, its warp-specialised tile
// calibrated as the table's (or among QALG_BENCH_VARIANTS), and that tile's result checked against
// the dense reference once (a failure counts in the bench's failures, as every timed call's).
#include <string>
#include <utility>
#include <vector>

#include "bench_cases_run.hpp"

namespace qalg::bench {

struct Bench::CalibratedTile {
  const Buf& X;
  const Buf& W;
  const Call& dense;  // the dense GEMM on the same X and W (cuBLAS or cuBLASLt, whichever is faster)
  const std::string& impl;  // which
  const std::string& tile;  // the calibrated variant's name
  const Call& call;         // the calibrated variant
  double err;               // its relative L2 error against the reference
  bool pass;                // err <= 1e-2 (NaN fails)
};

template <typename Body>
void Bench::with_calibrated_tile(int D, int F, int M, int q, Body&& body) {
  const gpu::TableData t = table(q);
  gpu::DevicePlan plan(gpu::lower_table(t, detail::same(q, D / q), detail::same(q, F / q)));
  gpu::DeviceBatch batch(plan, gpu::cyclic_types(M, q));
  Buf X(M, D), W(D, F), Y(M, F), Yd(M, F), ref(M, F, 4);
  gpu::fill_random_bf16(X.p, uint64_t(M) * D, 11, 1.0f, s_);
  gpu::fill_random_bf16(W.p, uint64_t(D) * F, 12, 1.0f / std::sqrt(float(D)), s_);
  ok(cudaStreamSynchronize(s_), "fill");
  std::string impl;
  const Call dense = dense_best(M, F, D, false, false, X.p, W.p, Yd.p, impl);
  gpu::use_forward_calibration({});
  std::vector<FusedPick> tiles;
  const auto variants = fused_variants(plan, batch, X, W, Y, &tiles);
  const size_t best = calibrate(variants);
  gpu::use_forward_calibration(calib_);
  ok(cudaMemset(Y.p, 0xff, Y.rows * Y.cols * 2), "poison");
  variants[best].second(s_);
  ok(cudaStreamSynchronize(s_), "run");
  gpu::CudaDenseReference r(t, detail::same(q, D / q), detail::same(q, F / q));
  r.forward(gpu::cyclic_types(M, q), X.m(), W.m(), ref.f());
  const double err = gpu::rel_l2_bf16(Y.p, ref.f(), uint64_t(M) * F);
  const bool pass = err <= 1e-2;  // NaN fails
  failures_ += !pass;
  CalibratedTile c{X, W, dense, impl, variants[best].first, variants[best].second, err, pass};
  body(c);
}

}  // namespace qalg::bench
