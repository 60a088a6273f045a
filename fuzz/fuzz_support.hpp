#pragma once
// Shared by the libFuzzer targets (issue 12). An input path passes when it either returns a value
// or throws its boundary's error type (qalg::InputError, std::invalid_argument for the gpu
// module): those are answered with exit 2 by `qalg`. Anything else — another exception, an abort,
// a sanitizer report, a broken round trip — is a finding, so it is never caught here.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace qalg::fuzz {

inline std::string_view text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// JSON documents: malformed JSON is the JSON library's concern (the readers' callers turn its
// parse_error into an InputError); the readers are fuzzed on whatever parses.
inline bool parse_json(const uint8_t* data, size_t size, nlohmann::json& out) {
  out = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  return !out.is_discarded();
}

// Runs body(json) on each input that parses as JSON; `Expected` (the reader's boundary error) is
// an answer, any other exception escapes to libFuzzer as a finding.
template <class Expected, class Body>
int on_json(const uint8_t* data, size_t size, Body body) {
  nlohmann::json j;
  if (!parse_json(data, size, j)) return 0;
  try {
    body(j);
  } catch (const Expected&) {
  }
  return 0;
}

// A broken law is a crash: libFuzzer saves the input that produced it.
[[noreturn]] inline void fail(const char* what) {
  fprintf(stderr, "fuzz law broken: %s\n", what);
  std::abort();
}

}  // namespace qalg::fuzz
