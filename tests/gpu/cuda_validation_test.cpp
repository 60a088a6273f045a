// Bad input to the CUDA entry points (issue 6): each is refused on the host with a message that
// names the argument, before any launch; and non-finite values in W propagate as in the dense
// reference (a NaN/Inf in block W_kj reaches exactly the outputs whose terms use that block).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "cuda_harness.hpp"
#include "gpu/table_builders.hpp"
#include "qalg/gpu/cuda_dense_reference.hpp"
#include "qalg/gpu/lowering.hpp"

namespace qalg::gpu::test {
namespace {

// A kernel's output against the dense reference when inputs hold NaN or Inf: NaN and Inf exactly
// where the reference has them, every finite element equal to the reference rounded to `t`.
// `nan` counts the reference's NaNs (the caller checks how far they reached).
::testing::AssertionResult same_nonfinite(const std::vector<float>& got, const std::vector<float>& ref, DType t,
                                          uint64_t& nan) {
  nan = 0;
  for (size_t e = 0; e < got.size(); ++e) {
    if (std::isnan(got[e]) != std::isnan(ref[e]) || std::isinf(got[e]) != std::isinf(ref[e]) ||
        (std::isfinite(ref[e]) && got[e] != round_to(t, ref[e])))
      return ::testing::AssertionFailure() << "element " << e << ": " << got[e] << " against " << ref[e];
    nan += std::isnan(ref[e]);
  }
  return ::testing::AssertionSuccess();
}


struct Fixture : ::testing::Test {
  DevicePlan plan{lower_table(complete_table(4), {16, 16, 16, 16}, {8, 8, 8, 8})};
  DeviceBatch batch{plan, cyclic_types(10, 4)};
  DevMatrix X{DType::bf16, 10, 64}, W{DType::bf16, 64, 32}, Y{DType::bf16, 10, 32};
};

TEST_F(Fixture, ShapeMismatchNamesTheArgument) {
  DevMatrix Wbad(DType::bf16, 64, 40);
  const std::string m = error_of([&] { forward(batch, ForwardSchedule::endpoint_fused, X.view(), Wbad.view(), Y.view()); });
  EXPECT_NE(m.find("forward: W is 64x40, expected 64x32"), std::string::npos) << m;
}

TEST_F(Fixture, DtypeMismatchIsRefused) {
  DevMatrix Wf(DType::f32, 64, 32);
  const std::string m = error_of([&] { backward_dx(batch, Y.view(), Wf.view(), X.view()); });
  EXPECT_NE(m.find("W has dtype fp32, expected bf16"), std::string::npos) << m;
}

TEST_F(Fixture, NullAndMisalignedPointersAreRefused) {
  DeviceMatrix null_y = Y.view();
  null_y.data = nullptr;
  EXPECT_NE(error_of([&] { forward(batch, ForwardSchedule::endpoint_fused, X.view(), W.view(), null_y); })
                .find("Y is a null pointer"), std::string::npos);
  DeviceMatrix odd = X.view();
  odd.data = static_cast<char*>(odd.data) + 2;
  EXPECT_NE(error_of([&] { forward(batch, ForwardSchedule::endpoint_fused, odd, W.view(), Y.view()); })
                .find("X is not 16-byte aligned"), std::string::npos);
  EXPECT_NE(error_of([&] { forward(batch, ForwardSchedule::diagonal_first, X.view(), W.view(), Y.view(), nullptr); })
                .find("workspace"), std::string::npos);
}

// The backward engines are the three wgmma kernels and cublas_batched; any other engine is refused
// with its number, and cublas_batched is refused as a forward tile.
TEST(BackwardEngines, OnlyTheWgmmaKernelsAndCublasBatchedAreAccepted) {
  const std::string m = error_of([] { set_backward_engines({TileEngine::wgmma, TileEngine::wgmma_ws}); });
  EXPECT_NE(m.find("set_backward_engines: dX and dW run on wgmma, wgmma_many, wgmma_many_lean or cublas_batched, got engine 2"),
            std::string::npos) << m;
  EXPECT_NE(error_of([] { set_forward_tiles({64, 128, 4, TileEngine::cublas_batched}); })
                .find("cublas_batched is an engine of dX and dW"),
            std::string::npos);
  EXPECT_EQ(backward_engines().dw, TileEngine::cublas_batched);  // the refused call changed nothing (the default)
  set_backward_engines({TileEngine::wgmma, TileEngine::wgmma_many});
  EXPECT_EQ(backward_engines().dx, TileEngine::wgmma);
  set_backward_engines({});
}

// backward() checks all five matrices before it launches anything: a wrong dW leaves dX unwritten.
TEST_F(Fixture, BackwardChecksEverythingBeforeItRuns) {
  DevMatrix dY(DType::bf16, 10, 32), dX(DType::bf16, 10, 64), dWbad(DType::bf16, 64, 40);
  dX.poison();
  const std::string m = error_of([&] { backward(batch, X.view(), dY.view(), W.view(), dX.view(), dWbad.view()); });
  EXPECT_NE(m.find("backward: dW is 64x40, expected 64x32"), std::string::npos) << m;
  cuda_ok(cudaDeviceSynchronize(), "sync");
  for (float v : dX.download()) ASSERT_TRUE(std::isnan(v));
}

// backward() (dW on the batch's second stream) gives bit for bit what backward_dx + backward_dw
// give, eagerly and replayed from a CUDA graph, with split-K tiles among them (M = 2048 rows:
// W̄_jj and x̄_i are split) and on both widths paths (24: mma.sync; 64/72: wgmma); and the same
// with cublas_batched (its GEMMs on the batch's two cuBLAS handles, captured into the graph).
TEST(Backward, TwoStreamsEqualTheTwoCallsAndCaptureIntoAGraph) {
  std::mt19937_64 rng(11);
  for (TileEngine e : {TileEngine::wgmma_many, TileEngine::cublas_batched})
  for (const auto& [s, r] : std::vector<std::pair<uint32_t, uint32_t>>{{24, 64}, {64, 24}, {72, 64}}) {
    set_backward_engines({e, e});
    const uint32_t q = 8, M = 2048, K = q * s, N = q * r;
    DevicePlan plan(lower_table(complete_table(q), std::vector<uint32_t>(q, s), std::vector<uint32_t>(q, r)));
    DeviceBatch batch(plan, cyclic_types(M, q));
    DevMatrix X(DType::bf16, M, K), W(DType::bf16, K, N), dY(DType::bf16, M, N);
    X.upload(integer_values(rng, size_t(M) * K, 2));
    W.upload(integer_values(rng, size_t(K) * N, 2));
    dY.upload(integer_values(rng, size_t(M) * N, 2));
    DevMatrix dX1(DType::bf16, M, K), dW1(DType::bf16, K, N), dX2(DType::bf16, M, K), dW2(DType::bf16, K, N);
    backward_dx(batch, dY.view(), W.view(), dX1.view());
    backward_dw(batch, X.view(), dY.view(), dW1.view());
    dX2.poison(), dW2.poison();
    backward(batch, X.view(), dY.view(), W.view(), dX2.view(), dW2.view());
    cuda_ok(cudaDeviceSynchronize(), "sync");
    EXPECT_EQ(dX1.download(), dX2.download()) << "s = " << s << ", r = " << r;
    EXPECT_EQ(dW1.download(), dW2.download()) << "s = " << s << ", r = " << r;
    cudaStream_t st;
    cuda_ok(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), "stream");
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    dX2.poison(), dW2.poison();
    cuda_ok(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal), "capture");
    backward(batch, X.view(), dY.view(), W.view(), dX2.view(), dW2.view(), st);
    cuda_ok(cudaStreamEndCapture(st, &graph), "end capture");
    cuda_ok(cudaGraphInstantiate(&exec, graph, 0), "instantiate");
    cuda_ok(cudaGraphLaunch(exec, st), "launch");
    cuda_ok(cudaStreamSynchronize(st), "sync");
    EXPECT_EQ(dX1.download(), dX2.download()) << "graph, s = " << s << ", r = " << r;
    EXPECT_EQ(dW1.download(), dW2.download()) << "graph, s = " << s << ", r = " << r;
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(st);
  }
  set_backward_engines({});
}

