#pragma once
// The stamps suite of qalg_gpu_bench (thirty-seventh session): where the start and end of a
// projection's warp-specialised kernel go, CTA by CTA. Why: Nsight Compute's PM sampling of the
// DeepSeek-V3 expert flushed (H200; results/gpu/history/session37/call1) put ~1.5 µs more before the
// first DRAM reads in qalg's kernel than in the Triton peer's, and the 0.6-1.3 µs by which the peer
// leads there (and the Qwen3-30B expert's gap to the paper's ratio) is of that size. The kernel's
// stamps (wgs_gemm.cuh kWsStampSlots: entry, griddepcontrol.wait passed, first item loaded, first
// stage issued, first stage landed, kDone seen, last stores done, producer's last stage; and
// finer points of the start) are read
// after each replay of the calibrated tile (or QALG_BENCH_VARIANTS') in three protocols: alone
// (warm), after the dense GEMM on the same X and W, and after it with the L2 flushed before each.
// Per replay, every stamp is taken from the earliest CTA entry (µs), its median and its latest over
// the CTAs; printed and written as rows `stamps,<protocol>,<shape>,M,D,F,q,<tile>,<replay µs>,` then
// the slots' median and latest, in slot order: each the median over the trials. Only a build
// configured with -DQALG_WS_STAMPS=ON has the stamps (kernels.hpp set_ws_stamps); other builds refuse.
#include <algorithm>

#include "bench_calibrated.hpp"

namespace qalg::bench {

inline void Bench::stamps(const std::string& name, int D, int F, int M, int q) {
  if (!gpu::ws_stamps_compiled())
    throw std::invalid_argument("stamps: this build has no stamps (configure gpu/ with -DQALG_WS_STAMPS=ON)");
  constexpr size_t kSlots = 16, kCtas = 4096;  // (wgs_gemm.cuh kWsStampSlots; a persistent grid: at most the resident CTAs)
  with_calibrated_tile(D, F, M, q, [&](const CalibratedTile& c) {
    Buf st(kCtas, kSlots, 8);
    const std::string& tile = c.tile;
    const double err = c.err;
    const bool pass = c.pass;
    auto* stamps = static_cast<unsigned long long*>(st.p);
    gpu::set_ws_stamps(stamps);  // captured with the tile's graph
    GraphCall ga(s_, c.call);
    gpu::set_ws_stamps(nullptr);
    GraphCall gd(s_, c.dense);
    std::vector<unsigned long long> host(kCtas * kSlots);
    static const char* const kSlotNames[kSlots] = {
        "entry", "dep-wait", "item", "issued", "landed", "done", "stored", "prod-end",
        "steps", "stage", "barriers", "prod-start", "cons-start", "(13)", "(14)", "(15)"};
    struct Protocol {
      const char* name;
      bool after_dense, flush;
    };
    for (const Protocol& p : {Protocol{"alone", false, false}, Protocol{"after-dense", true, false},
                              Protocol{"after-dense-flushed", true, true}}) {
      std::vector<double> replay;
      std::vector<std::vector<double>> med(kSlots), late(kSlots);
      size_t ctas = 0;
      for (int trial = -1; trial < o_.trials; ++trial) {  // trial -1: a warm-up, not kept
        if (p.after_dense) timer_->once(gd, p.flush);
        ok(cudaMemsetAsync(st.p, 0, host.size() * sizeof(host[0]), s_), "stamps");
        const double us = timer_->once(ga, p.flush);
        ok(cudaMemcpy(host.data(), st.p, host.size() * sizeof(host[0]), cudaMemcpyDeviceToHost), "stamps");
        if (trial < 0) continue;
        ctas = 0;
        while (ctas < kCtas && host[ctas * kSlots] != 0) ++ctas;
        if (ctas == 0)
          throw std::runtime_error("stamps: tile " + tile +
                                   " wrote no stamps (only the warp-specialised forward has them)");
        unsigned long long t0 = host[0];
        for (size_t c = 0; c < ctas; ++c) t0 = std::min(t0, host[c * kSlots]);
        for (size_t s = 0; s < kSlots; ++s) {
          std::vector<double> v;
          for (size_t c = 0; c < ctas; ++c)
            if (host[c * kSlots + s] != 0) v.push_back(double(host[c * kSlots + s] - t0) * 1e-3);
          if (v.empty()) continue;  // (a slot this tile's path does not pass)
          std::sort(v.begin(), v.end());
          med[s].push_back(v[v.size() / 2]), late[s].push_back(v.back());
        }
        replay.push_back(us);
      }
      auto median = [](std::vector<double> v) {
        if (v.empty()) return -1.0;
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
      };
      csv_ << "stamps," << p.name << ',' << name << ',' << M << ',' << D << ',' << F << ',' << q << ','
           << tile << ',' << median(replay);
      std::printf("stamps %-22s %-22s %-20s %zu CTAs, replay %.1f us, err %.1e %s\n", name.c_str(),
                  tile.c_str(), p.name, ctas, median(replay), err, pass ? "" : "FAIL");
      for (size_t s = 0; s < kSlots; ++s) {
        csv_ << ',' << median(med[s]) << ',' << median(late[s]);
        std::printf("  %-9s median %6.2f us, latest %6.2f us (from the first CTA's entry)\n", kSlotNames[s],
                    median(med[s]), median(late[s]));
      }
      csv_ << '\n';
    }
  });
}

}  // namespace qalg::bench
