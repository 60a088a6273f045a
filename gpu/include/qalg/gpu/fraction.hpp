#pragma once
// Exact coefficients as int64 fractions num/den (den > 0, lowest terms), the gpu module's
// FLINT-free stand-in for rationals. Every operation checks for int64 overflow and throws
// std::invalid_argument rather than wrapping, so a too-large coefficient is an input error.
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace qalg::gpu {

struct Fraction {
  int64_t num = 0, den = 1;
  bool operator==(const Fraction&) const = default;
};

// Lowest terms with den > 0; throws when den == 0 or the result does not fit int64.
Fraction normalized_fraction(int64_t num, int64_t den);
// "p", "-p", "p/q" (decimal). Throws std::invalid_argument with a short reason.
Fraction parse_fraction(std::string_view text);
// A JSON integer or a string as above; floating-point numbers are rejected (not exact).
Fraction fraction_from_json(const nlohmann::json& v);
// "p" when den == 1, else "p/q".
std::string fraction_text(const Fraction& f);
// Exact product, overflow-checked.
Fraction multiply(const Fraction& a, const Fraction& b);

}  // namespace qalg::gpu