// gated_ffn_decode launches its down projection with programmatic dependent launch: that grid
// starts while gate/up runs and reads h only after griddepcontrol.wait. With h poisoned (NaN)
// before every run, a read of h before gate/up finished would show as NaN or as a difference from
// decode() run on the finished h without PDL; checked eagerly and over repeated graph replays, on
// the complete-graph law (tiles from the CTA index) and on Q_2^{⊗2} (tiles from the lists), for
// several types, with 64- and 32-column tiles (F = 6144 and 512 outputs), for every decode
// staging (registers, cp.async and bulk copies into shared memory); and y is the dense reference's.
// 8/40/152: partial tiles (152 = 2·64 + 24 = 4·32 + 24; 40 = 32 + 8).
// Mode 3: the register form with the hand-over by counters (set_decode_ready_counters: each down
// tile waits for its two groups of h, and the grid's last CTA clears the counters): the same checks,
// and the 20 graph replays show that every call leaves the counters at zero for the next (a
// counter left over would let a replay read h before gate/up stored it: poisoned NaN).
TEST(FfnDecode, DependentLaunchReadsTheFinishedHiddenRow) {
  std::mt19937_64 rng(12);
  for (int mode = 0; mode < 4; ++mode) {
  const DecodeStaging staging = mode == 3 ? DecodeStaging::registers : DecodeStaging(mode);
  set_decode_engines(staging, true);
  set_decode_ready_counters(mode == 3);
  const int bulk = mode;
  struct Shape {
    TableData table;
    uint32_t q, s, r;
  };
  TableData q2sq = complete_table(2);
  q2sq = tensor_table(q2sq, complete_table(2));
  // deep batches (launch_ffn.cu): 8/160/64 gate/up (320 rows, 8 per lane); 8/64/512 the down
  // projection (1024 rows, 12 per lane: two batches)
  for (const Shape& c : {Shape{complete_table(32), 32, 64, 192}, Shape{complete_table(8), 8, 64, 64},
                         Shape{q2sq, 4, 128, 128}, Shape{complete_table(8), 8, 160, 64},
                         Shape{complete_table(8), 8, 64, 512}, Shape{complete_table(8), 8, 40, 152}}) {
    const uint32_t D = c.q * c.s, F = c.q * c.r;
    DevicePlan up(lower_table(c.table, std::vector<uint32_t>(c.q, c.s), std::vector<uint32_t>(c.q, c.r)));
    DevicePlan down(lower_table(c.table, std::vector<uint32_t>(c.q, c.r), std::vector<uint32_t>(c.q, c.s)));
    DevMatrix x(DType::bf16, 1, D), Wg(DType::bf16, D, F), Wu(DType::bf16, D, F), Wd(DType::bf16, F, D);
    Wg.upload(random_values(rng, DType::bf16, size_t(D) * F, 1.0f / std::sqrt(float(D))));
    Wu.upload(random_values(rng, DType::bf16, size_t(D) * F, 1.0f / std::sqrt(float(D))));
    Wd.upload(random_values(rng, DType::bf16, size_t(F) * D, 1.0f / std::sqrt(float(F))));
    DevMatrix h(DType::bf16, 1, F), y(DType::bf16, 1, D), y_plain(DType::bf16, 1, D);
    cudaStream_t st;
    cuda_ok(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), "stream");
    for (uint32_t type : {0u, 1u, c.q - 1}) {
      x.upload(random_values(rng, DType::bf16, D, 1.0f));
      h.poison(), y.poison();
      gated_ffn_decode(up, down, type, x.view(), Wg.view(), Wu.view(), Wd.view(), h.view(), y.view(), st);
      cuda_ok(cudaStreamSynchronize(st), "sync");
      const auto hv = h.download(), yv = y.download();
      for (float v : hv) ASSERT_TRUE(std::isfinite(v)) << "h, type " << type;
      {  // y against the dense reference on the kernel's h (the conformance suite checks h itself)
        CudaDenseReference ref_down(c.table, std::vector<uint32_t>(c.q, c.r), std::vector<uint32_t>(c.q, c.s));
        DevFloats yr(D);
        ref_down.forward({type}, h.view(), Wd.view(), yr.p);
        const auto r = yr.download();
        double num = 0, den = 0;
        for (uint32_t e = 0; e < D; ++e) num += (yv[e] - r[e]) * (yv[e] - r[e]), den += double(r[e]) * r[e];
        EXPECT_LT(std::sqrt(num / den), 1e-2) << "staging " << bulk << ", q = " << c.q << ", type " << type;
      }
      y_plain.poison();
      decode(down, type, h.view(), Wd.view(), y_plain.view(), st);  // no PDL: after gate/up by stream order
      cuda_ok(cudaStreamSynchronize(st), "sync");
      ASSERT_EQ(yv, y_plain.download()) << "mode " << bulk << ", eager, q = " << c.q << ", type " << type;
      const CapturedGraph graph(st, [&](cudaStream_t s) {
        gated_ffn_decode(up, down, type, x.view(), Wg.view(), Wu.view(), Wd.view(), h.view(), y.view(), s);
      });
      for (int rep = 0; rep < 20; ++rep) {
        h.poison(), y.poison();
        graph.launch();
        ASSERT_EQ(hv, h.download()) << "mode " << bulk << ", graph, q = " << c.q << ", type " << type << ", replay " << rep;
        ASSERT_EQ(yv, y.download()) << "mode " << bulk << ", graph, q = " << c.q << ", type " << type << ", replay " << rep;
      }
    }
    cudaStreamDestroy(st);
  }
  }
  set_decode_engines(DecodeStaging::registers, true);
  set_decode_ready_counters(false);
}

