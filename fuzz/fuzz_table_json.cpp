// libFuzzer target: table JSON -> qalg::table_from_json (the algebra module's reader, used by
// --table-file and inside certificates). Laws: table_to_json reads back to an equal table with the
// same hash; small tables go through the whole inspect report (associativity, unit, the graph
// route chosen from the file's "graph" hint, which must never be trusted blindly).
#include "fuzz_support.hpp"
#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/report.hpp"
#include "qalg/algebra/table_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace qalg;
  return fuzz::on_json<InputError>(data, size, [](const nlohmann::json& j) {
    StructureTensor t = table_from_json(j, "fuzz.json");
    StructureTensor back = table_from_json(table_to_json(t), "round-trip");
    if (!(back == t) || table_hash(back) != table_hash(t)) fuzz::fail("table JSON round trip changed the table");
    if (t.dim() <= 12) inspect_algebra(t);
  });
}
