#pragma once
// The cases of qalg_gpu_bench: projections, gated FFN, training step, square block products.
// Each case builds its plan by lowering a table file (qalg table complete:q --out DIR/complete_q.json),
// times the dense peer and the algebraic kernels, checks the algebraic output against the cuBLAS
// reference built from the table, and writes one CSV row.
#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "gpu/table_builders.hpp"
#include "gpu_timing.hpp"
#include "qalg/gpu/cuda_bench_support.hpp"
#include "qalg/gpu/cuda_dense_reference.hpp"
#include "qalg/gpu/kernels.hpp"
#include "shortlist.hpp"
#include "qalg/gpu/lowering.hpp"
#include "qalg/gpu/table_data.hpp"

namespace qalg::bench {

using gpu::DeviceMatrix;
using gpu::DType;

struct Options {
  std::string tables = ".gpu-carry/tables", out = "gpu_bench.csv", suite = "table";
  int trials = 30;
  uint32_t hold_us = 20;  // the held warm protocol's hold (QALG_BENCH_HOLD_US; Timer::set_hold_us)
};
// QALG_NARROW_FFN: -1 (unset) the FFN rows time the one-kernel FFN against the two kernels where
// it applies and keep the faster; 0 / 1 force the two kernels / the one kernel.
inline int g_bench_narrow_ffn = -1;
// (Thirty-fifth session; on by default since the thirty-sixth, =0 turns each off; bench_cases_run.hpp
// fused_variants and Bench::calibrate say why) QALG_BENCH_DESCENDING: the calibration also tries every
// warp-specialised tile with its items last first; QALG_CALIBRATE_ALTERNATING: its shortlist is timed
// alternating with the dense call. Together, since each needs the other: in one H100 call (thirty-sixth
// session, call 7) the table with both against without: of the 8 projections and 4 squares, 8 faster
// alternating warm (Qwen3-1.7B 25.6 -> 24.2 µs, DeepSeek-V3 31.2 -> 29.9, Qwen3-32B 164.4 -> 160.9,
// the square n = 32768 2687 -> 2557), 4 slower by 0.6-1.6 %; flushed, the projections within ±1.5 %
// but Qwen3-32B M = 8192 465.8 -> 428.0, the squares n >= 8192 2-3 % faster.
inline bool& descending_variants() {
  static bool on = true;
  return on;
}
inline bool& calibrate_alternating() {
  static bool on = true;
  return on;
}
// (Forty-first session; off by default, QALG_CALIBRATE_PARTS_ALTERNATING=1 turns it on) The forward
// tiles the FFN's down projection and the training rows calibrate for themselves (calibrate_forward:
// shapes no projection row picked first, e.g. every q = 32 down projection) are shortlisted alone,
// while their rows are timed alternating with dense. With this on, their shortlist is timed
// alternating with the same-shape dense GEMM (the FFN's dense down call, the training's dense
// forward), as the projections' is. Off until an A/B on a GPU says which protocol picks better there:
// the part runs after qalg's own gate/up in the FFN, not after a dense call, so neither protocol is
// the row's.
inline bool& calibrate_parts_alternating() {
  static bool on = false;
  return on;
}

// An owned BF16 (or FP32) device allocation.
struct Buf {
  void* p = nullptr;
  uint64_t rows = 0, cols = 0;
  size_t es = 2;
  Buf(uint64_t r, uint64_t c, size_t elem = 2) : rows(r), cols(c), es(elem) {
    ok(cudaMalloc(&p, std::max<size_t>(16, r * c * es)), "cudaMalloc");
  }
  ~Buf() { cudaFree(p); }
  Buf(const Buf&) = delete;
  Buf& operator=(const Buf&) = delete;
  DeviceMatrix m() const { return DeviceMatrix{p, DType::bf16, rows, cols}; }
  float* f() const { return static_cast<float*>(p); }
};

using Call = std::function<void(cudaStream_t)>;

// A forward variant's tiles and item order (the calibration's pick, kernels.hpp CalibrationEntry).
struct FusedPick {
  gpu::TileConfig tiles;
  gpu::WsItemOrder order = gpu::WsItemOrder::columns;
  bool descending = false;  // the items last first (set_ws_items_descending; "…-desc" variants)
};

class Bench {
 public:
  explicit Bench(Options o) : o_(std::move(o)) {
    ok(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), "stream");
    ok(cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking), "second stream");
    ok(cudaEventCreateWithFlags(&fork_, cudaEventDisableTiming), "fork event");
    ok(cudaEventCreateWithFlags(&join_, cudaEventDisableTiming), "join event");
    timer_ = std::make_unique<Timer>(s_);
    timer_->set_hold_us(o_.hold_us);
    cudaDeviceProp prop{};
    ok(cudaGetDeviceProperties(&prop, 0), "device properties");
    gpu_name_ = prop.name;
    l2_bytes_ = prop.l2CacheSize;
    csv_.open(o_.out);
    csv_ << "suite,kind,shape,M,D,F,q,variant,dense_impl,dense_warm_us,dense_warm_p10,dense_warm_p90,"
            "alg_warm_us,alg_warm_p10,alg_warm_p90,dense_flush_us,alg_flush_us,alg_flush_p10,"
            "alg_flush_p90,speedup_warm,speedup_flush,floor_us,floor_fraction_warm,rel_l2,check,gpu,"
            "dense_alone_us,alg_alone_us,speedup_alone,alg_before_dense_us,dense_held_us,alg_held_us,alg_held_p10,"
            "alg_held_p90,speedup_held,floor_fraction_held,late_replays\n";
  }
  int failures() const { return failures_; }

  void measure_ceilings() {
    const uint64_t n = uint64_t(1) << 30;  // 1 GiB copied: 2 GiB of traffic
    Buf a(n, 1, 1), b(n, 1, 1);
    GraphCall copy(s_, [&](cudaStream_t s) { ok(cudaMemcpyAsync(b.p, a.p, n, cudaMemcpyDeviceToDevice, s), "copy"); });
    GraphCall kcopy(s_, [&](cudaStream_t s) { gpu::device_copy(a.p, b.p, n, s); });
    // The better of cudaMemcpy and a 16-byte-vector copy kernel, counting bytes read + written.
    bw_ = 2.0 * n / (std::min(timer_->alone(copy, false, 10).median, timer_->alone(kcopy, false, 10).median) * 1e-6);
    {  // L2 read bandwidth: a third of the device's L2 (at most 16 MiB) read 32 times over by every
       // SM. A third ceiling, for the kernels whose L2-to-SM traffic (operand blocks read by many
       // CTAs) is several times their DRAM bytes: the square products and the wide-reduction gate/up.
      const uint64_t l2n = std::min<uint64_t>(uint64_t(16) << 20, uint64_t(l2_bytes_) / 3) / 16 * 16;
      const int passes = 32;
      Buf src(l2n, 1, 1), sum(8, 1, 1);
      gpu::fill_random_bf16(src.p, l2n / 2, 3, 1.0f, s_);
      auto* acc = static_cast<unsigned long long*>(sum.p);
      GraphCall l2(s_, [&](cudaStream_t s) { gpu::device_l2_read(src.p, l2n, passes, acc, s); });
      l2_bw_ = double(l2n) * passes / (timer_->alone(l2, false, 10).median * 1e-6);
      l2_read_bytes_ = l2n;
    }
    const int d = 8192;
    Buf x(d, d), w(d, d), y(d, d);
    gpu::fill_random_bf16(x.p, uint64_t(d) * d, 1, 1.0f, s_);
    gpu::fill_random_bf16(w.p, uint64_t(d) * d, 2, 1.0f / 90.5f, s_);
    std::string impl;
    auto call = dense_best(d, d, d, false, false, x.p, w.p, y.p, impl);
    GraphCall g(s_, call);
    rate_ = 2.0 * d * d * double(d) / (timer_->alone(g, false, 10).median * 1e-6);
    std::cout << "# GPU " << gpu_name_ << ": copy " << bw_ / 1e12 << " TB/s (read+write), bf16 GEMM "
              << rate_ / 1e12 << " TFLOP/s (" << impl << "), L2 read " << l2_bw_ / 1e12 << " TB/s ("
              << l2_read_bytes_ / 1048576.0 << " MiB of the " << l2_bytes_ / 1048576.0 << " MiB L2)\n";
    // Ceiling rows: the value sits in the dense_warm_us column.
    csv_ << "ceiling,copy_bandwidth_TBps," << gpu_name_ << ",,,,,,," << bw_ / 1e12 << ",,,,,,,,,,,,,,,,,,,,\n";
    csv_ << "ceiling,bf16_gemm_TFLOPs," << gpu_name_ << ",,,,,,," << rate_ / 1e12 << ",,,,,,,,,,,,,,,,,,,,\n";
    csv_ << "ceiling,l2_read_TBps," << gpu_name_ << ",,,,,,," << l2_bw_ / 1e12 << ",,,,,,,,,,,,,,,,,,,,\n";
  }

  // interval: types τ(p) = ⌊p / (M/q)⌋ (each type's rows consecutive) instead of cyclic (a probe).
  void projection(const std::string& name, int D, int F, int M, int q, const std::string& suite, bool interval = false);
  void ffn(const std::string& name, int D, int F, int M, int q);
  void training(const std::string& name, int D, int F, int M, int q);
  // dense: the same-shape dense GEMM, for an alternating shortlist (calibrate_parts_alternating).
  void calibrate_forward(const gpu::DevicePlan& plan, const gpu::DeviceBatch& batch, const Buf& X, const Buf& W,
                         const Buf& Y, uint64_t K, uint64_t N, uint32_t q, uint64_t M, const Call* dense = nullptr);
  void square(int n, int b);
  // The narrow kernel's memory pattern alone (suite `segments`, twenty-seventh session): its Y-like
  // 64-row tiles of seg bytes per row at Qwen3-32B's 51 200-byte pitch, copied, against a contiguous
  // copy of the same bytes (gpu::device_tile_copy), `ahead` tiles' loads in flight per CTA.
  // strided: the row block's CTAs take its tiles in the strided order (set_narrow_unit_order);
  // runs: CTAs per row block (3: the kernel at M = 8192; 16: its runs at M = 32768).
  void segments(uint32_t seg_bytes, uint32_t ahead, bool strided = false, uint32_t runs = 3);
  // (thirty-fourth session) Which operand's L2 residue the projection gains from: its calibrated
  // tile timed alternating with each of several preceding calls (the dense GEMM on the same X and W;
  // a read-only pass over X, over W, over both in either order; itself, i.e. alone; the dense GEMM
  // with the L2 flushed). Why: the Triton peer ran DeepSeek-V3 in 23.2 µs after the dense call and
  // 25.2 alone, qalg in 25.1 and 24.1. Rows `residue,<preceding>,<shape>,…` (bench_residue.hpp).
  // The residue and stamps suites' set-up (bench_calibrated.hpp): the projection's operands, its
  // dense call, its tile calibrated as the table's and run once against the reference; then
  // body(CalibratedTile&).
  struct CalibratedTile;
  template <typename Body>
  void with_calibrated_tile(int D, int F, int M, int q, Body&& body);
  void residue(const std::string& name, int D, int F, int M, int q);
  // (forty-fifth session) Why the gated FFN decodes miss the paper warm but not alone (8.8 against
  // 8.0 µs for Qwen3-1.7B): qalg's decode timed alternating with the dense decode (the table's
  // protocol); with the dense decode then one of qalg's (its blocks back in L2, the rest as after
  // dense); with a read-only pass over dense's weights (the L2 stream without dense's work); with
  // that pass then one decode of qalg's; and alone. Rows
  // `residue,decode:<preceding>,<shape>,1,…` (bench_residue.hpp).
  void decode_residue(const std::string& name, int D, int F);
  // (thirty-seventh session) The calibrated tile's start and end CTA by CTA: its kernel's
  // %globaltimer stamps (a QALG_WS_STAMPS build only) alone, after dense, after dense flushed
  // (bench_stamps.hpp).
  void stamps(const std::string& name, int D, int F, int M, int q);
  // The ablate suite (bench_ablate.hpp): one shape's warp-specialised tiles timed whole, with their
  // copies, wgmma or stores left out, and with TMA stores.
  void ablate(const std::string& name, int D, int F, int M, int q, bool interval);
  // What a graph replay of an empty kernel costs (1 CTA, and 4 per SM), and cudaMemset's write
  // bandwidth: printed, and as ceiling rows.
  void launch_probe();
  // The empty replay alone (table suite: issue7_targets.py bounds target 2's floor fractions by it).
  void null_kernel_probe();
  // set_row_formula off against on (warm medians of 10, printed only): forward on the wg_gemm
  // tiles, and dX / dW on the wm and wl engines; with n > 0 the square product of size n instead.
  void row_formula_probe(const std::string& name, int D, int F, int M, int q, int n = 0);

 private:
  // The table file written by `qalg table complete:q`; without one, the hand-built Q_q table of
  // the tests (tests/gpu/table_builders.hpp), and the run says so.
  gpu::TableData table(int q) const {
    const auto path = std::filesystem::path(o_.tables) / ("complete_" + std::to_string(q) + ".json");
    if (std::filesystem::exists(path)) return gpu::read_table_data(path.string());
    std::cout << "# no " << path.string() << ": using the test builder for complete:" << q << "\n";
    return gpu::test::complete_table(uint32_t(q));
  }
  // The faster of cuBLAS and the cuBLASLt heuristic candidates for row-major C = op(A) op(B).
  Call dense_best(int M, int N, int K, bool ta, bool tb, const void* A, const void* B, void* C,
                  std::string& impl) {
    Call best = [=, this](cudaStream_t s) { dense_.blas_gemm(s, A, B, C, M, N, K, ta, tb); };
    impl = "cublas";
    double best_t;
    {
      GraphCall g(s_, best);
      best_t = timer_->alone(g, false, 5).median;
    }
    lt_plans_.push_back(std::make_unique<DenseGemm::LtPlan>(dense_.lt_plan(M, N, K, ta, tb)));
    const DenseGemm::LtPlan* p = lt_plans_.back().get();
    for (size_t a = 0; a < p->algos.size(); ++a) {
      Call c = [=, this](cudaStream_t s) { dense_.lt_gemm(s, *p, a, A, B, C); };
      try {
        GraphCall g(s_, c);
        const double t = timer_->alone(g, false, 5).median;
        if (t < best_t) best_t = t, best = c, impl = "cublasLt#" + std::to_string(a);
      } catch (const std::exception&) {  // a candidate that fails to run is skipped
        cudaGetLastError();
      }
    }
    return best;
  }
  // Picks the fastest variant — the per-shape calibration. Pass 1: warm medians of 10 for every
  // variant, one after the other. Single passes varied by 10-20 % between runs for the same
  // kernel (the Qwen3-32B M = 8192 pick flipped between 64x128w4 at 523 µs and ws64x128 at
  // 684 µs), so pass 2 re-times the three fastest interleaved, 5 rounds of 6 runs each, so that
  // clock and thermal drift falls on all of them alike, and picks by the median of round medians.
  //
  // (Thirty-fifth session) With calibrate_alternating() on and the shape's dense call given, pass 2
  // times its shortlist (shortlist.hpp: the fastest of each of the four fastest tiles, then the
  // fastest others, eight in all)
  // alternating with that call (warm), the protocol of the table's headline columns, instead of
  // alone. Why: a tile faster alone can be slower there — the squares' ws128x128 ran n = 32768 in
  // 1820 µs alone and 2237 alternating (median), where wsl64x128 ran 2015 (H200, thirty-fourth and
  // thirty-fifth sessions' tables); on DeepSeek-V3 (H100) ws128x128 2-3 % behind ws64x128-types
  // alternating.
  size_t calibrate(const std::vector<std::pair<std::string, Call>>& variants, const Call* dense = nullptr) {
    if (variants.empty()) throw std::invalid_argument("calibrate: no variant to time (QALG_BENCH_VARIANTS left none)");
    std::vector<std::pair<double, size_t>> first;
    std::vector<std::unique_ptr<GraphCall>> graphs;
    for (size_t v = 0; v < variants.size(); ++v) {
      graphs.push_back(std::make_unique<GraphCall>(s_, variants[v].second));
      const double t = timer_->alone(*graphs.back(), false, 10).median;
      std::printf("  calibrate %-22s %9.1f us\n", variants[v].first.c_str(), t);
      first.push_back({t, v});
    }
    std::sort(first.begin(), first.end());
    if (first.size() == 1) return first[0].second;
    const bool alternating = dense && calibrate_alternating();
    std::vector<std::string> sorted_names;
    for (const auto& f : first) sorted_names.push_back(variants[f.second].first);
    const std::vector<size_t> picked = shortlist(sorted_names, alternating);  // positions in `first`
    const size_t n = picked.size();
    std::vector<std::vector<double>> rounds(n);
    std::unique_ptr<GraphCall> gd;
    int runs = 6;
    if (alternating) {
      gd = std::make_unique<GraphCall>(s_, *dense);
      if (timer_->once(*gd, false) > 10000) runs = 3;  // the squares' dense call at n = 32768 takes ~100 ms
    }
    for (int r = 0; r < 5; ++r)
      for (size_t c = 0; c < n; ++c)
        rounds[c].push_back(gd ? timer_->alternate(*gd, *graphs[first[picked[c]].second], false, runs).second.median
                               : timer_->alone(*graphs[first[picked[c]].second], false, runs).median);
    size_t best = first[0].second;
    double best_t = 1e30;
    for (size_t c = 0; c < n; ++c) {
      std::sort(rounds[c].begin(), rounds[c].end());
      const double t = rounds[c][rounds[c].size() / 2];
      std::printf("  shortlist %-22s %9.1f us%s\n", variants[first[picked[c]].second].first.c_str(), t, gd ? " (alternating)" : "");
      if (t < best_t) best_t = t, best = first[picked[c]].second;
    }
    return best;
  }
  void row(const std::string& suite, const std::string& kind, const std::string& shape, int M, int D,
           int F, int q, const std::string& variant, const std::string& dense_impl, const Call& dense,
           const Call& alg, double floor_us, double rel_l2, double tol) {
    // The algebraic graph first, timed alone before the dense call runs at all (the dense graph's
    // construction runs it twice): the sixth session measured `before` after those two runs.
    GraphCall ga(s_, alg);
    int trials = o_.trials;
    const int alone_trials = std::min(trials, 10);
    const Stats before = timer_->alone(ga, false, alone_trials);
    GraphCall gd(s_, dense);
    if (timer_->once(gd, false) > 10000) trials = std::min(trials, 7);
    const auto [dw, aw] = timer_->alternate(gd, ga, false, trials);
    // (Forty-fourth session) The same alternating warm trials, each replay behind a hold (Timer::
    // set_hold_us): the GPU's time without the wait for the host's graph launch, as the flushed
    // trials already were. late_replays: held or flushed replays the hold or memset did not cover.
    timer_->reset_late();
    const auto [dh, ah] = timer_->alternate(gd, ga, false, trials, true);
    const auto [df, af] = timer_->alternate(gd, ga, true, trials);
    const int late = timer_->late();
    // Each call alone (warm medians of back-to-back replays): the Triton peer's own protocol, so its
    // figures compare like with like. Sixth session, square n = 32768: alone 3671 µs, alternating
    // 3700, but 2743-2776 in the calibration phase just before (same kernel, same buffers), which
    // runs before any of the row's dense trials; `before` times it alone again before them, and
    // gpu_bench.sh samples the clocks. The alternating figures stay the headline (the paper's protocol).
    const Stats da = timer_->alone(gd, false, alone_trials), aa = timer_->alone(ga, false, alone_trials);
    const bool pass = rel_l2 <= tol;  // NaN fails
    failures_ += !pass;
    std::ostringstream r;
    r << suite << ',' << kind << ',' << shape << ',' << M << ',' << D << ',' << F << ',' << q << ','
      << variant << ',' << dense_impl << ',' << dw.median << ',' << dw.p10 << ',' << dw.p90 << ','
      << aw.median << ',' << aw.p10 << ',' << aw.p90 << ',' << df.median << ',' << af.median << ','
      << af.p10 << ',' << af.p90 << ',' << dw.median / aw.median << ',' << df.median / af.median << ','
      << floor_us << ',' << floor_us / aw.median << ',' << rel_l2 << ',' << (pass ? "pass" : "FAIL")
      << ',' << gpu_name_ << ',' << da.median << ',' << aa.median << ',' << da.median / aa.median << ',' << before.median << ','
      << dh.median << ',' << ah.median << ',' << ah.p10 << ',' << ah.p90 << ',' << dh.median / ah.median << ','
      << floor_us / ah.median << ',' << late;
    csv_ << r.str() << '\n';
    csv_.flush();
    const std::time_t now = std::time(nullptr);
    char clock[16];
    std::strftime(clock, sizeof clock, "%H:%M:%S", std::gmtime(&now));  // beside gpu_bench.sh's clock samples
    std::printf("%-6s %-9s %-26s M=%-5d q=%-3d %-22s dense %9.1f alg %9.1f us  x%5.2f/%5.2f  floor %.2f  held %.1f/%.1f x%.2f%s  alone %.1f/%.1f x%.2f  before %.1f  err %.1e %s %s\n",
                suite.c_str(), kind.c_str(), shape.c_str(), M, q, variant.c_str(), dw.median, aw.median,
                dw.median / aw.median, df.median / af.median, floor_us / aw.median, dh.median, ah.median,
                dh.median / ah.median, late ? (" (" + std::to_string(late) + " late)").c_str() : "", da.median,
                aa.median, da.median / aa.median, before.median, rel_l2, pass ? "" : "FAIL", clock);
    std::fflush(stdout);
  }
  // A forward pick kept for later rows of the same shape (training, FFN): forward() looks it up.
  void remember_forward(uint64_t K, uint64_t N, uint32_t q, uint64_t M, const FusedPick& pick) {
    std::erase_if(calib_, [&](const gpu::CalibrationEntry& e) { return e.K == K && e.N == N && e.q == q && e.M == M; });
    gpu::CalibrationEntry e;
    e.K = K, e.N = N, e.q = q, e.M = M, e.tiles = pick.tiles, e.order = pick.order, e.descending = pick.descending;
    calib_.push_back(e);
  }
  double floor_us(double flops, double bytes) const { return std::max(flops / rate_, bytes / bw_) * 1e6; }

  Options o_;
  cudaStream_t s_ = nullptr;
  std::unique_ptr<Timer> timer_;
  DenseGemm dense_;
  std::vector<std::unique_ptr<DenseGemm::LtPlan>> lt_plans_;
  std::vector<gpu::CalibrationEntry> calib_;  // this run's forward picks (remember_forward)
  // Dense dX ‖ dW (training rows): a second stream forked from s_ and joined back, as qalg's backward().
  cudaStream_t side_ = nullptr;
  cudaEvent_t fork_ = nullptr, join_ = nullptr;
  std::ofstream csv_;
  std::string gpu_name_;
  double bw_ = 0, rate_ = 0, l2_bw_ = 0;  // l2_bw_: reported, not in floor_us (the floor stays DRAM and matrix rate)
  int l2_bytes_ = 0;                        // the device's L2 (cudaDeviceProp::l2CacheSize)
  uint64_t l2_read_bytes_ = 0;              // the probe's buffer
  int failures_ = 0;
};

}  // namespace qalg::bench