// Every compiled register-decode shape (kernels.hpp DecodeShape), forced one at a time, on the
// complete-graph law (tiles from the CTA index: 16-, 32- and 64-column tiles, partial ones among
// them) and on Q_2^{⊗2} (tiles from the lists; a forced 16-column shape falls back to the rule's):
// decode() with integer inputs equals the dense reference exactly (integer sums are exact in FP32,
// whatever the order), in bf16 and fp32; gated_ffn_decode's h is SiLU(g)·u of the reference's g and
// u and its y the reference's on that h. Shapes: q = 8, s = 40 / r = 152 (152 = 2·64 + 24 =
// 4·32 + 24 = 9·16 + 8, reductions of 40 and 80 rows) and s = 520 / r = 40 (1040 rows: more than
// one batch for every shape, 4 · 64 up to 12 · 64 rows).
TEST(DecodeShapes, EveryCompiledShapeMatchesTheReference) {
  std::mt19937_64 rng(13);
  struct Case {
    TableData table;
    uint32_t q, s, r;
    bool law;
  };
  TableData q2sq = tensor_table(complete_table(2), complete_table(2));
  const std::vector<Case> cases = {{complete_table(8), 8, 40, 152, true}, {complete_table(8), 8, 520, 40, true},
                                   {q2sq, 4, 72, 48, false}};
  for (const Case& c : cases) {
    const uint32_t D = c.q * c.s, F = c.q * c.r;
    const std::vector<uint32_t> sv(c.q, c.s), rv(c.q, c.r);
    DevicePlan up(lower_table(c.table, sv, rv)), down(lower_table(c.table, rv, sv));
    CudaDenseReference ref_up(c.table, sv, rv), ref_down(c.table, rv, sv);
    for (const DecodeShape& shape : decode_shapes(1)) {
      set_decode_shapes(shape, {});
      const DecodeShape took = decode_shape(up, 0, 1);
      EXPECT_TRUE(took == shape || (!c.law && shape.cols == 16 && took.cols != 16)) << decode_shape_name(took);
      for (DType t : {DType::bf16, DType::f32}) {
        DevMatrix x(t, 1, D), W(t, D, F), y(t, 1, F);
        W.upload(integer_values(rng, size_t(D) * F, 2));
        for (uint32_t type : {0u, c.q - 1}) {
          x.upload(integer_values(rng, D, 2));
          y.poison();
          decode(up, type, x.view(), W.view(), y.view());
          cuda_ok(cudaDeviceSynchronize(), "decode");
          DevFloats r(F);
          ref_up.forward({type}, x.view(), W.view(), r.p);
          const Comparison cmp = compare(y.download(), r.download(), t);
          ASSERT_TRUE(cmp.unwritten == 0 && cmp.mismatches == 0)
              << decode_shape_name(shape) << ", s = " << c.s << ", type " << type << ": " << cmp.unwritten
              << " unwritten, " << cmp.mismatches << " mismatches";
        }
      }
    }
    for (const DecodeShape& shape : decode_shapes(2)) {
      set_decode_shapes({}, shape);
      const DecodeShape took = decode_shape(up, 0, 2);
      EXPECT_TRUE(took == shape || (!c.law && shape.cols == 16 && took.cols != 16)) << decode_shape_name(took);
      DevMatrix x(DType::bf16, 1, D), Wg(DType::bf16, D, F), Wu(DType::bf16, D, F), Wd(DType::bf16, F, D);
      DevMatrix h(DType::bf16, 1, F), y(DType::bf16, 1, D);
      Wg.upload(random_values(rng, DType::bf16, size_t(D) * F, 1.0f / std::sqrt(float(D))));
      Wu.upload(random_values(rng, DType::bf16, size_t(D) * F, 1.0f / std::sqrt(float(D))));
      Wd.upload(random_values(rng, DType::bf16, size_t(F) * D, 1.0f / std::sqrt(float(F))));
      for (uint32_t type : {0u, c.q - 1}) {
        x.upload(random_values(rng, DType::bf16, D, 1.0f));
        h.poison(), y.poison();
        gated_ffn_decode(up, down, type, x.view(), Wg.view(), Wu.view(), Wd.view(), h.view(), y.view());
        cuda_ok(cudaDeviceSynchronize(), "gated_ffn_decode");
        DevFloats g(F), u(F), yr(D);
        ref_up.forward({type}, x.view(), Wg.view(), g.p);
        ref_up.forward({type}, x.view(), Wu.view(), u.p);
        auto hw = g.download();
        const auto uv = u.download();
        for (uint32_t e = 0; e < F; ++e) hw[e] = float(hw[e] / (1.0 + std::exp(-double(hw[e]))) * uv[e]);
        const std::string at = decode_shape_name(shape) + ", s = " + std::to_string(c.s) + ", type " + std::to_string(type);
        const Comparison ch = compare(h.download(), hw, DType::bf16);
        EXPECT_TRUE(ch.unwritten == 0 && ch.rel_l2 < tolerance(DType::bf16)) << "h, " << at << ": rel_l2 " << ch.rel_l2;
        ref_down.forward({type}, h.view(), Wd.view(), yr.p);
        const Comparison cy = compare(y.download(), yr.download(), DType::bf16);
        EXPECT_TRUE(cy.unwritten == 0 && cy.rel_l2 < tolerance(DType::bf16)) << "y, " << at << ": rel_l2 " << cy.rel_l2;
      }
    }
  }
  set_decode_shapes({}, {});
  const std::string m = error_of([] { set_decode_shapes({48, 64, 4}, {}); });
  EXPECT_NE(m.find("set_decode_shapes: 48x64x4 is not a compiled 1-matrix decode shape"), std::string::npos) << m;
  EXPECT_NE(error_of([] { decode_shapes(3); }).find("decode_shapes: matrices must be 1 or 2, got 3"), std::string::npos);
  DevicePlan p(lower_table(complete_table(4), std::vector<uint32_t>(4, 16), std::vector<uint32_t>(4, 16)));
  EXPECT_NE(error_of([&] { decode_shape(p, 0, 0); }).find("decode_shape: matrices must be 1 or 2, got 0"),
            std::string::npos);
  EXPECT_NE(error_of([&] { decode_shape(p, 4, 1); }).find("decode_shape: type 4 is out of range, the plan has q = 4"),
            std::string::npos);
}

