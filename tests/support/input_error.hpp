#pragma once
// The message of the InputError that f throws, or "" when it throws none: tests assert on what a
// bad input's error names.
#include <functional>
#include <string>

#include "qalg/algebra/errors.hpp"

namespace qalg::test_support {

inline std::string input_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace qalg::test_support
