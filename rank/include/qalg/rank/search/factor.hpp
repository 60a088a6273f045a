#pragma once
// Bit-packed factors of a rank-one term for the flip-graph search (SPEC §3; Kauers–Moosbauer,
// "Flip graphs for matrix multiplication", arXiv 2212.01175). A factor is a vector of length
// dim ≤ 64 with entries in {0, 1, −1}, stored bit-sliced: `pos` marks the entries +1, `neg` the
// entries −1 (disjoint). Three coefficient modes share this layout:
//   GF2  entries in GF(2)            (neg is always 0)
//   GF3  entries in GF(3) = {0, 1, −1}, sums reduced mod 3
//   Z3   integer entries restricted to {−1, 0, 1}: a sum that leaves the range is refused, so
//        every scheme the search holds is exact over Z (hence over every field).
#include <bit>
#include <cstdint>
#include <optional>
#include <string>

namespace qalg::search {

enum class Mode { GF2, GF3, Z3 };

// "F2", "F3", "Z3" (also "GF(2)", "GF(3)"); throws InputError otherwise.
Mode parse_mode(const std::string& text);
std::string mode_name(Mode m);
// The characteristic whose arithmetic the mode uses (2, 3; 0 for Z3).
unsigned mode_characteristic(Mode m);

struct Factor {
  uint64_t pos = 0;
  uint64_t neg = 0;

  bool is_zero() const { return (pos | neg) == 0; }
  uint64_t support() const { return pos | neg; }
  bool operator==(const Factor&) const = default;
  Factor negated() const { return {neg, pos}; }
  // The entry at index i: 1, −1 or 0.
  int at(unsigned i) const { return int((pos >> i) & 1) - int((neg >> i) & 1); }
};

// s with a = s · b for s ∈ {1, −1} (over GF(2) only s = 1 exists); 0 when a is no such multiple.
// Nonzero scalars of GF(3) and the units of Z are exactly ±1, so this is "a and b are parallel"
// for the modes GF2/GF3 and "a = ±b" for Z3.
inline int parallel_sign(const Factor& a, const Factor& b) {
  if (a.pos == b.pos && a.neg == b.neg) return 1;
  if (a.pos == b.neg && a.neg == b.pos) return -1;
  return 0;
}

// a + s·b in the mode's arithmetic (s = ±1); nullopt when Z3 would leave {−1, 0, 1}.
template <Mode M>
inline std::optional<Factor> add_scaled(const Factor& a, const Factor& b, int s) {
  if constexpr (M == Mode::GF2) {
    (void)s;  // −1 = 1
    return Factor{a.pos ^ b.pos, 0};
  } else {
    const Factor c = s > 0 ? b : b.negated();
    if constexpr (M == Mode::GF3) {
      // Entry-wise mod 3: 1+1 = −1, (−1)+(−1) = 1, 1+(−1) = 0, x+0 = x.
      const uint64_t a_any = a.pos | a.neg, c_any = c.pos | c.neg;
      return Factor{(a.pos & ~c_any) | (c.pos & ~a_any) | (a.neg & c.neg),
                    (a.neg & ~c_any) | (c.neg & ~a_any) | (a.pos & c.pos)};
    } else {
      if ((a.pos & c.pos) | (a.neg & c.neg)) return std::nullopt;  // a ±2 entry: not in range
      return Factor{(a.pos & ~c.neg) | (c.pos & ~a.neg), (a.neg & ~c.pos) | (c.neg & ~a.pos)};
    }
  }
}

inline std::optional<Factor> add_scaled(Mode m, const Factor& a, const Factor& b, int s) {
  switch (m) {
    case Mode::GF2: return add_scaled<Mode::GF2>(a, b, s);
    case Mode::GF3: return add_scaled<Mode::GF3>(a, b, s);
    default: return add_scaled<Mode::Z3>(a, b, s);
  }
}

}  // namespace qalg::search
