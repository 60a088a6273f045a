// Named quiver families: complete:q, path:n, cycle:n, star:n, random:n,p,seed.
#include <cmath>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/quiver_input.hpp"
#include "qalg/algebra/resource_guard.hpp"

namespace qalg {

namespace {

// Bytes a quiver arrow costs through the pipeline (Arrow + its name + two tensor entries +
// its basis name); used to refuse families that cannot fit before building them.
constexpr size_t kBytesPerArrow = 256;

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  if (!s.empty() && s.back() == sep) out.push_back("");
  return out;
}

uint64_t parse_count(const std::string& text, const std::string& spec, const char* what) {
  if (text.empty() || text.size() > 12 || text.find_first_not_of("0123456789") != std::string::npos)
    throw InputError(fmt::format("{}: {} must be a positive integer, got '{}'", spec, what, text));
  uint64_t v = std::stoull(text);
  if (v == 0) throw InputError(fmt::format("{}: {} must be at least 1", spec, what));
  return v;
}

void guard_arrows(double arrows, const std::string& spec) {
  if (arrows > 4.0e9) throw ResourceError(fmt::format("{}: {:.3g} arrows exceed the 2^32 basis limit", spec, arrows));
  require_fits(size_t(arrows) * kBytesPerArrow, fmt::format("{} ({:.3g} arrows)", spec, arrows));
}

std::string vname(uint64_t v) { return std::to_string(v + 1); }

}  // namespace

Quiver quiver_family(const std::string& spec) {
  auto colon = spec.find(':');
  if (colon == std::string::npos) throw InputError(fmt::format("'{}': expected family:parameters", spec));
  std::string family = spec.substr(0, colon);
  std::vector<std::string> args = split(spec.substr(colon + 1), ',');
  auto want = [&](size_t n, const char* usage) {
    if (args.size() != n) throw InputError(fmt::format("'{}': expected {}", spec, usage));
  };
  // Families have no parallel arrows, so names "s->t" are unique without the builder's checks
  // (which cost more than the table itself for 10^6 arrows).
  struct Direct {
    Quiver q;
    void vertex(const std::string& name) { q.vertices.push_back(name); }
    void arrow(uint64_t s, uint64_t t) {
      q.arrows.push_back(Arrow{uint32_t(s), uint32_t(t), q.vertices[s] + "->" + q.vertices[t]});
    }
    Quiver take() { return std::move(q); }
  } b;
  if (family == "complete") {  // all ordered pairs i != j: Q_q of SPEC §1 (dim q^2)
    want(1, "complete:q");
    uint64_t q = parse_count(args[0], spec, "q");
    guard_arrows(double(q) * double(q), spec);
    for (uint64_t v = 0; v < q; ++v) b.vertex(vname(v));
    for (uint64_t i = 0; i < q; ++i)
      for (uint64_t j = 0; j < q; ++j)
        if (i != j) b.arrow(i, j);
  } else if (family == "path") {  // 1 -> 2 -> ... -> n
    want(1, "path:n");
    uint64_t n = parse_count(args[0], spec, "n");
    guard_arrows(double(n), spec);
    for (uint64_t v = 0; v < n; ++v) b.vertex(vname(v));
    for (uint64_t v = 0; v + 1 < n; ++v) b.arrow(v, v + 1);
  } else if (family == "cycle") {  // 1 -> 2 -> ... -> n -> 1 (cycle:1 is one loop)
    want(1, "cycle:n");
    uint64_t n = parse_count(args[0], spec, "n");
    guard_arrows(double(n), spec);
    for (uint64_t v = 0; v < n; ++v) b.vertex(vname(v));
    for (uint64_t v = 0; v < n; ++v) b.arrow(v, (v + 1) % n);
  } else if (family == "star") {  // centre 1 with arrows to n leaves 2..n+1 (K_{1,n})
    want(1, "star:n");
    uint64_t n = parse_count(args[0], spec, "n");
    guard_arrows(double(n), spec);
    for (uint64_t v = 0; v <= n; ++v) b.vertex(vname(v));
    for (uint64_t v = 1; v <= n; ++v) b.arrow(0, v);
  } else if (family == "random") {  // directed G(n, p) without loops, reproducible from seed
    want(3, "random:n,p,seed");
    uint64_t n = parse_count(args[0], spec, "n");
    // strtod, not stod: stod throws on underflow, refusing a valid tiny p such as 1e-320 as "not a
    // number"; strtod returns the subnormal (or 0). Overflow gives ±HUGE_VAL, refused below.
    char* end = nullptr;
    const double p = std::strtod(args[1].c_str(), &end);
    if (args[1].empty() || end != args[1].c_str() + args[1].size())
      throw InputError(fmt::format("'{}': p must be a number in [0, 1], got '{}'", spec, args[1]));
    if (!(p >= 0.0 && p <= 1.0)) throw InputError(fmt::format("'{}': p must be in [0, 1], got {}", spec, args[1]));
    if (args[2].empty() || args[2].size() > 19 || args[2].find_first_not_of("0123456789") != std::string::npos)
      throw InputError(fmt::format("'{}': seed must be a non-negative integer, got '{}'", spec, args[2]));
    uint64_t seed = std::stoull(args[2]);
    guard_arrows(double(n) * double(n) * p + double(n), spec);
    for (uint64_t v = 0; v < n; ++v) b.vertex(vname(v));
    if (p > 0.0) {
      // Geometric skipping over the n(n-1) ordered pairs: O(|E|) work, not O(n^2).
      // std::geometric_distribution divides by log(1 - p), which is 0 once 1 - p rounds to 1
      // (p below ~1.1e-16), and then casts -inf to an integer: undefined behaviour, found by
      // fuzz_family with p = 3e-41. For such p the gap is drawn by inversion with log1p (accurate
      // there) and capped at `pairs`; every other p keeps the standard draw (same graphs per seed).
      std::mt19937_64 rng(seed);
      const bool tiny = 1.0 - p == 1.0;
      std::geometric_distribution<uint64_t> skip(p < 1.0 && !tiny ? p : 0.5);
      const uint64_t pairs = n * (n - 1);
      auto next_gap = [&]() -> uint64_t {
        if (p >= 1.0) return 0;
        if (!tiny) return skip(rng);
        const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
        const double g = std::floor(std::log1p(-u) / std::log1p(-p));
        return g < double(pairs) ? uint64_t(g) : pairs;
      };
      for (uint64_t pos = next_gap(); pos < pairs; pos += 1 + next_gap()) {
        uint64_t i = pos / (n - 1), r = pos % (n - 1);
        b.arrow(i, r >= i ? r + 1 : r);  // skip the diagonal pair (i, i)
      }
    }
  } else {
    throw InputError(fmt::format("unknown quiver family '{}' in '{}' (known: complete, path, cycle, star, random)",
                                 family, spec));
  }
  return b.take();
}

}  // namespace qalg
