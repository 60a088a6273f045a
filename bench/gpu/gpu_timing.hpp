#pragma once
// Timing on the GPU (issue 7): a call captured once into a CUDA graph, replays timed with CUDA
// events, optional L2 flush (a 512 MiB memset) before each replay, optionally a hold instead (the
// held warm protocol, Timer::set_hold_us), alternating trials of two calls, medians with the
// 10th–90th percentile spread. Dense peers: cuBLAS and the best of cuBLASLt's heuristic
// candidates, whichever is faster for the shape.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "qalg/gpu/cuda_bench_support.hpp"

namespace qalg::bench {

inline void ok(cudaError_t e, const char* w) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(w) + ": " + cudaGetErrorString(e));
}
inline void ok(cublasStatus_t s, const char* w) {
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(w) + ": cuBLAS status " + std::to_string(int(s)));
}

struct Stats {
  double median = 0, p10 = 0, p90 = 0;
};
inline Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  auto at = [&](double f) { return v[std::min(v.size() - 1, size_t(f * (v.size() - 1) + 0.5))]; };
  return {at(0.5), at(0.1), at(0.9)};
}

class GraphCall {
 public:
  // With `inside` (Timer::graph_events), the graph also records those two events around the call, as
  // nodes of its own (cudaEventRecordExternal): Timer::once_in_graph times the call inside its graph.
  GraphCall(cudaStream_t s, const std::function<void(cudaStream_t)>& f,
            std::pair<cudaEvent_t, cudaEvent_t> inside = {nullptr, nullptr})
      : s_(s) {
    f(s);  // warm-up outside capture: work lists, function attributes, cuBLAS heuristics
    f(s);
    ok(cudaStreamSynchronize(s), "warm-up");
    cudaGraph_t g;
    ok(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "begin capture");
    if (inside.first) ok(cudaEventRecordWithFlags(inside.first, s, cudaEventRecordExternal), "event node");
    f(s);
    if (inside.second) ok(cudaEventRecordWithFlags(inside.second, s, cudaEventRecordExternal), "event node");
    ok(cudaStreamEndCapture(s, &g), "end capture");
    ok(cudaGraphInstantiate(&exec_, g, 0), "instantiate");
    cudaGraphDestroy(g);
  }
  ~GraphCall() { cudaGraphExecDestroy(exec_); }
  GraphCall(const GraphCall&) = delete;
  GraphCall& operator=(const GraphCall&) = delete;
  void launch() const { ok(cudaGraphLaunch(exec_, s_), "graph launch"); }

 private:
  cudaStream_t s_;
  cudaGraphExec_t exec_ = nullptr;
};

class Timer {
 public:
  explicit Timer(cudaStream_t s) : s_(s) {
    ok(cudaMalloc(&flush_, kFlushBytes), "flush buffer");
    ok(cudaEventCreate(&a_), "event");
    ok(cudaEventCreate(&b_), "event");
    ok(cudaEventCreate(&c_), "event");
    ok(cudaEventCreate(&d_), "event");
  }
  ~Timer() { cudaFree(flush_), cudaEventDestroy(a_), cudaEventDestroy(b_), cudaEventDestroy(c_), cudaEventDestroy(d_); }
  // (Forty-fourth session) The events a GraphCall records inside its graph, for once_in_graph (the
  // launch probe's). Why: the held protocol took only 0.3-0.5 µs off an empty kernel's replay (3.4 ->
  // 3.0 µs, H100); timed between two of its graph's own nodes the empty kernel took the same 2.8-3.2
  // µs and a 20 µs hold 23.0: the rest is each kernel's own start and end on the GPU, paid per
  // kernel inside a graph too, not the graph's launch.
  std::pair<cudaEvent_t, cudaEvent_t> graph_events() const { return {c_, d_}; }
  // Microseconds between the graph's two event nodes of one replay, behind a hold (g built with
  // graph_events()).
  double once_in_graph(const GraphCall& g) {
    gpu::device_hold(hold_ns_, s_);
    g.launch();
    ok(cudaStreamSynchronize(s_), "sync");
    float ms = 0;
    ok(cudaEventElapsedTime(&ms, c_, d_), "elapsed (graph events)");
    return ms * 1e3;
  }
  // (Forty-fourth session) The held warm protocol: with held, each warm replay's opening event
  // waits behind gpu::device_hold(hold_us) on the stream. Why: a replay timed on an idle GPU holds,
  // between its two events, the host's cudaGraphLaunch (the GPU reaches the opening event at once
  // and then waits for the graph); an empty kernel's replay timed so took 3.1-4.0 µs, a third of the
  // Qwen3-30B expert's row. The flushed trials never held that wait: their 512 MiB memset runs
  // while the host submits. Held, warm and flushed time the same thing, the GPU's work. Measured
  // (forty-fourth session, H100): the host's part is 0.3-1.0 µs; the rest is the GPU's per kernel.
  void set_hold_us(uint32_t us) { hold_ns_ = uint64_t(us) * 1000; }
  uint32_t hold_us() const { return uint32_t(hold_ns_ / 1000); }
  // Held or flushed replays whose opening event the GPU had passed before the host had submitted
  // the replay and its closing event (the hold or the memset ended too soon): their time may hold
  // a wait for the host. Counted since the last reset.
  int late() const { return late_; }
  void reset_late() { late_ = 0; }
  // Microseconds of one replay.
  double once(const GraphCall& g, bool flush, bool held = false) {
    if (flush) ok(cudaMemsetAsync(flush_, ++salt_, kFlushBytes, s_), "flush");
    else if (held) gpu::device_hold(hold_ns_, s_);
    ok(cudaEventRecord(a_, s_), "record");
    g.launch();
    ok(cudaEventRecord(b_, s_), "record");
    if (flush || held) {
      const cudaError_t q = cudaEventQuery(a_);
      if (q == cudaSuccess) ++late_;
      else if (q != cudaErrorNotReady) ok(q, "event query");
      if (cudaPeekAtLastError() == cudaErrorNotReady) cudaGetLastError();  // not an error: leave none behind
    }
    ok(cudaEventSynchronize(b_), "sync");
    float ms = 0;
    ok(cudaEventElapsedTime(&ms, a_, b_), "elapsed");
    return ms * 1e3;
  }
  // Alternating trials of two calls; returns their stats.
  std::pair<Stats, Stats> alternate(const GraphCall& x, const GraphCall& y, bool flush, int trials, bool held = false) {
    std::vector<double> tx, ty;
    once(x, flush, held), once(y, flush, held);
    for (int t = 0; t < trials; ++t) tx.push_back(once(x, flush, held)), ty.push_back(once(y, flush, held));
    return {stats(tx), stats(ty)};
  }
  Stats alone(const GraphCall& x, bool flush, int trials, bool held = false) {
    std::vector<double> tx;
    once(x, flush, held);
    for (int t = 0; t < trials; ++t) tx.push_back(once(x, flush, held));
    return stats(tx);
  }

