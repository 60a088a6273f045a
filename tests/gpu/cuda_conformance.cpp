// The conformance runner (cuda_conformance.hpp): kernels read the lowered plan, references read
// the table; outputs are poisoned with NaN before every launch.
#include "cuda_conformance.hpp"

#include <cmath>
#include <sstream>
#include <string>

#include "qalg/gpu/cuda_dense_reference.hpp"
#include "qalg/gpu/lowering.hpp"
#include "qalg/gpu/schedule.hpp"

namespace qalg::gpu::test {
namespace {

struct Ctx {
  const TableCase& c;
  DType t;
  bool integer;
  uint64_t M;
};

void check(const Ctx& x, const std::string& kernel, uint64_t rows, uint64_t K, uint64_t N,
           const std::vector<float>& out, const std::vector<float>& ref) {
  const Comparison cmp = compare(out, ref, x.t);
  const bool pass = cmp.unwritten == 0 && (x.integer ? cmp.mismatches == 0 : cmp.rel_l2 <= tolerance(x.t));
  std::ostringstream row;
  row << x.c.name << ',' << kernel << ',' << dtype_name(x.t) << ',' << (x.integer ? "integer" : "random")
      << ',' << rows << ',' << K << ',' << N << ',' << cmp.rel_l2 << ',' << cmp.max_abs << ','
      << cmp.unwritten << ',' << cmp.mismatches << ',' << (pass ? "pass" : "FAIL");
  record(row.str());
  EXPECT_TRUE(pass) << row.str();
}

std::vector<float> inputs(const Ctx& x, std::mt19937_64& rng, size_t n, int lim, float scale) {
  return x.integer ? integer_values(rng, n, lim) : random_values(rng, x.t, n, scale);
}

}  // namespace

void run_conformance(const TableCase& c, DType t, bool integer, uint64_t M, uint64_t seed,
                     unsigned kernels) {
  SCOPED_TRACE(c.name + " " + dtype_name(t) + (integer ? " integer" : " random"));
  const Ctx x{c, t, integer, M};
  std::mt19937_64 rng(seed);
  const uint32_t q = *c.table.slot_grid;
  DevicePlan plan(lower_table(c.table, c.s, c.r));
  CudaDenseReference ref(c.table, c.s, c.r);
  const uint64_t K = plan.K(), N = plan.N();
  // Integer mode: explicit random types (uneven counts per type); random mode: cyclic.
  std::vector<uint32_t> types(M);
  std::uniform_int_distribution<uint32_t> pick(0, q - 1);
  for (uint64_t p = 0; p < M; ++p) types[p] = integer ? pick(rng) : uint32_t(p % q);
  DeviceBatch batch(plan, types);

  DevMatrix X(t, M, K), W(t, K, N), Y(t, M, N), dY(t, M, N), dX(t, M, K), dW(t, K, N);
  X.upload(inputs(x, rng, M * K, 3, 1.0f));
  W.upload(inputs(x, rng, K * N, 2, 1.0f / std::sqrt(float(K))));
  dY.upload(inputs(x, rng, M * N, 3, 1.0f));
  DevFloats ref_y(M * N), ref_dx(M * K), ref_dw(K * N), ws(M * N);
  const auto sync = [] { cuda_ok(cudaDeviceSynchronize(), "kernel"); };

  if (kernels & (kFwdFused | kFwdDiag)) {
    ref.forward(types, X.view(), W.view(), ref_y.p);
    const auto yref = ref_y.download();
    for (auto s : {ForwardSchedule::endpoint_fused, ForwardSchedule::diagonal_first}) {
      if (!(kernels & (s == ForwardSchedule::endpoint_fused ? kFwdFused : kFwdDiag))) continue;
      Y.poison();
      cuda_ok(cudaMemset(ws.p, 0xff, M * N * 4), "poison ws");
      forward(batch, s, X.view(), W.view(), Y.view(), ws.p);
      sync();
      check(x, std::string("forward/") + schedule_name(s), M, K, N, Y.download(), yref);
    }
  }
  if (kernels & kDecode) {  // each type once, on a fresh row, with every decode staging
    DevMatrix x1(t, 1, K), y1(t, 1, N);
    DevFloats r1(N);
    // pass 3: registers without the deep batches (where the launcher would pick them)
    const char* names[] = {"", "/cp_async", "/bulk", "/shallow"};
    for (int pass = 0; pass < 4; ++pass) {
      const DecodeStaging st = pass == 3 ? DecodeStaging::registers : DecodeStaging(pass);
      set_decode_engines(st, true, pass != 3);
      for (uint32_t i = 0; i < q; i += std::max<uint32_t>(1, q / 8)) {
        x1.upload(inputs(x, rng, K, 3, 1.0f));
        y1.poison();
        decode(plan, i, x1.view(), W.view(), y1.view());
        sync();
        ref.forward({i}, x1.view(), W.view(), r1.p);
        check(x, "decode/type" + std::to_string(i) + names[pass], 1, K, N, y1.download(), r1.download());
      }
    }
    set_decode_engines(DecodeStaging::registers, true);
  }
  if (kernels & kGradX) {
    dX.poison();
    backward_dx(batch, dY.view(), W.view(), dX.view());
    sync();
    ref.grad_x(types, dY.view(), W.view(), ref_dx.p);
    check(x, "dX", M, K, N, dX.download(), ref_dx.download());
  }
  if (kernels & kGradW) {
    dW.poison();
    backward_dw(batch, X.view(), dY.view(), dW.view());
    sync();
    ref.grad_w(types, X.view(), dY.view(), ref_dw.p);
    check(x, "dW", M, K, N, dW.download(), ref_dw.download());
  }
  bool square = kernels & kSquare;
  for (uint32_t g = 0; g < q; ++g) square = square && c.s[g] == c.s[0] && c.r[g] == c.s[0];
  if (square) {  // n = q·b, the rows of block-row a have type a
    const uint64_t n = K;
    const auto itypes = interval_types(n, q, n / q);
    DeviceBatch sb(plan, itypes);
    DevMatrix A(t, n, n), B(t, n, n), C(t, n, n);
    DevFloats rc(n * n);
    A.upload(inputs(x, rng, n * n, 3, 1.0f));
    B.upload(inputs(x, rng, n * n, 2, 1.0f / std::sqrt(float(n))));
    C.poison();
    block_product(sb, A.view(), B.view(), C.view());
    sync();
    ref.forward(itypes, A.view(), B.view(), rc.p);
    check(x, "square", n, n, n, C.download(), rc.download());
  }
  if ((kernels & kFfn) && !integer) {  // D = K → F = N → D, SiLU is not exact: random only
    DevicePlan down_plan(lower_table(c.table, c.r, c.s));
    CudaDenseReference ref_down(c.table, c.r, c.s);
    DeviceBatch down(down_plan, types);
    DevMatrix Wu(t, K, N), Wd(t, N, K), H(t, M, N), Yf(t, M, K);
    Wu.upload(random_values(rng, t, K * N, 1.0f / std::sqrt(float(K))));
    Wd.upload(random_values(rng, t, N * K, 1.0f / std::sqrt(float(N))));
    H.poison();
    Yf.poison();
    gated_ffn(batch, down, X.view(), W.view(), Wu.view(), Wd.view(), H.view(), Yf.view());
    sync();
    DevFloats g(M * N), u(M * N), yf(M * K);
    ref.forward(types, X.view(), W.view(), g.p);
    ref.forward(types, X.view(), Wu.view(), u.p);
    auto gv = g.download(), uv = u.download();
    for (size_t e = 0; e < gv.size(); ++e) gv[e] = gv[e] / (1.0f + std::exp(-gv[e])) * uv[e];
    check(x, "ffn/H", M, K, N, H.download(), gv);
    ref_down.forward(types, H.view(), Wd.view(), yf.p);  // down reference on the kernel's H
    check(x, "ffn/Y", M, K, N, Yf.download(), yf.download());
    // Decode form for type 0 and the last type (the diagonal block of the last group); then again
    // in one launch (set_decode_fused) where that applies, rows tagged "/fused".
    DevMatrix x1(t, 1, K), h1(t, 1, N), y1(t, 1, K);
    for (int fused : {-1, 0})
    for (uint32_t type : {0u, q - 1}) {
      set_decode_fused(fused);
      if (fused == 0 && decode_fused_chunks(plan, down_plan, t) == 0) break;
      x1.upload(random_values(rng, t, K, 1.0f));
      h1.poison();
      y1.poison();
      gated_ffn_decode(plan, down_plan, type, x1.view(), W.view(), Wu.view(), Wd.view(), h1.view(), y1.view());
      sync();
      DevFloats g1(N), u1(N), y1r(K);
      ref.forward({type}, x1.view(), W.view(), g1.p);
      ref.forward({type}, x1.view(), Wu.view(), u1.p);
      auto g1v = g1.download(), u1v = u1.download();
      for (size_t e = 0; e < g1v.size(); ++e) g1v[e] = g1v[e] / (1.0f + std::exp(-g1v[e])) * u1v[e];
      const std::string at = (type == 0 ? "" : "/type" + std::to_string(type)) + (fused == 0 ? "/fused" : "");
      check(x, "ffn-decode/h" + at, 1, K, N, h1.download(), g1v);
      ref_down.forward({type}, h1.view(), Wd.view(), y1r.p);
      check(x, "ffn-decode/y" + at, 1, K, N, y1.download(), y1r.download());
    }
    set_decode_fused(-1);
  }
}

}  // namespace qalg::gpu::test