TEST_F(Fixture, TypeIdsOutOfRangeAreRefused) {
  EXPECT_NE(error_of([&] { DeviceBatch b(plan, {0, 1, 4}); }).find("row 2 has type 4"), std::string::npos);
  DevMatrix x1(DType::bf16, 1, 64), y1(DType::bf16, 1, 32);
  EXPECT_NE(error_of([&] { decode(plan, 7, x1.view(), W.view(), y1.view()); }).find("type 7 is out of range"),
            std::string::npos);
}

TEST_F(Fixture, WidthsThatDoNotAddUpAreRefused) {
  KernelPlan p = plan.plan();
  p.output_widths.pop_back();
  EXPECT_NE(error_of([&] { DevicePlan bad(p); }).find("expected 4 input and output widths"), std::string::npos);
  p = plan.plan();
  p.terms[0].push_back(PlanTerm{9, 1, 1});
  EXPECT_NE(error_of([&] { DevicePlan bad(p); }).find("names input group 9"), std::string::npos);
}

TEST(NonFinite, NanAndInfInWPropagateAsInTheDenseReference) {
  for (DType t : {DType::bf16, DType::f32}) {
    const TableData table = complete_table(4);
    const std::vector<uint32_t> w(4, 16);
    DevicePlan plan(lower_table(table, w, w));
    const auto types = cyclic_types(37, 4);
    DeviceBatch batch(plan, types);
    CudaDenseReference ref(table, w, w);
    std::mt19937_64 rng(5);
    DevMatrix X(t, 37, 64), W(t, 64, 64), Y(t, 37, 64);
    X.upload(integer_values(rng, 37 * 64, 2));
    auto wv = integer_values(rng, 64 * 64, 2);
    wv[(16 + 3) * 64 + 40] = NAN;       // block W_12: reaches y_2 of type-1 rows
    wv[(48 + 1) * 64 + 50] = INFINITY;  // block W_33: reaches y_3 of every row
    W.upload(wv);
    DevFloats r(37 * 64);
    ref.forward(types, X.view(), W.view(), r.p);
    const auto rv = r.download();
    for (auto s : {ForwardSchedule::endpoint_fused, ForwardSchedule::diagonal_first}) {
      DevFloats ws(37 * 64);
      Y.poison();
      forward(batch, s, X.view(), W.view(), Y.view(), ws.p);
      cuda_ok(cudaDeviceSynchronize(), "forward");
      uint64_t nan = 0;
      ASSERT_TRUE(same_nonfinite(Y.download(), rv, t, nan)) << schedule_name(s);
      uint64_t nonfinite = 0;
      for (float v : rv) nonfinite += !std::isfinite(v);
      EXPECT_GT(nonfinite, 37u);  // the Inf column reaches every row
    }
  }
}

// Decode (one row): NaN and Inf in W reach exactly the outputs the dense reference gives. A NaN in
// W's row 0 outside the blocks a type reads must not reach its outputs: the register decode's
// batches pad short reductions with row 0 (before the tenth session it summed those slots with
// weight 0, and 0 · NaN is NaN). s = 16: reductions of 16 or 32 rows, far below one batch of
// 4 · 64; s = 512: 512 or 1024 rows in the deep batches (12 per lane).
TEST(NonFinite, DecodeReadsOnlyTheBlocksOfItsType) {
  for (DecodeStaging st : {DecodeStaging::registers, DecodeStaging::cp_async, DecodeStaging::bulk}) {
    set_decode_engines(st, true);
    for (DType t : {DType::bf16, DType::f32}) {
      for (uint32_t s : {16u, 512u}) {
        const TableData table = complete_table(8);
        const std::vector<uint32_t> in(8, s), out(8, 64);
        DevicePlan plan(lower_table(table, in, out));
        CudaDenseReference ref(table, in, out);
        const uint32_t K = 8 * s, N = 8 * 64;
        std::mt19937_64 rng(9);
        auto wv = integer_values(rng, size_t(K) * N, 2);
        wv[0 * N + 64 + 5] = NAN;             // W_01 row 0: only type 0 (y_1) reads it
        wv[size_t(3 * s + 1) * N + 7 * 64 + 9] = INFINITY;  // W_37: type 3's y_7
        DevMatrix W(t, K, N), x(t, 1, K), y(t, 1, N);
        W.upload(wv);
        for (uint32_t type : {0u, 2u, 3u}) {
          x.upload(integer_values(rng, K, 2));
          y.poison();
          decode(plan, type, x.view(), W.view(), y.view());
          cuda_ok(cudaDeviceSynchronize(), "decode");
          DevFloats r(N);
          ref.forward({type}, x.view(), W.view(), r.p);
          const auto rv = r.download(), yv = y.download();
          uint64_t nan = 0;
          EXPECT_TRUE(same_nonfinite(yv, rv, t, nan)) << "staging " << int(st) << ", s = " << s << ", type " << type;
          uint64_t nonfinite = 0;
          for (float v : rv) nonfinite += !std::isfinite(v);
          EXPECT_EQ(nonfinite > 0, type != 2u) << "the reference itself, type " << type;
        }
      }
    }
  }
  set_decode_engines(DecodeStaging::registers, true);
}

}  // namespace
}  // namespace qalg::gpu::test

