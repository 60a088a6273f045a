#pragma once
// A validator for options read into 64-bit unsigned integers (seeds, budgets, counts). Why: CLI11
// 2.1 reads them with strtoull, which takes "-1" as 2^64 - 1 and saturates 99999999999999999999
// without a word, so `check --seed -1` ran with seed 18446744073709551615 and `search --target -1`
// stopped at once with "target reached". 32-bit options are range-checked by CLI11 itself.
#include <charconv>
#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace qalg::cli {

inline const CLI::Validator kCount(
    [](std::string& text) -> std::string {
      uint64_t v = 0;
      const char* end = text.data() + text.size();
      const auto [p, ec] = std::from_chars(text.data(), end, v);
      if (text.empty() || ec == std::errc::invalid_argument || p != end)
        return "'" + text + "' is not an integer >= 0";
      if (ec == std::errc::result_out_of_range) return "'" + text + "' is too large (at most 18446744073709551615)";
      return "";
    },
    "INT>=0", "count");

}  // namespace qalg::cli
