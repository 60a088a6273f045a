// libFuzzer target: plan JSON -> qalg::gpu::plan_from_json (what the kernels and the CPU executor
// read). Laws: plan_to_json reads back to the same JSON; a plan the reader accepts is safe to
// execute — the CPU executor runs it forward and backward on a small problem (one row per type).
#include "fuzz_support.hpp"
#include "qalg/gpu/kernel_plan.hpp"
#include "qalg/gpu/plan_executor.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace qalg::gpu;
  return qalg::fuzz::on_json<std::invalid_argument>(data, size, [](const nlohmann::json& j) {
    KernelPlan p = plan_from_json(j, "fuzz.json");
    nlohmann::json once = plan_to_json(p);
    if (plan_to_json(plan_from_json(once, "round-trip")) != once) qalg::fuzz::fail("plan JSON round trip");
    if (p.q > 64 || p.K() * p.N() > (1u << 16)) return;
    std::vector<uint32_t> types(p.q);
    for (uint32_t i = 0; i < p.q; ++i) types[i] = i;
    RowMatrix<double> X = RowMatrix<double>::Ones(p.q, p.K()), W = RowMatrix<double>::Ones(p.K(), p.N());
    RowMatrix<double> Y = plan_forward(p, X, W, types);
    if (Y.rows() != p.q || Y.cols() != int64_t(p.N())) qalg::fuzz::fail("plan_forward shape");
    plan_backward_input(p, Y, W, types);
    plan_backward_weight(p, X, Y, types);
  });
}
