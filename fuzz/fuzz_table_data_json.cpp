// libFuzzer target: table JSON -> qalg::gpu::table_data_from_json (the gpu module's own reader,
// no FLINT), then the lowering path of `qalg lower`: slot-compatibility check and lower_table with
// unit widths, whose plan the plan reader must accept (an invalid_argument there is a finding).
#include <optional>

#include "fuzz_support.hpp"
#include "qalg/gpu/lowering.hpp"
#include "qalg/gpu/table_data.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace qalg::gpu;
  std::optional<KernelPlan> lowered;
  qalg::fuzz::on_json<std::invalid_argument>(data, size, [&](const nlohmann::json& j) {
    TableData t = table_data_from_json(j, "fuzz.json");
    check_slot_compatible(t);
    if (t.field != "Q" || *t.slot_grid > 256) return;
    std::vector<uint32_t> ones(*t.slot_grid, 1);
    lowered = lower_table(t, ones, ones);
  });
  if (lowered) plan_from_json(plan_to_json(*lowered), "lowered");
  return 0;
}
