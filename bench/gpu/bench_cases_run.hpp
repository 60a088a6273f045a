#pragma once
// Bodies of the benchmark cases (bench_cases.hpp).
#include <cmath>
#include <cstdlib>

#include "bench_cases.hpp"

namespace qalg::bench {

namespace detail {
inline uint64_t used_weight_elems(const gpu::KernelPlan& p) {
  uint64_t n = 0;
  for (uint32_t k = 0; k < p.q; ++k)
    for (uint32_t j = 0; j < p.q; ++j)
      if (p.block_used.empty() || p.block_used[size_t(k) * p.q + j]) n += uint64_t(p.input_widths[k]) * p.output_widths[j];
  return n;
}
inline double plan_flops(const gpu::KernelPlan& p, const std::vector<uint32_t>& types) {
  double f = 0;
  for (uint32_t t : types) f += 2.0 * double(p.macs_per_row(t));
  return f;
}
inline std::vector<uint32_t> same(int q, int w) { return std::vector<uint32_t>(q, uint32_t(w)); }
}  // namespace detail

// The warp-specialised engines, whose items can be walked in either order (set_ws_item_order).
inline bool orders_items(gpu::TileEngine e) {
  return e == gpu::TileEngine::wgmma_ws || e == gpu::TileEngine::wgmma_ws_resident ||
         e == gpu::TileEngine::wgmma_ws_lean || e == gpu::TileEngine::wgmma_ws_pair;
}

// The endpoint-fused tile shapes compiled for this plan, each a candidate of the calibration; the
// warp-specialised ones also in the type-outer item order ("…-types"; the twentieth session found
// it 1-5 % faster on most shapes and up to 6 % slower on Qwen3-32B, so the order is picked per
// shape). Unless QALG_WS_ORDER set types for every kernel: then each tile runs only in that order.
// (Thirty-fifth session) with descending_variants() on (the default; the bench's QALG_BENCH_DESCENDING=0
// turns it off), each of those also with its items last first ("…-desc"; set_ws_items_descending:
// Qwen3-8B 2 % faster so, Qwen3-4B and Qwen3-32B slower), unless QALG_WS_DESCENDING=1 set that for
// every kernel. Alone they cost: in the thirty-fifth session's table with them (H200) 8B gained
// 51.8 -> 50.8 µs, but the calibration, picking alone, took slower tiles for the squares (n = 32768
// 2237 against 2015 µs); so they come with the alternating calibration (bench_cases.hpp).
inline std::vector<std::pair<std::string, Call>> fused_variants(const gpu::DevicePlan& plan, const gpu::DeviceBatch& batch,
                                                                const Buf& X, const Buf& W, const Buf& Y,
                                                                std::vector<FusedPick>* picks = nullptr) {
  std::vector<std::pair<std::string, Call>> v;
  const gpu::WsItemOrder process_order = gpu::ws_item_order();
  const bool process_descending = gpu::ws_items_descending();
  for (gpu::TileConfig tc : gpu::forward_tiles_for_vector_width(plan.vector_width())) {
    // The narrow-group law tile runs as itself only on its plans (elsewhere it is 64x128w4 again).
    if (tc.engine == gpu::TileEngine::narrow_law && !gpu::narrow_law_applies(batch)) continue;
    // The paired tiles likewise (elsewhere they are the lean tile of their shape, already a variant).
    if (tc.engine == gpu::TileEngine::wgmma_ws_pair && !gpu::paired_tiles_apply(batch, tc)) continue;
    // And the group-pair tiles (elsewhere ws128x64, a variant of its own).
    if (tc.engine == gpu::TileEngine::wgmma_ws_group_pairs && !gpu::group_pair_tiles_apply(batch, tc)) continue;
    // And the row-pair tiles (elsewhere ws64x128).
    if (tc.engine == gpu::TileEngine::wgmma_ws_row_pairs && !gpu::row_pair_tiles_apply(batch, tc)) continue;
    std::vector<gpu::WsItemOrder> orders{process_order};
    if (orders_items(tc.engine) && process_order == gpu::WsItemOrder::columns) orders.push_back(gpu::WsItemOrder::types);
    std::vector<bool> directions{process_descending};
    if (orders_items(tc.engine) && !process_descending && descending_variants()) directions.push_back(true);
    for (gpu::WsItemOrder order : orders)
      for (bool desc : directions) {
        const std::string name = "fused-" + gpu::tile_name(tc) +
                                 (order == gpu::WsItemOrder::types && orders.size() > 1 ? "-types" : "") +
                                 (desc && directions.size() > 1 ? "-desc" : "");
        // QALG_BENCH_VARIANTS=a,b,… keeps only those variants (profiling one kernel under ncu).
        if (const char* only = std::getenv("QALG_BENCH_VARIANTS");
            only && ("," + std::string(only) + ",").find("," + name + ",") == std::string::npos)
          continue;
        if (picks) picks->push_back({tc, order, desc});
        v.push_back({name, [&, tc, order, desc, process_order, process_descending](cudaStream_t s) {
                       gpu::set_forward_tiles(tc);
                       gpu::set_ws_item_order(order);  // read while the call is captured or run, then restored
                       gpu::set_ws_items_descending(desc);
                       gpu::forward(batch, gpu::ForwardSchedule::endpoint_fused, X.m(), W.m(), Y.m(), nullptr, s);
                       gpu::set_ws_item_order(process_order);
                       gpu::set_ws_items_descending(process_descending);
                     }});
      }
  }
  return v;
}

inline void Bench::projection(const std::string& name, int D, int F, int M, int q, const std::string& suite,
                              bool interval) {
  if (D % q || F % q || (D / q) % 4 || (F / q) % 4) {
    std::printf("skip %s q=%d: widths %d/%d not multiples of 4\n", name.c_str(), q, D / q, F / q);
    return;
  }
  const gpu::TableData t = table(q);
  gpu::DevicePlan plan(gpu::lower_table(t, detail::same(q, D / q), detail::same(q, F / q)));
  const auto types = interval ? gpu::interval_types(M, q, M / q) : gpu::cyclic_types(M, q);
  gpu::DeviceBatch batch(plan, types);
  Buf X(M, D), W(D, F), Y(M, F), Yd(M, F), ref(M, F, 4);
  std::unique_ptr<Buf> ws;
  gpu::fill_random_bf16(X.p, uint64_t(M) * D, 11, 1.0f, s_);
  gpu::fill_random_bf16(W.p, uint64_t(D) * F, 12, 1.0f / std::sqrt(float(D)), s_);
  ok(cudaStreamSynchronize(s_), "fill");
  std::string impl;
  const Call dense = dense_best(M, F, D, false, false, X.p, W.p, Yd.p, impl);
  std::vector<std::pair<std::string, Call>> variants;
  std::vector<FusedPick> tiles;
  gpu::use_forward_calibration({});  // the variants run with their own tiles, not a remembered pick
  if (M == 1) {
    variants.push_back({"decode:" + gpu::decode_shape_name(gpu::decode_shape(plan, 0, 1)),
                        [&](cudaStream_t s) { gpu::decode(plan, 0, X.m(), W.m(), Y.m(), s); }});
  } else {
    variants = fused_variants(plan, batch, X, W, Y, &tiles);
    ws = std::make_unique<Buf>(M, F, 4);
    variants.push_back({"diagonal-first", [&](cudaStream_t s) {
                          gpu::forward(batch, gpu::ForwardSchedule::diagonal_first, X.m(), W.m(), Y.m(), ws->f(), s);
                        }});
  }
  const size_t best = calibrate(variants, &dense);
  if (best < tiles.size()) remember_forward(D, F, q, M, tiles[best]);
  gpu::use_forward_calibration(calib_);
  // Check the chosen variant against the table's dense reference on the same data.
  ok(cudaMemset(Y.p, 0xff, Y.rows * Y.cols * 2), "poison");
  variants[best].second(s_);
  ok(cudaStreamSynchronize(s_), "run");
  gpu::CudaDenseReference r(t, detail::same(q, D / q), detail::same(q, F / q));
  const std::vector<uint32_t> ref_types = M == 1 ? std::vector<uint32_t>{0} : types;
  r.forward(ref_types, X.m(), W.m(), ref.f());
  const double err = gpu::rel_l2_bf16(Y.p, ref.f(), uint64_t(M) * F);
  const double fl = detail::plan_flops(plan.plan(), ref_types);
  const double bytes = 2.0 * (double(M) * D + double(detail::used_weight_elems(plan.plan())) + double(M) * F);
  // Decode reads only the W blocks of one type: flops/2 MACs, one weight element each.
  const double floor = M == 1 ? floor_us(fl, 2.0 * (D + F) + fl)
                              : floor_us(fl, bytes);
  row(suite, M == 1 ? "decode" : "projection", name, M, D, F, q, variants[best].first, impl, dense,
      variants[best].second, floor, err, 1e-2);
  gpu::set_forward_tiles({64, 128, 5, gpu::TileEngine::wgmma_ws});  // the process default
}

// The forward tile for (K, N, q, M), calibrated on these buffers unless this run already picked
// one (a projection row of the same shape): later forward() calls of the shape use it.
inline void Bench::calibrate_forward(const gpu::DevicePlan& plan, const gpu::DeviceBatch& batch, const Buf& X,
                                     const Buf& W, const Buf& Y, uint64_t K, uint64_t N, uint32_t q, uint64_t M,
                                     const Call* dense) {
  if (gpu::find_calibration(K, N, q, M)) return;
  gpu::use_forward_calibration({});
  std::vector<FusedPick> tiles;
  const auto variants = fused_variants(plan, batch, X, W, Y, &tiles);
  // QALG_BENCH_VARIANTS may leave none for this plan (a narrow-law tile where the law does not
  // apply): then forward() keeps its default tiles, as without a calibration.
  if (variants.empty()) {
    std::printf("  calibrate: no variant left for K=%llu N=%llu q=%u M=%llu, default tiles\n", (unsigned long long)K,
                (unsigned long long)N, q, (unsigned long long)M);
    gpu::use_forward_calibration(calib_);
    return;
  }
  const size_t best = calibrate(variants, calibrate_parts_alternating() ? dense : nullptr);
  if (best < tiles.size()) remember_forward(K, N, q, M, tiles[best]);
  gpu::use_forward_calibration(calib_);
  gpu::set_forward_tiles({64, 128, 5, gpu::TileEngine::wgmma_ws});  // the process default
}

namespace detail {
// The gated FFN's operands (X is M × D, Wg and Wu D × F, Wd F × D, Wgu dense's D × 2F), filled with
// the same seeds in every suite, so that rows of different suites time the same numbers.
inline void fill_ffn_operands(const Buf& X, const Buf& Wg, const Buf& Wu, const Buf& Wd, const Buf& Wgu,
                              cudaStream_t s) {
  const uint64_t M = X.rows, D = X.cols, F = Wg.cols;
  gpu::fill_random_bf16(X.p, M * D, 21, 1.0f, s);
  gpu::fill_random_bf16(Wg.p, D * F, 22, 1.0f / std::sqrt(float(D)), s);
  gpu::fill_random_bf16(Wu.p, D * F, 23, 1.0f / std::sqrt(float(D)), s);
  gpu::fill_random_bf16(Wd.p, F * D, 24, 1.0f / std::sqrt(float(F)), s);
  gpu::fill_random_bf16(Wgu.p, D * 2 * F, 25, 1.0f / std::sqrt(float(D)), s);
  ok(cudaStreamSynchronize(s), "fill");
}

// The gated FFN's check (its rows' rel_l2): gate and up through the dense reference, SiLU·u on the
// host, down on the kernel's H; the larger of H's and Y's relative L2 errors. X is rows × D.
inline double ffn_rel_l2(const gpu::TableData& t, int q, const std::vector<uint32_t>& rt, const Buf& X,
                         const Buf& Wg, const Buf& Wu, const Buf& Wd, const Buf& H, const Buf& Y) {
  const int M = int(X.rows), D = int(X.cols), F = int(Wg.cols);
  gpu::CudaDenseReference ru(t, same(q, D / q), same(q, F / q));
  gpu::CudaDenseReference rd(t, same(q, F / q), same(q, D / q));
  Buf g(M, F, 4), u(M, F, 4), yr(M, D, 4);
  ru.forward(rt, X.m(), Wg.m(), g.f());
  ru.forward(rt, X.m(), Wu.m(), u.f());
  std::vector<float> gv(uint64_t(M) * F), uv(gv.size());
  ok(cudaMemcpy(gv.data(), g.p, gv.size() * 4, cudaMemcpyDeviceToHost), "download");
  ok(cudaMemcpy(uv.data(), u.p, uv.size() * 4, cudaMemcpyDeviceToHost), "download");
  for (size_t e = 0; e < gv.size(); ++e) gv[e] = gv[e] / (1.0f + std::exp(-gv[e])) * uv[e];
  ok(cudaMemcpy(g.p, gv.data(), gv.size() * 4, cudaMemcpyHostToDevice), "upload");
  const double eh = gpu::rel_l2_bf16(H.p, g.f(), gv.size());
  rd.forward(rt, H.m(), Wd.m(), yr.f());
  return std::max(eh, gpu::rel_l2_bf16(Y.p, yr.f(), uint64_t(M) * D));
}
}  // namespace detail

inline void Bench::ffn(const std::string& name, int D, int F, int M, int q) {
  const gpu::TableData t = table(q);
  gpu::DevicePlan up(gpu::lower_table(t, detail::same(q, D / q), detail::same(q, F / q)));
  gpu::DevicePlan down(gpu::lower_table(t, detail::same(q, F / q), detail::same(q, D / q)));
  const auto types = gpu::cyclic_types(M, q);
  gpu::DeviceBatch bu(up, types), bd(down, types);
  Buf X(M, D), Wg(D, F), Wu(D, F), Wd(F, D), H(M, F), Y(M, D), Wgu(D, 2 * F), GU(M, 2 * F), Hd(M, F), Yd(M, D);
  detail::fill_ffn_operands(X, Wg, Wu, Wd, Wgu, s_);
  std::string i1, i2;
  const Call gu = dense_best(M, 2 * F, D, false, false, X.p, Wgu.p, GU.p, i1);
  const Call dn = dense_best(M, D, F, false, false, Hd.p, Wd.p, Yd.p, i2);
  const Call dense = [&, gu, dn](cudaStream_t s) {
    gu(s);
    gpu::dense_silu_mul_bf16(GU.p, Hd.p, M, F, s);
    dn(s);
  };
  if (M > 1) calibrate_forward(down, bd, Hd, Wd, Yd, F, D, q, M, &dn);  // the down projection's tile
  const Call alg = [&](cudaStream_t s) {
    if (M == 1) gpu::gated_ffn_decode(up, down, 0, X.m(), Wg.m(), Wu.m(), Wd.m(), H.m(), Y.m(), s);
    else gpu::gated_ffn(bu, bd, X.m(), Wg.m(), Wu.m(), Wd.m(), H.m(), Y.m(), s);
  };
  // The one-kernel FFN (narrow_ffn_applies) or the two kernels: warm medians of 10 each, alone,
  // twice in turn; the faster stays set for the row (QALG_NARROW_FFN forces one).
  bool one_kernel = false;
  if (M > 1 && gpu::narrow_ffn_applies(bu, bd)) {
    if (g_bench_narrow_ffn >= 0) {
      one_kernel = g_bench_narrow_ffn == 1;
    } else {
      double t[2] = {1e30, 1e30};
      for (int round = 0; round < 2; ++round)
        for (int mode : {0, 1}) {
          gpu::set_narrow_ffn(mode);
          GraphCall g(s_, alg);
          t[mode] = std::min(t[mode], timer_->alone(g, false, 10).median);
        }
      one_kernel = t[1] < t[0];
      std::printf("  ffn-fusion %s M=%d: one kernel %.1f us, two kernels %.1f us\n", name.c_str(), M, t[1], t[0]);
    }
  }
  gpu::set_narrow_ffn(one_kernel ? 1 : 0);
  ok(cudaMemset(Y.p, 0xff, Y.rows * Y.cols * 2), "poison");
  ok(cudaMemset(H.p, 0xff, H.rows * H.cols * 2), "poison");
  alg(s_);
  ok(cudaStreamSynchronize(s_), "run");
  const std::vector<uint32_t> rt = M == 1 ? std::vector<uint32_t>{0} : types;
  const double err = detail::ffn_rel_l2(t, q, rt, X, Wg, Wu, Wd, H, Y);
  {  // Where the time goes (warm medians of 10, each call alone): qalg's whole FFN and its down
     // projection alone (gate/up = the difference), and dense's three calls.
    const Call down_only = [&](cudaStream_t s) {
      if (M == 1) gpu::decode(down, 0, H.m(), Wd.m(), Y.m(), s);
      else gpu::forward(bd, gpu::ForwardSchedule::endpoint_fused, H.m(), Wd.m(), Y.m(), nullptr, s);
    };
    const Call silu = [&](cudaStream_t s) { gpu::dense_silu_mul_bf16(GU.p, Hd.p, M, F, s); };
    const Call parts[5] = {alg, down_only, gu, silu, dn};
    double us[5];
    for (int k = 0; k < 5; ++k) {
      GraphCall g(s_, parts[k]);
      us[k] = timer_->alone(g, false, 10).median;
    }
    std::printf("  parts ffn %s M=%d: qalg %.1f us%s (down %.1f, gate/up %.1f by difference); dense gate/up %.1f "
                "silu %.1f down %.1f us\n",
                name.c_str(), M, us[0],
                M == 1 && gpu::decode_fused_chunks(up, down, gpu::DType::bf16) != 0 ? " (one launch)"
                : gpu::narrow_ffn()                                                 ? " (one kernel)"
                                                                                    : "",
                us[1], us[0] - us[1], us[2], us[3], us[4]);
  }
  const double fl = 3.0 * detail::plan_flops(up.plan(), rt);
  // M = 1 reads only the blocks of one type: one 2-byte weight per MAC, i.e. `fl` bytes.
  const double by = M == 1 ? fl : 2.0 * (3.0 * double(detail::used_weight_elems(up.plan())) + 2.0 * M * (D + F));
  // The decode's tile column names its register shapes (cols x lanes x unroll), gate/up + down.
  // (The fused decode, set_decode_fused: "decode:fused-cC", C CTAs per output group.)
  const uint32_t fused = M == 1 ? gpu::decode_fused_chunks(up, down, gpu::DType::bf16) : 0;
  const std::string tile = fused != 0 ? "decode:fused-c" + std::to_string(fused)
                           : M == 1   ? "decode:" + gpu::decode_shape_name(gpu::decode_shape(up, 0, 2)) + "+" +
                                          gpu::decode_shape_name(gpu::decode_shape(down, 0, 1))
                           : one_kernel ? "one-kernel"
                                        : "fused";
  row("table", "ffn", name, M, D, F, q, tile, i1 + "+" + i2, dense, alg,
      floor_us(fl, by), err, 1e-2);
  gpu::set_narrow_ffn(g_bench_narrow_ffn == 0 ? 0 : 1);  // the library's default again
}

inline void Bench::training(const std::string& name, int D, int F, int M, int q) {
  const gpu::TableData t = table(q);
  gpu::DevicePlan plan(gpu::lower_table(t, detail::same(q, D / q), detail::same(q, F / q)));
  const auto types = gpu::cyclic_types(M, q);
  gpu::DeviceBatch batch(plan, types);
  Buf X(M, D), W(D, F), Y(M, F), dY(M, F), dX(M, D), dW(D, F), Yd(M, F), dXd(M, D), dWd(D, F);
  gpu::fill_random_bf16(X.p, uint64_t(M) * D, 31, 1.0f, s_);
  gpu::fill_random_bf16(W.p, uint64_t(D) * F, 32, 1.0f / std::sqrt(float(D)), s_);
  gpu::fill_random_bf16(dY.p, uint64_t(M) * F, 33, 1.0f, s_);
  ok(cudaStreamSynchronize(s_), "fill");
  std::string i1, i2, i3;
  const Call f = dense_best(M, F, D, false, false, X.p, W.p, Yd.p, i1);
  const Call bx = dense_best(M, D, F, false, true, dY.p, W.p, dXd.p, i2);
  const Call bw = dense_best(D, F, M, true, false, X.p, dY.p, dWd.p, i3);
  const Call dense_seq = [f, bx, bw](cudaStream_t s) { f(s), bx(s), bw(s); };
  // dX and dW are independent: both sides may run them on two streams (qalg: gpu::backward; dense:
  // the same fork/join around the two cuBLAS calls). Each side takes its faster form, timed below.
  const Call dense_par = [this, f, bx, bw](cudaStream_t s) {
    f(s);
    ok(cudaEventRecord(fork_, s), "fork");
    ok(cudaStreamWaitEvent(side_, fork_, 0), "fork wait");
    bw(side_);
    bx(s);
    ok(cudaEventRecord(join_, side_), "join");
    ok(cudaStreamWaitEvent(s, join_, 0), "join wait");
  };
  const Call alg_seq = [&](cudaStream_t s) {
    gpu::forward(batch, gpu::ForwardSchedule::endpoint_fused, X.m(), W.m(), Y.m(), nullptr, s);
    gpu::backward_dx(batch, dY.m(), W.m(), dX.m(), s);
    gpu::backward_dw(batch, X.m(), dY.m(), dW.m(), s);
  };
  const Call alg_par = [&](cudaStream_t s) {
    gpu::forward(batch, gpu::ForwardSchedule::endpoint_fused, X.m(), W.m(), Y.m(), nullptr, s);
    gpu::backward(batch, X.m(), dY.m(), W.m(), dX.m(), dW.m(), s);
  };
  Call alg = alg_seq, dense = dense_seq;
  std::string alg_form = "", dense_form = "";
  // Calibration of the three products for this shape: the forward tile (unless a projection row
  // of the same shape already picked one) and, for dX and dW each, the engine (wg: persistent
  // CTAs; wm: one CTA per tile, several per SM), the faster of warm medians of 10.
  calibrate_forward(plan, batch, X, W, Y, D, F, q, M, &f);
  gpu::BackwardEngines engines;
  {
    // cublas_batched: the complete-graph law's strided-batched cuBLAS GEMMs (batched_law.hpp); the
    // bench's rows are that law with cyclic types, so it applies to every training row.
    const gpu::TileEngine options[4] = {gpu::TileEngine::wgmma, gpu::TileEngine::wgmma_many,
                                        gpu::TileEngine::wgmma_many_lean, gpu::TileEngine::cublas_batched};
    double tx[4], tw[4];
    for (int e = 0; e < 4; ++e) {
      gpu::set_backward_engines({options[e], options[e]});
      GraphCall gx(s_, [&](cudaStream_t s) { gpu::backward_dx(batch, dY.m(), W.m(), dX.m(), s); });
      GraphCall gw(s_, [&](cudaStream_t s) { gpu::backward_dw(batch, X.m(), dY.m(), dW.m(), s); });
      tx[e] = timer_->alone(gx, false, 10).median;
      tw[e] = timer_->alone(gw, false, 10).median;
    }
    engines = {options[std::min_element(tx, tx + 4) - tx], options[std::min_element(tw, tw + 4) - tw]};
    gpu::set_backward_engines(engines);
    std::printf("  backward %s: dX wg %.1f wm %.1f wl %.1f cb %.1f us, dW wg %.1f wm %.1f wl %.1f cb %.1f us%s\n",
                name.c_str(), tx[0], tx[1], tx[2], tx[3], tw[0], tw[1], tw[2], tw[3],
                gpu::batched_backward_applies(batch) ? "" : " (cb: no batched form, wm ran)");
    GraphCall as(s_, alg_seq), ap(s_, alg_par), ds(s_, dense_seq), dp(s_, dense_par);
    const double t_as = timer_->alone(as, false, 10).median, t_ap = timer_->alone(ap, false, 10).median;
    const double t_ds = timer_->alone(ds, false, 10).median, t_dp = timer_->alone(dp, false, 10).median;
    if (t_ap < t_as) alg = alg_par, alg_form = "+2s";
    if (t_dp < t_ds) dense = dense_par, dense_form = "+2s";
    std::printf("  streams %s: qalg one %.1f two %.1f us, dense one %.1f two %.1f us\n", name.c_str(), t_as, t_ap,
                t_ds, t_dp);
  }
  for (Buf* b : {&Y, &dX, &dW}) ok(cudaMemset(b->p, 0xff, b->rows * b->cols * 2), "poison");
  alg(s_);
  ok(cudaStreamSynchronize(s_), "run");
  gpu::CudaDenseReference r(t, detail::same(q, D / q), detail::same(q, F / q));
  Buf ry(M, F, 4), rx(M, D, 4), rw(D, F, 4);
  r.forward(types, X.m(), W.m(), ry.f());
  r.grad_x(types, dY.m(), W.m(), rx.f());
  r.grad_w(types, X.m(), dY.m(), rw.f());
  const double err = std::max({gpu::rel_l2_bf16(Y.p, ry.f(), uint64_t(M) * F),
                               gpu::rel_l2_bf16(dX.p, rx.f(), uint64_t(M) * D),
                               gpu::rel_l2_bf16(dW.p, rw.f(), uint64_t(D) * F)});
  {  // Where the time goes: each of the three products alone (warm medians of 10), qalg and dense.
    const Call parts[6] = {
        [&](cudaStream_t s) { gpu::forward(batch, gpu::ForwardSchedule::endpoint_fused, X.m(), W.m(), Y.m(), nullptr, s); },
        [&](cudaStream_t s) { gpu::backward_dx(batch, dY.m(), W.m(), dX.m(), s); },
        [&](cudaStream_t s) { gpu::backward_dw(batch, X.m(), dY.m(), dW.m(), s); }, f, bx, bw};
    double us[6];
    for (int k = 0; k < 6; ++k) {
      GraphCall g(s_, parts[k]);
      us[k] = timer_->alone(g, false, 10).median;
    }
    std::printf("  parts %s: qalg fwd %.1f dX %.1f dW %.1f us; dense fwd %.1f dX %.1f dW %.1f us\n", name.c_str(),
                us[0], us[1], us[2], us[3], us[4], us[5]);
  }
  const double fl = 3.0 * detail::plan_flops(plan.plan(), types);
  const double wb = double(detail::used_weight_elems(plan.plan()));
  const double by = 2.0 * (3.0 * wb + 3.0 * double(M) * D + 3.0 * double(M) * F);
  const auto e = gpu::find_calibration(D, F, q, M);
  auto engine_name = [](gpu::TileEngine x) {
    return x == gpu::TileEngine::wgmma_many        ? "wm"
           : x == gpu::TileEngine::wgmma_many_lean ? "wl"
           : x == gpu::TileEngine::cublas_batched  ? "cb"
                                                   : "wg";
  };
  const bool by_types = e && e->order == gpu::WsItemOrder::types;
  const std::string variant = (e ? gpu::tile_name(e->tiles) + (by_types ? "-types" : "") + (e->order && e->descending ? "-desc" : "")
                                   : std::string("default")) + "+dX-" +
                              engine_name(engines.dx) + "+dW-" + engine_name(engines.dw);
  row("table", "training", name, M, D, F, q, variant + alg_form, i1 + "+" + i2 + "+" + i3 + dense_form, dense, alg,
      floor_us(fl, by), err, 1e-2);
  gpu::set_backward_engines({});
}

// One row per tile width and depth: alg = the tile copy (rows 8192, pitch 51 200 bytes: Qwen3-32B's
// Y at M = 8192; 3 runs per row block, the narrow kernel's one wave of 384 CTAs; `ahead` tiles
// loaded before they are stored), dense = device_copy of the same bytes contiguously, floor =
// those bytes read and written at the copy bandwidth. The check: three rows of dst equal src over
// the copied bytes (rel_l2 = rows that differ, tolerance 0).
inline void Bench::segments(uint32_t seg_bytes, uint32_t ahead, bool strided, uint32_t runs) {
  constexpr uint32_t kRows = 8192, kPitch = 51200;
  const uint64_t bytes_row = uint64_t(kPitch / seg_bytes) * seg_bytes, payload = bytes_row * kRows;
  Buf src(kRows, kPitch / 2), dst(kRows, kPitch / 2);
  gpu::fill_random_bf16(src.p, uint64_t(kRows) * kPitch / 2, 11, 1.0f, s_);
  ok(cudaMemsetAsync(dst.p, 0, uint64_t(kRows) * kPitch, s_), "memset");
  const Call alg = [&](cudaStream_t s) { gpu::device_tile_copy(src.p, dst.p, kRows, seg_bytes, kPitch, runs, ahead, s, strided); };
  alg(s_);
  ok(cudaStreamSynchronize(s_), "tile copy");
  double differ = 0;
  for (uint32_t r : {0u, kRows / 2 - 1, kRows - 1}) {
    std::vector<unsigned char> a(bytes_row), b(bytes_row);
    ok(cudaMemcpy(a.data(), static_cast<unsigned char*>(src.p) + uint64_t(r) * kPitch, bytes_row, cudaMemcpyDeviceToHost), "row");
    ok(cudaMemcpy(b.data(), static_cast<unsigned char*>(dst.p) + uint64_t(r) * kPitch, bytes_row, cudaMemcpyDeviceToHost), "row");
    differ += a != b;
  }
  Buf flat(payload / 2, 1);
  const Call dense = [&](cudaStream_t s) { gpu::device_copy(src.p, flat.p, payload, s); };
  const double floor_us = 2.0 * payload / bw_ * 1e6;
  row("segments", "tile_copy", "Y-like rows 8192 pitch 51200 B", kRows, int(seg_bytes), int(kPitch), int(runs),
      "seg=" + std::to_string(seg_bytes) + "B-ahead" + std::to_string(ahead) + (runs != 3 ? "-runs" + std::to_string(runs) : "") +
          (strided ? "-strided" : ""),
      "device_copy", dense, alg, floor_us, differ, 0.0);
}

inline void Bench::square(int n, int b) {
  const int q = n / b;
  const gpu::TableData t = table(q);
  gpu::DevicePlan plan(gpu::lower_table(t, detail::same(q, b), detail::same(q, b)));
  const auto types = gpu::interval_types(n, q, b);
  gpu::DeviceBatch batch(plan, types);
  Buf A(n, n), B(n, n), C(n, n), Cd(n, n), ref(n, n, 4);
  gpu::fill_random_bf16(A.p, uint64_t(n) * n, 41, 1.0f, s_);
  gpu::fill_random_bf16(B.p, uint64_t(n) * n, 42, 1.0f / std::sqrt(float(n)), s_);
  ok(cudaStreamSynchronize(s_), "fill");
  std::string impl;
  const Call dense = dense_best(n, n, n, false, false, A.p, B.p, Cd.p, impl);
  std::vector<FusedPick> picks;
  gpu::use_forward_calibration({});
  auto variants = fused_variants(plan, batch, A, B, C, &picks);
  const size_t best = calibrate(variants, &dense);
  remember_forward(n, n, q, n, picks[best]);  // block_product below looks its tiles and order up
  gpu::use_forward_calibration(calib_);
  gpu::set_forward_tiles({64, 128, 5, gpu::TileEngine::wgmma_ws});  // the process default (the variants set theirs)
  const Call alg = [&](cudaStream_t s) { gpu::block_product(batch, A.m(), B.m(), C.m(), s); };
  ok(cudaMemset(C.p, 0xff, uint64_t(n) * n * 2), "poison");
  alg(s_);
  ok(cudaStreamSynchronize(s_), "run");
  gpu::CudaDenseReference r(t, detail::same(q, b), detail::same(q, b));
  r.forward(types, A.m(), B.m(), ref.f());
  const double err = gpu::rel_l2_bf16(C.p, ref.f(), uint64_t(n) * n);
  const double fl = detail::plan_flops(plan.plan(), types);
  const double by = 2.0 * (3.0 * double(n) * n);
  row("table", "square", "b=128 n=" + std::to_string(n), n, n, n, q, variants[best].first, impl, dense, alg,
      floor_us(fl, by), err, 1e-2);
  gpu::set_forward_tiles({64, 128, 5, gpu::TileEngine::wgmma_ws});  // the process default
}

inline void Bench::row_formula_probe(const std::string& name, int D, int F, int M, int q, int n) {
  if (n > 0) D = F = M = n;
  const gpu::TableData t = table(q);
  gpu::DevicePlan plan(gpu::lower_table(t, detail::same(q, D / q), detail::same(q, F / q)));
  gpu::DeviceBatch batch(plan, n > 0 ? gpu::interval_types(n, q, n / q) : gpu::cyclic_types(M, q));
  Buf X(M, D), W(D, F), Y(M, F), dY(M, F), dX(M, D), dW(D, F);
  gpu::fill_random_bf16(X.p, uint64_t(M) * D, 51, 1.0f, s_);
  gpu::fill_random_bf16(W.p, uint64_t(D) * F, 52, 1.0f / std::sqrt(float(D)), s_);
  gpu::fill_random_bf16(dY.p, uint64_t(M) * F, 53, 1.0f, s_);
  ok(cudaStreamSynchronize(s_), "fill");
  // off / on for one product: each form captured into its own graph (the flag is read at launch)
  auto both = [&](const Call& f) {
    double us[2];
    for (int on = 0; on < 2; ++on) {
      gpu::set_row_formula(on == 1);
      GraphCall g(s_, f);
      us[on] = timer_->alone(g, false, 10).median;
    }
    gpu::set_row_formula(false);
    return std::make_pair(us[0], us[1]);
  };
  for (const gpu::TileConfig& tc : {gpu::TileConfig{64, 128, 4, gpu::TileEngine::wgmma},
                                    gpu::TileConfig{64, 128, 4, gpu::TileEngine::wgmma_many},
                                    gpu::TileConfig{128, 128, 8, gpu::TileEngine::wgmma_many_rows},
                                    gpu::TileConfig{64, 128, 4, gpu::TileEngine::wgmma_many_lean}}) {
    gpu::set_forward_tiles(tc);
    const auto [off, on] = both([&](cudaStream_t s) {
      gpu::forward(batch, gpu::ForwardSchedule::endpoint_fused, X.m(), W.m(), Y.m(), nullptr, s);
    });
    std::printf("rows %s forward %s: list %.1f us, formula %.1f us\n", name.c_str(), gpu::tile_name(tc).c_str(), off, on);
  }
  gpu::set_forward_tiles({64, 128, 5, gpu::TileEngine::wgmma_ws});  // the process default
  if (n > 0) return;
  for (gpu::TileEngine e : {gpu::TileEngine::wgmma_many, gpu::TileEngine::wgmma_many_lean}) {
    gpu::set_backward_engines({e, e});
    const auto [xo, xn] = both([&](cudaStream_t s) { gpu::backward_dx(batch, dY.m(), W.m(), dX.m(), s); });
    const auto [wo, wn] = both([&](cudaStream_t s) { gpu::backward_dw(batch, X.m(), dY.m(), dW.m(), s); });
    std::printf("rows %s backward %s: dX list %.1f formula %.1f us, dW list %.1f formula %.1f us\n", name.c_str(),
                e == gpu::TileEngine::wgmma_many ? "wm" : "wl", xo, xn, wo, wn);
  }
  gpu::set_backward_engines({});
}

}  // namespace qalg::bench
