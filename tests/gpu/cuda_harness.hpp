#pragma once
// Device-side test harness of the CUDA kernels: owned device matrices of any dtype, host-side
// rounding to BF16/FP16 (round to nearest even, as the kernels' epilogue), integer-valued and
// random inputs, NaN poisoning, and the comparison that a conformance row records.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "qalg/gpu/kernels.hpp"

namespace qalg::gpu::test {

inline void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// IEEE binary32 -> bfloat16 / binary16 bits, round to nearest even; and back.
inline uint16_t f32_to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);  // quiet NaN
  u += 0x7fffu + ((u >> 16) & 1u);
  return uint16_t(u >> 16);
}
inline float bf16_to_f32(uint16_t b) {
  uint32_t u = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint16_t f32_to_f16(float f) {
  // Through the FP16 grid: exact rounding for the magnitudes the tests use (|f| < 65504).
  if (std::isnan(f)) return 0x7e00;
  const float a = std::fabs(f);
  uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  if (a >= 65520.0f) return sign | 0x7c00;
  if (a < 6.103515625e-05f) {  // subnormal: multiples of 2^-24
    const float m = std::nearbyint(a * 16777216.0f);
    return sign | uint16_t(m);
  }
  int e;
  float m = std::frexp(a, &e);                     // a = m 2^e, m in [0.5, 1)
  float scaled = std::nearbyint(m * 2048.0f);      // 11 significant bits
  if (scaled == 2048.0f) scaled = 1024.0f, ++e;
  const uint16_t exp_bits = uint16_t(e - 1 + 15);
  return sign | uint16_t(exp_bits << 10) | uint16_t(uint32_t(scaled) - 1024u);
}
inline float f16_to_f32(uint16_t h) {
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  const float s = (h & 0x8000) ? -1.0f : 1.0f;
  if (e == 0) return s * std::ldexp(float(m), -24);
  if (e == 31) return m ? NAN : s * INFINITY;
  return s * std::ldexp(float(m + 1024), e - 25);
}
// v rounded to the dtype's grid, as a float.
inline float round_to(DType t, float v) {
  if (t == DType::bf16) return bf16_to_f32(f32_to_bf16(v));
  if (t == DType::f16) return f16_to_f32(f32_to_f16(v));
  return v;
}

// An owned device matrix with its dtype.
class DevMatrix {
 public:
  DevMatrix(DType t, uint64_t rows, uint64_t cols) : t_(t), rows_(rows), cols_(cols) {
    cuda_ok(cudaMalloc(&p_, std::max<uint64_t>(16, bytes())), "cudaMalloc");
  }
  ~DevMatrix() { cudaFree(p_); }
  DevMatrix(const DevMatrix&) = delete;
  DevMatrix& operator=(const DevMatrix&) = delete;
  uint64_t bytes() const { return rows_ * cols_ * dtype_size(t_); }
  DeviceMatrix view() const { return DeviceMatrix{p_, t_, rows_, cols_}; }
  void* data() const { return p_; }
  // Fills with NaN (all bits set): an element no kernel writes stays NaN. cudaMemset on device
  // memory returns before it is done, on the legacy default stream, which does not order work on
  // the non-blocking streams the tests launch on: without the wait, a graph replay on such a stream
  // could be overwritten by the poison after it (fortieth session: FfnDecode.
  // DependentLaunchReadsTheFinishedHiddenRow saw y all NaN once, at replay 2). So do uploads.
  void poison() {
    cuda_ok(cudaMemset(p_, 0xff, bytes()), "cudaMemset");
    cuda_ok(cudaDeviceSynchronize(), "poison: synchronize");
  }
  void upload(const std::vector<float>& v) {
    std::vector<unsigned char> raw(bytes());
    for (size_t e = 0; e < v.size(); ++e) {
      if (t_ == DType::f32) std::memcpy(&raw[4 * e], &v[e], 4);
      else {
        const uint16_t h = t_ == DType::bf16 ? f32_to_bf16(v[e]) : f32_to_f16(v[e]);
        std::memcpy(&raw[2 * e], &h, 2);
      }
    }
    cuda_ok(cudaMemcpy(p_, raw.data(), bytes(), cudaMemcpyHostToDevice), "upload");
    cuda_ok(cudaDeviceSynchronize(), "upload: synchronize");  // (the DMA may outlast the call)
  }
  std::vector<float> download() const {
    std::vector<unsigned char> raw(bytes());
    cuda_ok(cudaMemcpy(raw.data(), p_, bytes(), cudaMemcpyDeviceToHost), "download");
    std::vector<float> v(rows_ * cols_);
    for (size_t e = 0; e < v.size(); ++e) {
      if (t_ == DType::f32) std::memcpy(&v[e], &raw[4 * e], 4);
      else {
        uint16_t h;
        std::memcpy(&h, &raw[2 * e], 2);
        v[e] = t_ == DType::bf16 ? bf16_to_f32(h) : f16_to_f32(h);
      }
    }
    return v;
  }

 private:
  DType t_;
  uint64_t rows_, cols_;
  void* p_ = nullptr;
};

// An FP32 device buffer for references and workspaces.
struct DevFloats {
  float* p = nullptr;
  size_t n = 0;
  explicit DevFloats(size_t count) : n(count) { cuda_ok(cudaMalloc(&p, std::max<size_t>(16, n * 4)), "cudaMalloc"); }
  ~DevFloats() { cudaFree(p); }
  DevFloats(const DevFloats&) = delete;
  DevFloats& operator=(const DevFloats&) = delete;
  std::vector<float> download() const {
    std::vector<float> v(n);
    cuda_ok(cudaMemcpy(v.data(), p, n * 4, cudaMemcpyDeviceToHost), "download");
    return v;
  }
};

// Integer-valued inputs in [-lim, lim] (exact in every dtype; FP32 sums stay exact), or
// Gaussian inputs scaled by `scale`, already on the dtype's grid.
// The message of the std::invalid_argument f() throws, or "(no error)".
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

// What f(stream) enqueues, captured once into a CUDA graph; launch() replays it and waits. (Not
// bench/gpu/gpu_timing.hpp's GraphCall: the tests do not depend on the bench, and GraphCall runs
// f twice before capturing and does not wait, which suits timing, not a test of what one replay
// writes.)
class CapturedGraph {
 public:
  template <class F>
  CapturedGraph(cudaStream_t s, F&& f) : s_(s) {
    cudaGraph_t g;
    cuda_ok(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "capture");
    f(s);
    cuda_ok(cudaStreamEndCapture(s, &g), "end capture");
    cuda_ok(cudaGraphInstantiate(&exec_, g, 0), "instantiate");
    cudaGraphDestroy(g);
  }
  ~CapturedGraph() { cudaGraphExecDestroy(exec_); }
  CapturedGraph(const CapturedGraph&) = delete;
  CapturedGraph& operator=(const CapturedGraph&) = delete;
  void launch() const {
    cuda_ok(cudaGraphLaunch(exec_, s_), "launch");
    cuda_ok(cudaStreamSynchronize(s_), "sync");
  }

 private:
  cudaStream_t s_;
  cudaGraphExec_t exec_ = nullptr;
};

inline std::vector<float> integer_values(std::mt19937_64& rng, size_t n, int lim) {
  std::uniform_int_distribution<int> d(-lim, lim);
  std::vector<float> v(n);
  for (auto& x : v) x = float(d(rng));
  return v;
}
inline std::vector<float> random_values(std::mt19937_64& rng, DType t, size_t n, float scale) {
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = round_to(t, d(rng));
  return v;
}

// One conformance comparison: output (dtype grid) against an FP32 reference.
struct Comparison {
  double rel_l2 = 0, max_abs = 0;
  uint64_t unwritten = 0;   // NaN where the reference is finite (poison survived)
  uint64_t mismatches = 0;  // exact mode: elements not equal to the rounded reference
};
inline Comparison compare(const std::vector<float>& out, const std::vector<float>& ref, DType t) {
  Comparison c;
  double num = 0, den = 0;
  for (size_t e = 0; e < out.size(); ++e) {
    if (std::isnan(out[e]) && !std::isnan(ref[e])) { ++c.unwritten; continue; }
    const double d = double(out[e]) - double(ref[e]);
    num += d * d;
    den += double(ref[e]) * double(ref[e]);
    c.max_abs = std::max(c.max_abs, std::fabs(d));
    if (out[e] != round_to(t, ref[e])) ++c.mismatches;
  }
  c.rel_l2 = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  return c;
}

inline double tolerance(DType t) { return t == DType::f32 ? 1e-5 : 1e-2; }

// Appends one row to the results CSV named by $QALG_GPU_RESULTS (if set).
inline void record(const std::string& row) {
  const char* path = std::getenv("QALG_GPU_RESULTS");
  if (!path) return;
  std::ofstream f(path, std::ios::app);
  f << row << '\n';
}

}  // namespace qalg::gpu::test
