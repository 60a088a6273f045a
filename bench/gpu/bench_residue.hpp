#pragma once
// The residue suite of qalg_gpu_bench (thirty-fourth session): which operand's L2 residue a
// projection's calibrated tile gains from. The table's alternating protocol replays the dense GEMM
// (on the same X and W) before every algebraic call; the Triton peer ran DeepSeek-V3 faster so
// (23.2 µs) than alone (25.2), qalg slower (25.1 against 24.1). Here the tile is timed alternating
// with each of several preceding calls, each a CUDA graph: the dense GEMM; a read-only pass over X,
// over W, over X then W, over W then X (cublasDotEx of the operand with itself: it reads the operand
// once and writes one number, so the L2 holds what was read, not a copy's writes); itself (alone);
// and the dense GEMM with the L2 flushed before each replay. Medians of the suite's trials; rows
// `residue,<preceding>,…` (the preceding call's median in dense_warm_us, the tile's in alg_warm_us;
// the flushed one's in the *_flush_us columns).
#include "bench_calibrated.hpp"

namespace qalg::bench {

inline void Bench::residue(const std::string& name, int D, int F, int M, int q) {
  with_calibrated_tile(D, F, M, q, [&](const CalibratedTile& c) {
    Buf dot(1, 1, 4);
    const Buf &X = c.X, &W = c.W;
    const Call& dense = c.dense;
    const std::string &impl = c.impl, &tile = c.tile;
    const double err = c.err;
    const bool pass = c.pass;
    // A read-only pass over n bf16 elements at p: its dot product with itself, the result on the device
    // (the pointer mode set and restored inside the call: it is captured into a graph, where a host
    // result would synchronise).
    auto read = [this, &dot](const void* p, uint64_t n) {
      if (n > uint64_t(INT32_MAX)) throw std::invalid_argument("residue: an operand of more than 2^31 elements");
      return [this, p, n, out = dot.p](cudaStream_t s) {
        ok(cublasSetStream(dense_.blas, s), "cublasSetStream");
        ok(cublasSetPointerMode(dense_.blas, CUBLAS_POINTER_MODE_DEVICE), "pointer mode");
        // (bf16 in, bf16 result, fp32 execution: cublasDotEx's one bf16 combination)
        ok(cublasDotEx(dense_.blas, int(n), p, CUDA_R_16BF, 1, p, CUDA_R_16BF, 1, out, CUDA_R_16BF, CUDA_R_32F), "dot");
        ok(cublasSetPointerMode(dense_.blas, CUBLAS_POINTER_MODE_HOST), "pointer mode");
      };
    };
    const Call rx = read(X.p, uint64_t(M) * D), rw = read(W.p, uint64_t(D) * F);
    const std::vector<std::pair<std::string, Call>> before = {
        {"dense", dense},
        {"read-x", rx},
        {"read-w", rw},
        {"read-x-then-w", [=](cudaStream_t s) { rx(s), rw(s); }},
        {"read-w-then-x", [=](cudaStream_t s) { rw(s), rx(s); }},
    };
    GraphCall ga(s_, c.call);
    auto emit = [&](const std::string& kind, const Stats* pw, const Stats* aw, const Stats* pf, const Stats* af) {
      auto v = [](const Stats* x, double Stats::*m) { return x ? std::to_string(x->*m) : std::string(); };
      csv_ << "residue," << kind << ',' << name << ',' << M << ',' << D << ',' << F << ',' << q << ','
           << tile << ',' << impl << ',' << v(pw, &Stats::median) << ',' << v(pw, &Stats::p10) << ','
           << v(pw, &Stats::p90) << ',' << v(aw, &Stats::median) << ',' << v(aw, &Stats::p10) << ','
           << v(aw, &Stats::p90) << ',' << v(pf, &Stats::median) << ',' << v(af, &Stats::median) << ','
           << v(af, &Stats::p10) << ',' << v(af, &Stats::p90) << ",,,,," << err << ',' << (pass ? "pass" : "FAIL") << ','
           << gpu_name_ << ",,,,\n";
      const Stats* a = aw ? aw : af;
      std::printf("residue %-26s %-22s after %-14s %8.1f us (p10 %.1f, p90 %.1f)%s  err %.1e\n", name.c_str(),
                  tile.c_str(), kind.c_str(), a->median, a->p10, a->p90, aw ? "" : " flushed", err);
    };
    for (const auto& [kind, call] : before) {
      GraphCall gp(s_, call);
      const auto [pw, aw] = timer_->alternate(gp, ga, false, o_.trials);
      emit(kind, &pw, &aw, nullptr, nullptr);
    }
    const Stats alone = timer_->alone(ga, false, o_.trials);
    emit("itself", nullptr, &alone, nullptr, nullptr);
    GraphCall gd(s_, dense);
    const auto [df, af] = timer_->alternate(gd, ga, true, o_.trials);
    emit("dense-flushed", nullptr, nullptr, &df, &af);
  });
}

inline void Bench::decode_residue(const std::string& name, int D, int F) {
  const int q = 32;
  const gpu::TableData t = table(q);
  gpu::DevicePlan up(gpu::lower_table(t, detail::same(q, D / q), detail::same(q, F / q)));
  gpu::DevicePlan down(gpu::lower_table(t, detail::same(q, F / q), detail::same(q, D / q)));
  Buf X(1, D), Wg(D, F), Wu(D, F), Wd(F, D), H(1, F), Y(1, D), Wgu(D, 2 * F), GU(1, 2 * F), Hd(1, F), Yd(1, D),
      dot(1, 1, 4);
  detail::fill_ffn_operands(X, Wg, Wu, Wd, Wgu, s_);
  std::string i1, i2;
  const Call gu = dense_best(1, 2 * F, D, false, false, X.p, Wgu.p, GU.p, i1);
  const Call dn = dense_best(1, D, F, false, false, Hd.p, Wd.p, Yd.p, i2);
  const Call dense = [&, gu, dn](cudaStream_t s) {
    gu(s);
    gpu::dense_silu_mul_bf16(GU.p, Hd.p, 1, F, s);
    dn(s);
  };
  const Call alg = [&](cudaStream_t s) {
    gpu::gated_ffn_decode(up, down, 0, X.m(), Wg.m(), Wu.m(), Wd.m(), H.m(), Y.m(), s);
  };
  // dense's weights read once, nothing written but one number (as the projection residue's reads):
  // the L2 then holds the tail of dense's weights, as after the dense decode, without its work
  auto read = [this, out = dot.p](const void* p, uint64_t n) {
    // cublasDotEx counts in int (the largest decode's dense gate/up, Qwen3-8B, is 1.0e8 elements)
    if (n > uint64_t(INT32_MAX)) throw std::invalid_argument("decode-residue: an operand of more than 2^31 elements");
    ok(cublasSetPointerMode(dense_.blas, CUBLAS_POINTER_MODE_DEVICE), "pointer mode");
    ok(cublasDotEx(dense_.blas, int(n), p, CUDA_R_16BF, 1, p, CUDA_R_16BF, 1, out, CUDA_R_16BF, CUDA_R_32F), "dot");
    ok(cublasSetPointerMode(dense_.blas, CUBLAS_POINTER_MODE_HOST), "pointer mode");
  };
  const Call read_dense_w = [&, read](cudaStream_t s) {
    ok(cublasSetStream(dense_.blas, s), "cublasSetStream");
    read(Wgu.p, uint64_t(D) * 2 * F);
    read(Wd.p, uint64_t(F) * D);
  };
  const std::vector<std::pair<std::string, Call>> before = {
      {"dense", dense},
      {"dense-then-itself", [&, dense](cudaStream_t s) { dense(s), alg(s); }},
      {"read-dense-w", read_dense_w},
      {"read-dense-w-then-itself", [&, read_dense_w](cudaStream_t s) { read_dense_w(s), alg(s); }},
  };
  // checked as the table's FFN rows: poisoned outputs, one call, the reference
  ok(cudaMemset(Y.p, 0xff, Y.rows * Y.cols * 2), "poison");
  ok(cudaMemset(H.p, 0xff, H.rows * H.cols * 2), "poison");
  alg(s_);
  ok(cudaStreamSynchronize(s_), "run");
  const double err = detail::ffn_rel_l2(t, q, {0}, X, Wg, Wu, Wd, H, Y);
  const bool pass = err <= 1e-2;
  failures_ += !pass;  // the bench exits non-zero on a failed check
  GraphCall ga(s_, alg);
  const std::string tile = "decode:" + gpu::decode_shape_name(gpu::decode_shape(up, 0, 2)) + "+" +
                           gpu::decode_shape_name(gpu::decode_shape(down, 0, 1));
  auto emit = [&](const std::string& kind, const Stats* pw, const Stats& a) {
    auto v = [](const Stats* x, double Stats::*m) { return x ? std::to_string(x->*m) : std::string(); };
    csv_ << "residue,decode:" << kind << ',' << name << ",1," << D << ',' << F << ',' << q << ',' << tile << ','
         << i1 << '+' << i2 << ',' << v(pw, &Stats::median) << ',' << v(pw, &Stats::p10) << ',' << v(pw, &Stats::p90)
         << ',' << a.median << ',' << a.p10 << ',' << a.p90 << ",,,,,,,,," << err << ',' << (pass ? "pass" : "FAIL")
         << ',' << gpu_name_ << ",,,,\n";
    std::printf("residue decode %-22s after %-26s %8.1f us (p10 %.1f, p90 %.1f)  err %.1e\n", name.c_str(),
                kind.c_str(), a.median, a.p10, a.p90, err);
  };
  for (const auto& [kind, call] : before) {
    GraphCall gp(s_, call);
    const auto [pw, aw] = timer_->alternate(gp, ga, false, o_.trials);
    emit(kind, &pw, aw);
  }
  emit("itself", nullptr, timer_->alone(ga, false, o_.trials));
}

}  // namespace qalg::bench
