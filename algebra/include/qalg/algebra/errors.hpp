#pragma once
// One error type per boundary (STYLE.md). The qalg command maps InputError to exit code 2.
#include <stdexcept>
#include <string>

namespace qalg {

// Bad input: malformed file, unknown family, impossible size, p not prime, ... (exit 2).
// The message names the file/line/argument at fault and what was expected.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A resource guard refused work before allocating (also exit 2).
class ResourceError : public InputError {
 public:
  using InputError::InputError;
};

}  // namespace qalg
