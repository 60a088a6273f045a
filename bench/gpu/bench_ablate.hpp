#pragma once
// The ablate suite of qalg_gpu_bench (nineteenth session): where does a warp-specialised forward
// tile's time go? Nsight Compute found the square kernel latency-bound with no unit saturated, so
// instead of more counters this times the kernel with one part left out at a time (METHOD.md:
// "time variants that leave one stage out ... and take differences"): no copies, no wgmma, no
// epilogue stores, and their combinations, on the same buffers, warm medians of 20 graph replays.
// The variants that compute (whole, and whole with TMA stores) are checked against the table's
// dense reference; the ablated ones compute nothing meaningful and are marked "n/a".
#include "bench_cases_run.hpp"

namespace qalg::bench {

inline void Bench::null_kernel_probe() {
  int sms = 0;
  ok(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "multiprocessor count");
  for (uint32_t ctas : {1u, 4u * uint32_t(sms)}) {
    GraphCall g(s_, [&](cudaStream_t s) { gpu::device_null_kernel(ctas, s); });
    const Stats t = timer_->alone(g, false, 50);
    std::printf("launch  null kernel, %4u CTAs: %6.2f us (p10 %.2f, p90 %.2f)\n", ctas, t.median, t.p10, t.p90);
    csv_ << "ceiling,null_kernel_" << ctas << "_ctas_us," << gpu_name_ << ",,,,,,," << t.median << ",,,,,,,,,,,,,,,,,,,,\n";
    // (forty-fourth session) the same replay behind a hold: what of it is the GPU's (Timer::set_hold_us)
    timer_->reset_late();
    const Stats h = timer_->alone(g, false, 50, true);
    std::printf("launch  null kernel, %4u CTAs, held (%u us): %6.2f us (p10 %.2f, p90 %.2f; %d late)\n", ctas,
                timer_->hold_us(), h.median, h.p10, h.p90, timer_->late());
    csv_ << "ceiling,null_kernel_" << ctas << "_ctas_held_us," << gpu_name_ << ",,,,,,," << h.median << ",,,,,,,,,,,,,,,,,,,,\n";
    // and between event nodes inside its graph (Timer::once_in_graph): what of it a graph pays per call
    GraphCall gi(s_, [&](cudaStream_t s) { gpu::device_null_kernel(ctas, s); }, timer_->graph_events());
    std::vector<double> v;
    for (int t = 0; t < 51; ++t) v.push_back(timer_->once_in_graph(gi));
    const Stats i = stats(v);
    std::printf("launch  null kernel, %4u CTAs, in its graph: %6.2f us (p10 %.2f, p90 %.2f)\n", ctas, i.median, i.p10, i.p90);
    csv_ << "ceiling,null_kernel_" << ctas << "_ctas_ingraph_us," << gpu_name_ << ",,,,,,," << i.median << ",,,,,,,,,,,,,,,,,,,,\n";
  }
  {  // the in-graph clock against a known time: a 20 µs hold between the two nodes
    GraphCall gh(s_, [&](cudaStream_t s) { gpu::device_hold(20000, s); }, timer_->graph_events());
    std::vector<double> v;
    for (int t = 0; t < 11; ++t) v.push_back(timer_->once_in_graph(gh));
    std::printf("launch  a 20 us hold, in its graph: %6.2f us\n", stats(v).median);
  }
}

inline void Bench::launch_probe() {
  null_kernel_probe();
  // The write side alone: cudaMemset of 1 GiB (bytes written only), beside the copy ceiling's read + write.
  const uint64_t n = uint64_t(1) << 30;
  Buf a(n, 1, 1);
  GraphCall g(s_, [&](cudaStream_t s) { ok(cudaMemsetAsync(a.p, 0x5a, n, s), "memset"); });
  const double w = double(n) / (timer_->alone(g, false, 10).median * 1e-6);
  std::printf("launch  write bandwidth (cudaMemset, 1 GiB): %.2f TB/s\n", w / 1e12);
  csv_ << "ceiling,write_bandwidth_TBps," << gpu_name_ << ",,,,,,," << w / 1e12 << ",,,,,,,,,,,,,,,,,,,,\n";
}

inline void Bench::ablate(const std::string& name, int D, int F, int M, int q, bool interval) {
  const gpu::TableData t = table(q);
  gpu::DevicePlan plan(gpu::lower_table(t, detail::same(q, D / q), detail::same(q, F / q)));
  const auto types = interval ? gpu::interval_types(M, q, M / q) : gpu::cyclic_types(M, q);
  gpu::DeviceBatch batch(plan, types);
  Buf X(M, D), W(D, F), Y(M, F), Yd(M, F), ref(M, F, 4);
  gpu::fill_random_bf16(X.p, uint64_t(M) * D, 61, 1.0f, s_);
  gpu::fill_random_bf16(W.p, uint64_t(D) * F, 62, 1.0f / std::sqrt(float(D)), s_);
  ok(cudaStreamSynchronize(s_), "fill");
  std::string impl;
  const Call dense_call = dense_best(M, F, D, false, false, X.p, W.p, Yd.p, impl);
  double dense_us;
  {
    GraphCall gd(s_, dense_call);
    dense_us = timer_->alone(gd, false, 20).median;
  }
  gpu::CudaDenseReference r(t, detail::same(q, D / q), detail::same(q, F / q));
  r.forward(types, X.m(), W.m(), ref.f());
  const double fl = detail::plan_flops(plan.plan(), types);
  const double floor = floor_us(fl, 2.0 * (double(M) * D + double(detail::used_weight_elems(plan.plan())) + double(M) * F));
  std::printf("ablate %s M=%d q=%d: dense %s %.1f us, floor %.1f us\n", name.c_str(), M, q, impl.c_str(), dense_us, floor);
  // (mode, ablation bits, TMA stores); the two with no bits compute the product.
  struct Mode {
    const char* name;
    uint32_t bits;
    bool tma_store;
  };
  constexpr uint32_t kLoad = gpu::ws_ablate_no_load, kMma = gpu::ws_ablate_no_mma, kStore = gpu::ws_ablate_no_store;
  const Mode modes[] = {{"whole", 0, false},          {"tma-store", 0, true},
                        {"no-store", kStore, false},  {"no-mma", kMma, false},
                        {"tma-no-mma", kMma, true},   {"loads-only", kMma | kStore, false},
                        {"no-load", kLoad, false},    {"mma-only", kLoad | kStore, false},
                        {"stores-only", kLoad | kMma, false}, {"tma-stores-only", kLoad | kMma, true},
                        {"sync-only", kLoad | kMma | kStore, false},
                        // (thirty-first session) the modes above with the TMA stores switched on: the
                        // group-pair tile (wsg) runs as itself only with them (else it is ws128x64)
                        {"tma-loads-only", kMma | kStore, true}, {"tma-sync-only", kLoad | kMma | kStore, true}};
  const bool tma_default = gpu::ws_tma_store();
  gpu::use_forward_calibration({});
  // QALG_BENCH_VARIANTS picks the tiles (fused-wsl64x128 by default); only warp-specialised ones
  // have the switches (others run whole in every mode, which the rows would show as equal times).
  const char* only = std::getenv("QALG_BENCH_VARIANTS");
  if (!only) setenv("QALG_BENCH_VARIANTS", "fused-wsl64x128", 0);
  std::vector<FusedPick> tiles;
  const auto variants = fused_variants(plan, batch, X, W, Y, &tiles);
  if (!only) unsetenv("QALG_BENCH_VARIANTS");
  for (size_t v = 0; v < variants.size(); ++v) {
    for (const Mode& m : modes) {
      // QALG_ABLATE_MODES=a,b,…: only those modes (e.g. whole,tma-store)
      if (const char* keep = std::getenv("QALG_ABLATE_MODES");
          keep && ("," + std::string(keep) + ",").find("," + std::string(m.name) + ",") == std::string::npos)
        continue;
      gpu::set_ws_ablation(m.bits);
      gpu::set_ws_tma_store(m.tma_store);
      Stats st;
      double err = 0;
      try {
        GraphCall g(s_, variants[v].second);  // the flags are read when the launch is captured
        st = timer_->alone(g, false, 20);
        if (m.bits == 0) {
          ok(cudaMemset(Y.p, 0xff, uint64_t(M) * F * 2), "poison");
          g.launch();
          ok(cudaStreamSynchronize(s_), "run");
          err = gpu::rel_l2_bf16(Y.p, ref.f(), uint64_t(M) * F);
        }
      } catch (...) {
        gpu::set_ws_ablation(0), gpu::set_ws_tma_store(tma_default);
        throw;
      }
      const bool pass = m.bits != 0 || err <= 1e-2;  // NaN fails
      failures_ += !pass;
      const char* check = m.bits ? "n/a" : pass ? "pass" : "FAIL";
      std::printf("ablate %-22s %-20s %-12s %9.1f us (p10 %.1f, p90 %.1f)  x%.2f of whole-dense  floor %.2f  %s %.1e\n",
                  name.c_str(), variants[v].first.c_str(), m.name, st.median, st.p10, st.p90, dense_us / st.median,
                  floor / st.median, check, err);
      csv_ << "ablate," << m.name << ',' << name << ',' << M << ',' << D << ',' << F << ',' << q << ','
           << variants[v].first << ',' << impl << ',' << dense_us << ",," << ',' << st.median << ',' << st.p10 << ','
           << st.p90 << ",,,,,," << dense_us / st.median << ",," << floor << ',' << floor / st.median << ',' << err
           << ',' << check << ',' << gpu_name_ << ",,,,\n";
      csv_.flush();
    }
  }
  gpu::set_ws_ablation(0), gpu::set_ws_tma_store(tma_default);
  gpu::use_forward_calibration(calib_);
  gpu::set_forward_tiles({64, 128, 5, gpu::TileEngine::wgmma_ws});  // the process default
}

}  // namespace qalg::bench
