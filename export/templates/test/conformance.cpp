// Conformance test of an exported kernel package: every entry point of qalg_kernels.hpp against
// the dense reference (gpu DenseReference) built from the TABLE embedded in plan_data.hpp, never
// from the plan the kernels read (ARCHITECTURE "independence of references").
//   qalg_kernels_conformance [conformance.json]       exit 0 all pass, 1 a failure, 77 no GPU (skipped)
// Cases: bf16/fp16/fp32 × {random inputs (relative L2 within the dtype's tolerance), small
// integers (exact after rounding the reference to the dtype, when every coefficient is an
// integer)} × {random types, cyclic types}, outputs poisoned with NaN first (unwritten = NaN).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "qalg/gpu/dense_reference.hpp"
#include "qalg_kernels/plan_data.hpp"
#include "qalg_kernels/qalg_kernels.hpp"

namespace {
namespace g = qalg_kernels::generated;
using qalg::gpu::DType;
using Mat = qalg::gpu::RowMatrix<double>;

qalg::gpu::TableData embedded_table() {
  qalg::gpu::TableData t;
  t.field = g::kField;
  t.dim = g::kDim;
  for (uint32_t b = 0; b < g::kDim; ++b) {
    t.basis.push_back("b" + std::to_string(b));
    t.slots.emplace_back(g::kSlots[b].row, g::kSlots[b].col);
  }
  for (size_t e = 0; e < g::kEntryCount; ++e) {
    const auto& c = g::kEntries[e];
    t.entries.push_back({c.a, c.b, c.c, c.num, c.den});
  }
  t.slot_grid = g::kSlotGrid;
  t.hash = g::kTableHash;
  return t;
}

void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// Host value <-> stored element of a dtype (round to nearest even, as the kernels' epilogue).
double round_to(DType t, double v) {
  if (t == DType::bf16) return double(__bfloat162float(__float2bfloat16_rn(float(v))));
  if (t == DType::f16) return double(__half2float(__float2half_rn(float(v))));
  return double(float(v));
}

// A device matrix holding `m` in dtype `t`; download() reads it back as doubles.
struct DeviceMat {
  DType t;
  long rows, cols;
  void* ptr = nullptr;
  DeviceMat(DType dt, long r, long c) : t(dt), rows(r), cols(c) {
    cuda_ok(cudaMalloc(&ptr, std::max<size_t>(16, bytes())), "cudaMalloc");
  }
  ~DeviceMat() { cudaFree(ptr); }
  size_t esize() const { return t == DType::f32 ? 4 : 2; }
  size_t bytes() const { return size_t(rows) * cols * esize(); }
  qalg::gpu::DeviceMatrix view() const { return {ptr, t, uint64_t(rows), uint64_t(cols)}; }
  void upload(const Mat& m) {
    std::vector<unsigned char> host(bytes());
    for (long i = 0; i < rows * cols; ++i) {
      const float v = float(m.data()[i]);
      if (t == DType::f32) reinterpret_cast<float*>(host.data())[i] = v;
      else if (t == DType::bf16) reinterpret_cast<__nv_bfloat16*>(host.data())[i] = __float2bfloat16_rn(v);
      else reinterpret_cast<__half*>(host.data())[i] = __float2half_rn(v);
    }
    cuda_ok(cudaMemcpy(ptr, host.data(), bytes(), cudaMemcpyHostToDevice), "upload");
  }
  void poison() {  // NaN in every element (0xFF bytes are NaN in all three dtypes)
    cuda_ok(cudaMemset(ptr, 0xFF, bytes()), "poison");
  }
  Mat download() const {
    std::vector<unsigned char> host(bytes());
    cuda_ok(cudaMemcpy(host.data(), ptr, bytes(), cudaMemcpyDeviceToHost), "download");
    Mat m(rows, cols);
    for (long i = 0; i < rows * cols; ++i) {
      if (t == DType::f32) m.data()[i] = reinterpret_cast<float*>(host.data())[i];
      else if (t == DType::bf16) m.data()[i] = __bfloat162float(reinterpret_cast<__nv_bfloat16*>(host.data())[i]);
      else m.data()[i] = __half2float(reinterpret_cast<__half*>(host.data())[i]);
    }
    return m;
  }
};

Mat random_matrix(std::mt19937_64& rng, DType t, long r, long c, bool integers) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::uniform_int_distribution<int> small(-2, 2);
  Mat m(r, c);
  for (long i = 0; i < r * c; ++i) m.data()[i] = integers ? small(rng) : round_to(t, u(rng));
  return m;
}