namespace qalg::gpu::test {
namespace {

// The calibration file of issue 7: rows round-trip, lookups match exactly, bad rows name file:line.
TEST(Calibration, ReadLookupAndErrors) {
  const std::string path = ::testing::TempDir() + "/qalg_calibration.csv";
  // The file with these rows, read; and the message reading it throws.
  auto read_rows = [&](const std::string& rows) {
    std::ofstream(path) << rows;
    return read_forward_calibration(path);
  };
  auto error_reading = [&](const std::string& rows) { return error_of([&] { read_rows(rows); }); };
  auto entries = read_rows(
      "K,N,q,M,schedule,bm,bn,warps\n4096,12288,32,2048,endpoint-fused,64,192,8\n"
      "2048,768,16,512,diagonal-first,64,128,4\n"
      "4096,12288,32,512,endpoint-fused,128,128,8,wgmma\n"
      "2048,6144,32,2048,endpoint-fused,64,128,4,wgmma_many\n"
      "4096,4096,32,4096,endpoint-fused,128,128,8,wgmma_many_rows\n"
      "4096,4096,32,8192,endpoint-fused,64,192,4,wgmma_many_lean\n");
  ASSERT_EQ(entries.size(), 6u);
  EXPECT_EQ(tile_name(entries[5].tiles), "wl64x192");  // compiled for wl only (wm64x192 is refused below)
  EXPECT_EQ(tile_name(entries[4].tiles), "wmr128x128");
  EXPECT_EQ(entries[3].tiles.engine, TileEngine::wgmma_many);
  EXPECT_EQ(tile_name(entries[3].tiles), "wm64x128");
  EXPECT_EQ(entries[1].tiles.engine, TileEngine::mma_sync);  // 8 fields: the mma.sync kernel
  EXPECT_EQ(entries[2].tiles.engine, TileEngine::wgmma);
  EXPECT_EQ(tile_name(entries[2].tiles), "wg128x128");
  use_forward_calibration(entries);
  const auto e = find_calibration(4096, 12288, 32, 2048);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->tiles.bn, 192u);
  EXPECT_EQ(e->tiles.warps, 8u);
  EXPECT_FALSE(find_calibration(4096, 12288, 32, 2047).has_value());
  use_forward_calibration({});
  EXPECT_NE(error_reading("K,N,q,M,schedule,bm,bn,warps\n1,2,3,4,endpoint-fused,64,96,4\n")
                .find("qalg_calibration.csv:2: set_forward_tiles: tile 64x96"),
            std::string::npos);
  EXPECT_NE(error_reading("1,2,3,4,sideways,64,128,4\n").find(":1: schedule must be"), std::string::npos);
  // (thirty-eighth session's audit) whole numbers in range only: "-14" read as 2^64 - 14, "14abc" as 14,
  // "1e3" as 1, a q of 4294967300 as 4; Windows line ends read; a directory named
  for (const auto& [row, named] : {std::pair{"-14,14,4,2048,endpoint-fused,64,128,4\n", "K '-14'"},
                                   std::pair{"14,14abc,4,2048,endpoint-fused,64,128,4\n", "N '14abc'"},
                                   std::pair{"14,14,4294967300,2048,endpoint-fused,64,128,4\n", "q '4294967300'"},
                                   std::pair{"14,14,4,1e3,endpoint-fused,64,128,4\n", "M '1e3'"}})
    EXPECT_NE(error_reading(row).find(std::string(":1: ") + named), std::string::npos) << row;
  EXPECT_EQ(read_rows("K,N,q,M,schedule,bm,bn,warps\r\n4096,12288,32,2048,endpoint-fused,64,192,8\r\n").size(), 1u);
  EXPECT_NE(error_of([] { read_forward_calibration(::testing::TempDir()); }).find("is a directory"), std::string::npos);
  // a many-CTA tile that is not compiled is named
  EXPECT_NE(error_reading("1,2,3,4,endpoint-fused,64,192,4,wgmma_many\n")
                .find(":1: set_forward_tiles: many-CTA tile wm64x192"),
            std::string::npos);
  // a wgmma tile dropped from the build (sixth session) is refused by name
  EXPECT_NE(error_reading("1,2,3,4,endpoint-fused,128,256,8,wgmma\n")
                .find(":1: set_forward_tiles: wgmma tile wg128x256 is not compiled"),
            std::string::npos);
  // the paired tiles (eighteenth session), the group-pair tile (thirty-first) and the row-pair tile
  // (thirty-second) by their engine names; wsp64x192, wsg128x64 and wsm64x128 are not compiled
  for (const auto& [row, name, bad_row, bad_name] :
       {std::tuple{"64,128,5,wgmma_ws_pair", "wsp64x128", "64,192,5,wgmma_ws_pair", "wsp64x192"},
        std::tuple{"128,128,9,wgmma_ws_group_pairs", "wsg128x128", "128,64,9,wgmma_ws_group_pairs", "wsg128x64"},
        std::tuple{"128,128,9,wgmma_ws_row_pairs", "wsm128x128", "64,128,5,wgmma_ws_row_pairs", "wsm64x128"}}) {
    const auto rows = read_rows(std::string("1,2,3,4,endpoint-fused,") + row + "\n");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(tile_name(rows[0].tiles), name);
    EXPECT_NE(error_reading(std::string("1,2,3,4,endpoint-fused,") + bad_row + "\n")
                  .find(std::string(":1: set_forward_tiles: warp-specialised tile ") + bad_name + " is not compiled"),
              std::string::npos);
  }
  // the item order (twenty-first session): a tenth field, columns or types, and (thirty-fifth session)
  // either with "-descending" (the items last first); nine fields: the process-wide order
  const auto ordered = read_rows(
      "1,2,3,4,endpoint-fused,64,128,5,wgmma_ws_lean,types\n5,6,7,8,endpoint-fused,64,128,5,wgmma_ws,columns\n"
      "9,10,11,12,endpoint-fused,64,128,5,wgmma_ws\n13,14,15,16,endpoint-fused,64,128,5,wgmma_ws_lean,types-descending\n"
      "17,18,19,20,endpoint-fused,128,128,9,wgmma_ws,columns-descending\n");
  const std::vector<std::pair<std::optional<WsItemOrder>, bool>> expected = {
      {WsItemOrder::types, false}, {WsItemOrder::columns, false}, {std::nullopt, false},
      {WsItemOrder::types, true}, {WsItemOrder::columns, true}};
  ASSERT_EQ(ordered.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(ordered[i].order, expected[i].first) << i;
    EXPECT_EQ(ordered[i].descending, expected[i].second) << i;
  }
  for (const char* bad : {"sideways", "descending", "types-descending-descending", "-descending"})
    EXPECT_NE(error_reading(std::string("1,2,3,4,endpoint-fused,64,128,5,wgmma_ws,") + bad + "\n")
                  .find(std::string(":1: order must be columns, types, columns-descending or types-descending, got '") +
                        bad + "'"),
              std::string::npos)
        << bad;
  EXPECT_NE(error_reading("1,2,3,4,endpoint-fused,64,128,5,wgmma_ws,types,extra\n")
                .find(":1: expected 8 to 10 fields"),
            std::string::npos);
}

// The narrow-group law tiles (narrow_law.cuh: nl64x128, 4 warps of 128 columns, and nl64x64, 8
// warps of 64, where units of at most 64 columns leave half the warps idle) on every shape they
// instantiate: SK = 32, 48, 64 (s = 8, 12, 20; 40; 64) and for nl64x64 also 24 (s = 8, 12, 20) and
// 40 (s = 40), which end in an m16n8k8 step, 8- and 4-byte copies (r = 200 and 192 against 100, 36, 260), output groups in 1, 2
// and 3 pieces (260 = 88 + 88 + 84), a partial last row block (c = 100, 70, 33, 5), cyclic and
// interval types, runs of units that do and do not divide q · pieces (1, 3, 16, and the automatic run).
// Integer inputs: exact; random inputs: within tolerance. A batch without a closed form falls back
// to the mma.sync tile, and still matches.
TEST(NarrowLaw, EveryShapeMatchesTheReference) {
  std::mt19937_64 rng(21);
  struct Case {
    uint32_t q, s, r, c;
    bool cyclic;
  };
  const std::vector<Case> cases = {{8, 20, 100, 100, true}, {8, 40, 200, 64, true}, {4, 64, 192, 70, false},
                                   {16, 12, 36, 5, true},   {4, 8, 260, 33, false},  {8, 40, 200, 100, false}};
  const uint32_t default_run = narrow_run();
  // nl64x128 with 2 and 3 stages at SK = 32; nl64x64 with the k8 last step (SK = 24 with 3 and
  // 2 stages, 40) and without (SK = 32, 48)
  // The last but one: nl64x64 writing Y by TMA stores (mode 2) where that fits: a box per piece for r = 200 and
  // 192 (pieces of 104 + 96 and 96 + 96, the last clipped by the tensor map) at every run, a box per
  // pair of groups for r = 100 and 36 at runs of 16; r = 260 (three pieces, boxes not on 16 bytes)
  // and the pairs at odd runs store by lanes.
  // The last (mode 3): the pairs, and for r = 200 at s = 40 a box per group (104 + 96 columns) at the
  // even runs, with one row block (c = 64) and with a partial second one (c = 100: rows clipped).
  struct Variant {
    uint32_t bn;
    bool tail;
    int deep;
    int tma;  // set_narrow_tma_store's mode: 0 lanes, 1 pairs (the default), 2 boxes per piece, 3 boxes per group
    // the strided unit order (set_narrow_unit_order), at runs 4 and 2 where it applies: pairs of
    // groups (r = 100, 36) and a group's two pieces (r = 200, 192) move as boxes; at 3 only the
    // one-piece widths without pairs (else the runs), r = 260 (three pieces) never
    bool strided = false;
  };
  const Variant variants[] = {{128, true, -1, 0}, {128, true, 1, 0},  {64, true, -1, 0}, {64, true, 0, 0},
                              {64, false, -1, 0}, {64, true, -1, 2}, {64, true, -1, 3}, {128, true, -1, 0, true},
                              {64, true, -1, 1, true}, {64, true, -1, 3, true}};
  for (const auto [bn, tail, deep, tma, strided] : variants)
  for (const Case& c : cases) {
    set_forward_tiles({64, bn, 4, TileEngine::narrow_law});
    set_narrow_tail(tail);
    set_narrow_deep(deep);
    set_narrow_tma_store(tma);
    set_narrow_unit_order(strided);
    set_narrow_prefetch(deep == 0 ? 2 : tma == 3 ? 1 : 0);  // L2 prefetches (at s = 40: lanes and mode 3)
    set_narrow_streaming_stores(deep == 0);  // the evict-first stores with one of the variants
    set_narrow_zero_accumulator(deep != -1);  // the zero-accumulator first step with two
    const uint32_t K = c.q * c.s, N = c.q * c.r, M = c.q * c.c;
    const std::vector<uint32_t> sv(c.q, c.s), rv(c.q, c.r);
    const TableData table = complete_table(c.q);
    DevicePlan plan(lower_table(table, sv, rv));
    CudaDenseReference ref(table, sv, rv);
    const auto types = c.cyclic ? cyclic_types(M, c.q) : interval_types(M, c.q, c.c);
    DeviceBatch batch(plan, types);
    ASSERT_TRUE(narrow_law_applies(batch)) << "s = " << c.s << ", r = " << c.r;
    // 0: the automatic run (on these small grids 1)
    for (uint32_t run : strided ? std::vector<uint32_t>{4u, 2u, 3u, 0u} : std::vector<uint32_t>{16u, 3u, 1u, 0u}) {
      set_narrow_run(run);
      // mode 3: the pairs as mode 1, and a box per group only for r = 200 at s = 40 (two pieces, W
      // boxes of 104 columns) with an even run
      const bool pairs = c.r % 8 == 4 && c.r <= 112 && run != 0 && run % 2 == 0 && c.q % 2 == 0;
      if (tma == 2 && run != 0) EXPECT_EQ(narrow_stores_by_tma(batch), c.r % 8 == 0 || pairs) << c.r << ", run " << run;
      if (tma == 3 && run != 0)
        EXPECT_EQ(narrow_stores_by_tma(batch), pairs || (c.r == 200 && c.s == 40 && run % 2 == 0)) << c.r << ", run " << run;
      for (DType t : {DType::bf16, DType::f16})
        for (bool integer : {true, false}) {
          DevMatrix X(t, M, K), W(t, K, N), Y(t, M, N);
          X.upload(integer ? integer_values(rng, size_t(M) * K, 2) : random_values(rng, t, size_t(M) * K, 1.0f));
          W.upload(integer ? integer_values(rng, size_t(K) * N, 2)
                           : random_values(rng, t, size_t(K) * N, 1.0f / std::sqrt(float(K))));
          Y.poison();
          forward(batch, ForwardSchedule::endpoint_fused, X.view(), W.view(), Y.view());
          cuda_ok(cudaDeviceSynchronize(), "forward");
          DevFloats r(size_t(M) * N);
          ref.forward(types, X.view(), W.view(), r.p);
          const Comparison cmp = compare(Y.download(), r.download(), t);
          const std::string at = "nl64x" + std::to_string(bn) + (tail ? "" : " (no tail)") +
                                 (tma ? " (TMA stores, mode " + std::to_string(tma) + ")" : "") + (strided ? " strided" : "") +
                                 " deep " + std::to_string(deep) + ", s = " + std::to_string(c.s) + ", r = " +
                                 std::to_string(c.r) + ", c = " + std::to_string(c.c) + ", run " + std::to_string(run);
          EXPECT_EQ(cmp.unwritten, 0u) << at;
          if (integer) EXPECT_EQ(cmp.mismatches, 0u) << at;
          else EXPECT_LT(cmp.rel_l2, tolerance(t)) << at;
        }
    }
  }
  set_narrow_run(default_run);
  set_narrow_prefetch(0);
  set_narrow_unit_order(false);
  set_narrow_tail(true);
  set_narrow_deep(-1);
  set_narrow_streaming_stores(false);
  set_narrow_zero_accumulator(false);
  set_narrow_tma_store(1);  // the default
  // Random types (no closed form): not the narrow tile's plan; the forward still matches.
  {
    const uint32_t q = 8, s = 20, r = 100, M = 300;
    const std::vector<uint32_t> sv(q, s), rv(q, r);
    DevicePlan plan(lower_table(complete_table(q), sv, rv));
    CudaDenseReference ref(complete_table(q), sv, rv);
    std::vector<uint32_t> types(M);
    for (auto& v : types) v = uint32_t(rng() % q);
    DeviceBatch batch(plan, types);
    EXPECT_FALSE(narrow_law_applies(batch));
    DevMatrix X(DType::bf16, M, q * s), W(DType::bf16, q * s, q * r), Y(DType::bf16, M, q * r);
    X.upload(integer_values(rng, size_t(M) * q * s, 2));
    W.upload(integer_values(rng, size_t(q) * s * q * r, 2));
    Y.poison();
    forward(batch, ForwardSchedule::endpoint_fused, X.view(), W.view(), Y.view());
    cuda_ok(cudaDeviceSynchronize(), "forward");
    DevFloats ry(size_t(M) * q * r);
    ref.forward(types, X.view(), W.view(), ry.p);
    const Comparison cmp = compare(Y.download(), ry.download(), DType::bf16);
    EXPECT_TRUE(cmp.unwritten == 0 && cmp.mismatches == 0) << cmp.unwritten << " unwritten, " << cmp.mismatches;
  }
  EXPECT_NE(error_of([] { set_narrow_run(4097); }).find("units per CTA must be 0 (automatic) or in [1, 4096], got 4097"),
            std::string::npos);
  EXPECT_NE(error_of([] { set_narrow_deep(2); }).find("-1 (each tile's default), 0 or 1, got 2"), std::string::npos);
  EXPECT_NE(error_of([] { set_narrow_prefetch(9); }).find("set_narrow_prefetch: units ahead must be in [0, 8], got 9"),
            std::string::npos);
  EXPECT_NE(error_of([] { set_narrow_tma_store(4); }).find("set_narrow_tma_store: 0 (lanes), 1 (boxes of two groups), 2"),
            std::string::npos);
  // mode 1 (the default): the pairs only
  {
    const std::vector<uint32_t> sv(8, 40), rv(8, 200);
    DevicePlan plan(lower_table(complete_table(8), sv, rv));
    DeviceBatch batch(plan, cyclic_types(8 * 64, 8));
    set_narrow_tma_store(2);
    EXPECT_TRUE(narrow_stores_by_tma(batch));
    set_narrow_tma_store(1);
    EXPECT_FALSE(narrow_stores_by_tma(batch));
  }
  set_forward_tiles({64, 128, 5, TileEngine::wgmma_ws});  // the process default
}

// f(M, types, batch, rng) on two cyclic batches of a q = 4 plan: M = 36 (rows in closed form, so
// the warp-specialised kernels load them by TMA) and M = 37 (a row list, gathered by cp.async).
template <class F>
void each_small_batch(const DevicePlan& plan, uint64_t seed, F&& f) {
  for (uint64_t M : {36u, 37u}) {
    const auto types = cyclic_types(M, 4);
    DeviceBatch batch(plan, types);
    std::mt19937_64 rng(seed + M);
    f(M, types, batch, rng);
  }
}

// A NaN in x_k of a row reaches exactly the outputs whose terms read x_k for that row's type, on
// every warp-specialised tile and the narrow-group law tile (M = 36 only: 37 rows have no closed
// form) with 24-wide input groups (the grouped tensor maps: a box at group k
// must not read group k + 1's columns, where the NaN is, nor W's rows past group k, which the copy
// engine zero-fills); M = 36 loads x through the 4-D map, M = 37 by cp.async (each_small_batch).
// The dense reference cannot give the NaN pattern itself: X_i T_i multiplies the NaN by T_i's
// structural zeros and poisons the whole row (checked on the H200, 2026-11-30). So the expected
// pattern comes from the reference's block list (which output group j has a block (k, j) in T_i),
// and the finite values from the reference run with the NaNs replaced by 0.
TEST(NonFinite, NanInXReachesTheOutputsThatReadItInTheAlgebra) {
  const TableData table = complete_table(4);
  const std::vector<uint32_t> s(4, 24), r(4, 16);
  DevicePlan plan(lower_table(table, s, r));
  CudaDenseReference ref(table, s, r);
  each_small_batch(plan, 11, [&](uint64_t M, const std::vector<uint32_t>& types, DeviceBatch& batch,
                                 std::mt19937_64& rng) {
    DevMatrix X(DType::bf16, M, 96), W(DType::bf16, 96, 64), Y(DType::bf16, M, 64);
    auto xv = integer_values(rng, M * 96, 2);
    const std::pair<uint64_t, uint64_t> nans[] = {{5, 48 + 3}, {8, 24 + 23}};  // (row, column): group 2, group 1's last
    for (auto [row, col] : nans) xv[row * 96 + col] = 0;
    X.upload(xv);
    W.upload(integer_values(rng, 96 * 64, 2));
    DevFloats ry(M * 64);
    ref.forward(types, X.view(), W.view(), ry.p);
    auto rv = ry.download();
    uint64_t expected_nan = 0;
    for (auto [row, col] : nans) {
      xv[row * 96 + col] = NAN;
      for (const auto& b : ref.blocks(types[row]))
        if (b.dst_k == col / 24)
          for (uint32_t c = 0; c < 16; ++c)
            if (!std::isnan(rv[row * 64 + b.dst_j * 16 + c])) rv[row * 64 + b.dst_j * 16 + c] = NAN, ++expected_nan;
    }
    ASSERT_GT(expected_nan, 0u);
    ASSERT_LT(expected_nan, 128u);  // some outputs of the two rows stay finite, or the test shows nothing
    X.upload(xv);
    for (const TileConfig& t : compiled_forward_tiles()) {
      if (t.engine != TileEngine::wgmma_ws && t.engine != TileEngine::wgmma_ws_resident &&
          t.engine != TileEngine::wgmma_ws_lean && t.engine != TileEngine::wgmma_ws_pair &&
          t.engine != TileEngine::narrow_law)
        continue;
      set_forward_tiles(t);
      Y.poison();
      forward(batch, ForwardSchedule::endpoint_fused, X.view(), W.view(), Y.view());
      cuda_ok(cudaDeviceSynchronize(), "forward");
      uint64_t nan = 0;
      ASSERT_TRUE(same_nonfinite(Y.download(), rv, DType::bf16, nan)) << tile_name(t) << " M " << M;
      EXPECT_EQ(nan, expected_nan);
    }
  });
  set_forward_tiles({64, 128, 5, TileEngine::wgmma_ws});  // the process default
}

// dX on every engine with 24-wide output groups, so every step of B = Wᵀ is partly empty: a NaN in
// block W_12 reaches x̄_1 of type-1 rows only (ȳ_2 W_12ᵀ), an Inf in W_33 x̄_3 of every row; the
// columns past a term (other output groups of the same W row) must not enter a sum as 0 · NaN.
// M = 36 and 37 (each_small_batch).
TEST(NonFinite, NanAndInfInWReachDxAsInTheDenseReference) {
  const TableData table = complete_table(4);
  const std::vector<uint32_t> s(4, 16), r(4, 24);
  DevicePlan plan(lower_table(table, s, r));
  CudaDenseReference ref(table, s, r);
  each_small_batch(plan, 7, [&](uint64_t M, const std::vector<uint32_t>& types, DeviceBatch& batch,
                                std::mt19937_64& rng) {
    DevMatrix dY(DType::bf16, M, 96), W(DType::bf16, 64, 96), dX(DType::bf16, M, 64);
    dY.upload(integer_values(rng, M * 96, 2));
    auto wv = integer_values(rng, 64 * 96, 2);
    wv[(16 + 3) * 96 + 48 + 5] = NAN;       // block W_12
    wv[(48 + 1) * 96 + 72 + 20] = INFINITY;  // block W_33
    W.upload(wv);
    DevFloats rx(M * 64);
    ref.grad_x(types, dY.view(), W.view(), rx.p);
    const auto rv = rx.download();
    for (TileEngine e : {TileEngine::wgmma, TileEngine::wgmma_many, TileEngine::wgmma_many_lean,
                         TileEngine::cublas_batched}) {  // M = 36: cuBLAS's GEMMs; 37: the kernel fallback
      set_backward_engines({e, TileEngine::wgmma_many});
      dX.poison();
      backward_dx(batch, dY.view(), W.view(), dX.view());
      cuda_ok(cudaDeviceSynchronize(), "backward_dx");
      uint64_t nan = 0;
      ASSERT_TRUE(same_nonfinite(dX.download(), rv, DType::bf16, nan)) << "engine " << uint32_t(e) << " M " << M;
      EXPECT_GT(nan, 0u);
      EXPECT_LT(nan, M * 64 / 4);  // the NaN stays in x̄_1 of type-1 rows (and wherever the Inf meets it)
    }
  });
  set_backward_engines({});
}

}  // namespace
}  // namespace qalg::gpu::test
