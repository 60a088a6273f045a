// int64 fractions with overflow checks (fraction.hpp).
#include "qalg/gpu/fraction.hpp"

#include <charconv>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace qalg::gpu {

Fraction normalized_fraction(int64_t num, int64_t den) {
  if (den == 0) throw std::invalid_argument("zero denominator");
  constexpr int64_t lo = std::numeric_limits<int64_t>::min();
  if (num == lo || den == lo) throw std::invalid_argument("coefficient does not fit in int64");
  if (den < 0) {
    num = -num;
    den = -den;
  }
  int64_t g = std::gcd(num, den);
  if (g > 1) {
    num /= g;
    den /= g;
  }
  return {num, den};
}

static int64_t parse_int64(std::string_view s, std::string_view whole) {
  int64_t v = 0;
  const char* first = s.data();
  const char* last = s.data() + s.size();
  if (!s.empty() && s.front() == '+') ++first;
  auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec == std::errc::result_out_of_range)
    throw std::invalid_argument("coefficient '" + std::string(whole) + "' does not fit in int64");
  if (ec != std::errc() || ptr != last || first == last)
    throw std::invalid_argument("coefficient '" + std::string(whole) +
                                "' is not an integer or p/q fraction");
  return v;
}

Fraction parse_fraction(std::string_view text) {
  size_t slash = text.find('/');
  if (slash == std::string_view::npos) return normalized_fraction(parse_int64(text, text), 1);
  int64_t num = parse_int64(text.substr(0, slash), text);
  int64_t den = parse_int64(text.substr(slash + 1), text);
  if (den == 0) throw std::invalid_argument("coefficient '" + std::string(text) + "' has denominator 0");
  return normalized_fraction(num, den);
}

Fraction fraction_from_json(const nlohmann::json& v) {
  if (v.is_string()) return parse_fraction(v.get_ref<const std::string&>());
  if (v.is_number_unsigned()) {
    uint64_t u = v.get<uint64_t>();
    if (u > uint64_t(std::numeric_limits<int64_t>::max()))
      throw std::invalid_argument("coefficient " + v.dump() + " does not fit in int64");
    return {int64_t(u), 1};
  }
  if (v.is_number_integer()) return normalized_fraction(v.get<int64_t>(), 1);
  if (v.is_number_float())
    throw std::invalid_argument("coefficient " + v.dump() +
                                " is a floating-point number; write it exactly as \"p/q\"");
  throw std::invalid_argument("coefficient " + v.dump() + " is not a number or \"p/q\" string");
}

std::string fraction_text(const Fraction& f) {
  if (f.den == 1) return std::to_string(f.num);
  return std::to_string(f.num) + "/" + std::to_string(f.den);
}

Fraction multiply(const Fraction& a, const Fraction& b) {
  // Cross-cancel first so that products of lowest-terms fractions overflow only when they must.
  int64_t g1 = std::gcd(a.num, b.den), g2 = std::gcd(b.num, a.den);
  if (g1 == 0) g1 = 1;
  if (g2 == 0) g2 = 1;
  int64_t num = 0, den = 0;
  if (__builtin_mul_overflow(a.num / g1, b.num / g2, &num) ||
      __builtin_mul_overflow(a.den / g2, b.den / g1, &den))
    throw std::invalid_argument("coefficient product " + fraction_text(a) + " * " +
                                fraction_text(b) + " does not fit in int64");
  return normalized_fraction(num, den);
}

}  // namespace qalg::gpu
