// libFuzzer target: algorithm JSON -> qalg::algorithm_from_json (rank module). Law: a read
// algorithm is normalized, so writing and reading it again is the identity.
#include "fuzz_support.hpp"
#include "qalg/algebra/errors.hpp"
#include "qalg/rank/algorithm_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace qalg;
  return fuzz::on_json<InputError>(data, size, [](const nlohmann::json& j) {
    nlohmann::json once = algorithm_to_json(algorithm_from_json(j, "fuzz.json"));
    if (algorithm_to_json(algorithm_from_json(once, "round-trip")) != once)
      fuzz::fail("algorithm JSON round trip is not the identity");
  });
}
