// Field: Q or GF(p), and the rational parser used by every file reader.
#include "qalg/algebra/field.hpp"

#include <cctype>
#include <climits>

#include <fmt/core.h>
#include <flint/ulong_extras.h>

#include "qalg/algebra/errors.hpp"

namespace qalg {

bool Rational::parse(const std::string& text, Rational& out) {
  // Accept [-+]?digits(/digits)?, nothing else (no spaces, exponents or decimals).
  if (text.empty() || text.size() > 100000) return false;
  size_t slash = text.find('/');
  auto digits_ok = [](const std::string& s, bool allow_sign) {
    size_t start = (allow_sign && !s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
    if (s.size() == start) return false;
    for (size_t i = start; i < s.size(); ++i)
      if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    return true;
  };
  std::string num = slash == std::string::npos ? text : text.substr(0, slash);
  std::string den = slash == std::string::npos ? "1" : text.substr(slash + 1);
  if (!digits_ok(num, true) || !digits_ok(den, false)) return false;
  if (num[0] == '+') num = num.substr(1);
  fmpz_t n, d;
  fmpz_init(n);
  fmpz_init(d);
  bool ok = fmpz_set_str(n, num.c_str(), 10) == 0 && fmpz_set_str(d, den.c_str(), 10) == 0 &&
            !fmpz_is_zero(d);
  if (ok) fmpq_set_fmpz_frac(out.get(), n, d);
  fmpz_clear(n);
  fmpz_clear(d);
  return ok;
}

Field Field::prime(ulong p) {
  // Residues meet FLINT's signed slong in places (e.g. a unit's coefficients become Rationals), where
  // one of 2^63 or more turns negative: GF(9223372036854775837)'s unit came out wrong. So p < 2^63.
  if (p >= (ulong(1) << 63))
    throw InputError(fmt::format("field GF({}): qalg works over GF(p) for primes p below 2^63 = 9223372036854775808", p));
  if (p < 2 || !n_is_prime(p))
    throw InputError(fmt::format("field GF({}): {} is not a prime", p, p));
  return Field(Kind::Prime, p);
}

Field Field::parse(const std::string& text) {
  if (text == "Q" || text == "QQ" || text == "Rationals") return rationals();
  std::string digits;
  if (text.rfind("GF(", 0) == 0 && text.size() > 4 && text.back() == ')')
    digits = text.substr(3, text.size() - 4);
  else if (text.rfind("F_", 0) == 0)
    digits = text.substr(2);
  else if (text.rfind("GF", 0) == 0)
    digits = text.substr(2);
  else if (text.rfind("F", 0) == 0)
    digits = text.substr(1);
  else
    digits = text;
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos)
    throw InputError(fmt::format("unknown field '{}': expected Q or GF(p) with p prime", text));
  if (digits.size() > 19)  // (every 19-digit number is below 2^64; Field::prime then says what is allowed)
    throw InputError(fmt::format("field {}: qalg works over GF(p) for primes p below 2^63 = 9223372036854775808", text));
  return prime(std::stoull(digits));
}

std::string Field::name() const { return is_rationals() ? "Q" : fmt::format("GF({})", p_); }

void Field::reduce(Rational& x) const {
  if (is_rationals()) return;
  ulong rn = fmpz_fdiv_ui(fmpq_numref(x.get()), p_);
  ulong rd = fmpz_fdiv_ui(fmpq_denref(x.get()), p_);
  if (rd == 0)
    throw InputError(fmt::format("coefficient {} has a denominator divisible by {}: not in GF({})",
                                 x.str(), p_, p_));
  nmod_t mod;
  nmod_init(&mod, p_);
  ulong v = nmod_mul(rn, n_invmod(rd, p_), mod);
  fmpq_set_ui(x.get(), v, 1);
}

}  // namespace qalg
