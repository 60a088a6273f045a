// libFuzzer target: certificate JSON -> qalg::verify::verify_certificate, which re-checks every
// claim from the embedded table. A malformed certificate is an InputError; a well-formed one with
// false claims is a verdict (valid = false) with a one-line first failure, never a crash.
#include "fuzz_support.hpp"
#include "qalg/algebra/errors.hpp"
#include "qalg/verify/certificate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace qalg;
  return fuzz::on_json<InputError>(data, size, [](const nlohmann::json& j) {
    verify::CertificateVerdict v = verify::verify_certificate(j, "fuzz.json");
    if (!v.valid && v.first_failure().find('\n') != std::string::npos) fuzz::fail("first_failure is not one line");
    if (v.valid && v.checks.empty()) fuzz::fail("valid certificate with no checks");
  });
}
