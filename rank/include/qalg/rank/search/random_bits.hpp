#pragma once
// The random numbers of a flip-graph walk: xoshiro256** (Blackman–Vigna), seeded through
// splitmix64. A walk draws three or four numbers per flip, so the generator is on the hot path:
// xoshiro256** is a few cycles per number where std::mt19937_64 refills a 312-word state, and
// `below` maps a word to [0, n) by one multiplication (Lemire) instead of a division or
// std::uniform_int_distribution. The bias of the multiplication, n / 2^64 for n ≤ a few
// hundred terms, does not matter for a random walk. Satisfies UniformRandomBitGenerator.
#include <cstdint>
#include <limits>

namespace qalg::search {

class Xoshiro256 {
 public:
  using result_type = uint64_t;

  explicit Xoshiro256(uint64_t seed) {
    for (auto& w : s_) {
      seed += 0x9e3779b97f4a7c15ULL;  // splitmix64: fills the state from one word, never all 0
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      w = z ^ (z >> 31);
    }
  }

  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }

  result_type operator()() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // A number in [0, n), n ≥ 1.
  uint64_t below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>((*this)()) * n) >> 64);
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace qalg::search