 private:
  static constexpr size_t kFlushBytes = size_t(512) << 20;  // > 8× the 60 MB L2
  cudaStream_t s_;
  void* flush_ = nullptr;
  int salt_ = 0;
  uint64_t hold_ns_ = 20000;  // 20 µs: several times the host's submission of a replay and an event
  int late_ = 0;
  cudaEvent_t a_, b_, c_, d_;  // c_, d_: recorded by graphs' own nodes (graph_events)
};

// Row-major C (M×N) = A (M×K) · B (K×N) (or Bᵀ / Aᵀ variants through the flags), BF16 in and
// out, FP32 accumulate, by cuBLAS (default algorithm) or by one cuBLASLt heuristic candidate.
struct DenseGemm {
  cublasHandle_t blas = nullptr;
  cublasLtHandle_t lt = nullptr;
  void* lt_ws = nullptr;
  static constexpr size_t kLtWs = size_t(64) << 20;
  DenseGemm() {
    ok(cublasCreate(&blas), "cublasCreate");
    ok(cublasLtCreate(&lt), "cublasLtCreate");
    ok(cudaMalloc(&lt_ws, kLtWs), "lt workspace");
  }
  ~DenseGemm() { cublasDestroy(blas), cublasLtDestroy(lt), cudaFree(lt_ws); }

  // op_a / op_b: transpose the row-major operand (A is M×K or K×M stored; B is K×N or N×K).
  void blas_gemm(cudaStream_t s, const void* A, const void* B, void* C, int M, int N, int K,
                 bool ta = false, bool tb = false) const {
    const float one = 1, zero = 0;
    ok(cublasSetStream(blas, s), "cublasSetStream");
    ok(cublasGemmEx(blas, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N, N, M, K,
                    &one, B, CUDA_R_16BF, tb ? K : N, A, CUDA_R_16BF, ta ? M : K, &zero, C,
                    CUDA_R_16BF, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
       "cublasGemmEx");
  }

  struct LtPlan {
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
    std::vector<cublasLtMatmulHeuristicResult_t> algos;
  };
  LtPlan lt_plan(int M, int N, int K, bool ta, bool tb) const {
    LtPlan p;
    ok(cublasLtMatmulDescCreate(&p.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "lt desc");
    cublasOperation_t opa = tb ? CUBLAS_OP_T : CUBLAS_OP_N, opb = ta ? CUBLAS_OP_T : CUBLAS_OP_N;
    ok(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSA, &opa, sizeof(opa)), "lt attr");
    ok(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSB, &opb, sizeof(opb)), "lt attr");
    // Column-major view: C^T (N×M) = op(B^T) op(A^T).
    ok(cublasLtMatrixLayoutCreate(&p.a, CUDA_R_16BF, tb ? K : N, tb ? N : K, tb ? K : N), "lt layout");
    ok(cublasLtMatrixLayoutCreate(&p.b, CUDA_R_16BF, ta ? M : K, ta ? K : M, ta ? M : K), "lt layout");
    ok(cublasLtMatrixLayoutCreate(&p.c, CUDA_R_16BF, N, M, N), "lt layout");
    cublasLtMatmulPreference_t pref;
    ok(cublasLtMatmulPreferenceCreate(&pref), "lt pref");
    size_t ws = kLtWs;
    ok(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)), "lt pref");
    p.algos.resize(8);
    int found = 0;
    ok(cublasLtMatmulAlgoGetHeuristic(lt, p.desc, p.a, p.b, p.c, p.c, pref, 8, p.algos.data(), &found), "lt heuristic");
    p.algos.resize(found);
    cublasLtMatmulPreferenceDestroy(pref);
    return p;
  }
  void lt_gemm(cudaStream_t s, const LtPlan& p, size_t algo, const void* A, const void* B,
               void* C) const {
    const float one = 1, zero = 0;
    ok(cublasLtMatmul(lt, p.desc, &one, B, p.a, A, p.b, &zero, C, p.c, C, p.c,
                      &p.algos[algo].algo, lt_ws, kLtWs, s),
       "cublasLtMatmul");
  }
};

}  // namespace qalg::bench