struct Row {
  std::string kernel, dtype, inputs, types;
  long M = 0;
  double rel_l2 = 0, max_abs = 0;
  long unwritten = 0, mismatches = 0;
  bool pass = false;
};

// Compares a kernel result with the reference: relative L2 for random inputs, exact equality
// with the reference rounded to the dtype for integer inputs.
Row compare(Row r, DType t, const Mat& got, const Mat& want, bool exact) {
  double num = 0, den = 0;
  for (long i = 0; i < got.size(); ++i) {
    const double a = got.data()[i], b = want.data()[i];
    if (std::isnan(a)) { ++r.unwritten; continue; }
    num += (a - b) * (a - b);
    den += b * b;
    r.max_abs = std::max(r.max_abs, std::fabs(a - b));
    if (exact && a != round_to(t, b)) ++r.mismatches;
  }
  r.rel_l2 = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  const double tol = t == DType::bf16 ? 1e-2 : t == DType::f16 ? 2e-3 : 1e-5;
  r.pass = r.unwritten == 0 && (exact ? r.mismatches == 0 : r.rel_l2 <= tol);
  return r;
}

bool integer_coefficients() {
  for (size_t e = 0; e < g::kEntryCount; ++e)
    if (g::kEntries[e].den != 1) return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "qalg_kernels_conformance: no CUDA device (skipped)\n");
    return 77;  // ctest: SKIP_RETURN_CODE (a machine without a GPU skips, it does not fail)
  }
  const std::string out = argc > 1 ? argv[1] : "conformance.json";
  const uint32_t q = qalg_kernels::q();
  const long K = long(qalg_kernels::K()), N = long(qalg_kernels::N()), M = 203;
  const qalg::gpu::DenseReference ref(embedded_table(), qalg_kernels::plan().input_widths,
                                      qalg_kernels::plan().output_widths);
  std::mt19937_64 rng(20261129);
  std::vector<Row> rows;
  const DType dtypes[] = {qalg_kernels::default_dtype(), DType::bf16, DType::f16, DType::f32};
  std::vector<DType> done;
  for (DType t : dtypes) {
    if (std::find(done.begin(), done.end(), t) != done.end()) continue;
    done.push_back(t);
    for (bool integers : {false, true}) {
      if (integers && !integer_coefficients()) continue;
      for (bool cyclic : {false, true}) {
        std::vector<uint32_t> types(M);
        std::uniform_int_distribution<uint32_t> pick(0, q - 1);
        for (long p = 0; p < M; ++p) types[p] = cyclic ? uint32_t(p % q) : pick(rng);
        const Mat X = random_matrix(rng, t, M, K, integers), W = random_matrix(rng, t, K, N, integers);
        const Mat dY = random_matrix(rng, t, M, N, integers);
        DeviceMat dX_(t, M, K), dW_(t, K, N), ddY(t, M, N), Y(t, M, N), gX(t, M, K), gW(t, K, N);
        dX_.upload(X), dW_.upload(W), ddY.upload(dY);
        qalg_kernels::Batch batch(types);
        Row base{"", qalg::gpu::dtype_name(t), integers ? "integer" : "random", cyclic ? "cyclic" : "random", M};
        const Mat Yref = ref.forward(X, W, types);

        Row r = base;
        r.kernel = "forward";
        Y.poison();
        qalg_kernels::forward(batch, dX_.view(), dW_.view(), Y.view());
        cuda_ok(cudaDeviceSynchronize(), "forward");
        rows.push_back(compare(r, t, Y.download(), Yref, integers));

        r.kernel = "forward_diagonal_first";
        float* ws = nullptr;
        cuda_ok(cudaMalloc(&ws, sizeof(float) * M * N), "workspace");
        Y.poison();
        qalg_kernels::forward_diagonal_first(batch, dX_.view(), dW_.view(), Y.view(), ws);
        cuda_ok(cudaDeviceSynchronize(), "forward_diagonal_first");
        cudaFree(ws);
        rows.push_back(compare(r, t, Y.download(), Yref, integers));

        r.kernel = "backward_dx";
        gX.poison();
        qalg_kernels::backward_dx(batch, ddY.view(), dW_.view(), gX.view());
        cuda_ok(cudaDeviceSynchronize(), "backward_dx");
        rows.push_back(compare(r, t, gX.download(), ref.backward_input(dY, W, types), integers));

        r.kernel = "backward_dw";
        gW.poison();
        qalg_kernels::backward_dw(batch, dX_.view(), ddY.view(), gW.view());
        cuda_ok(cudaDeviceSynchronize(), "backward_dw");
        rows.push_back(compare(r, t, gW.download(), ref.backward_weight(X, dY, types), integers));

        if (cyclic) continue;
        r.kernel = "decode";
        r.M = 1;
        for (uint32_t i = 0; i < q; ++i) {  // one row of each type, against the 1-row reference
          const Mat x = X.topRows(1);
          DeviceMat dx(t, 1, K), y(t, 1, N);
          dx.upload(x);
          y.poison();
          qalg_kernels::decode(i, dx.view(), dW_.view(), y.view());
          cuda_ok(cudaDeviceSynchronize(), "decode");
          Row d = compare(r, t, y.download(), ref.forward(x, W, {i}), integers);
          d.types = "type " + std::to_string(i);
          rows.push_back(d);
        }
      }
    }
  }

  nlohmann::json j = {{"format", "qalg-conformance"}, {"version", 1}, {"algebra", g::kAlgebra},
                      {"table_hash", g::kTableHash}, {"q", q}, {"K", K}, {"N", N}};
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  j["device"] = prop.name;
  bool all = true;
  long failures = 0;
  for (const Row& r : rows) {
    all = all && r.pass;
    failures += !r.pass;
    j["rows"].push_back({{"kernel", r.kernel}, {"dtype", r.dtype}, {"inputs", r.inputs}, {"types", r.types},
                         {"M", r.M}, {"rel_l2", r.rel_l2}, {"max_abs", r.max_abs}, {"unwritten", r.unwritten},
                         {"mismatches", r.mismatches}, {"result", r.pass ? "pass" : "FAIL"}});
    if (!r.pass)
      std::fprintf(stderr, "FAIL %s %s %s inputs, %s types: rel_l2 %.3g, unwritten %ld, mismatches %ld\n",
                   r.kernel.c_str(), r.dtype.c_str(), r.inputs.c_str(), r.types.c_str(), r.rel_l2,
                   r.unwritten, r.mismatches);
  }
  j["all_pass"] = all;
  const std::string tmp = out + ".tmp";
  std::ofstream(tmp) << j.dump(2) << "\n";
  if (std::rename(tmp.c_str(), out.c_str()) != 0) {
    std::fprintf(stderr, "cannot write %s\n", out.c_str());
    return 2;
  }
  std::printf("%s on %s: %zu checks, %ld failures (q = %u, K = %ld, N = %ld); wrote %s\n", g::kAlgebra,
              prop.name, rows.size(), failures, q, K, N, out.c_str());
  return all ? 0 : 1;
}
