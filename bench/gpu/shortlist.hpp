#pragma once
// How many of the calibration's fastest variants (sorted by their time alone) its second pass
// re-times (Bench::calibrate). Plain C++: tests/gpu/shortlist_test.cpp checks it on the CPU.
#include <algorithm>
#include <cstddef>
#include <set>
#include <string>
#include <vector>

namespace qalg::bench {

// The tile a variant name runs, without its item-order suffixes ("fused-ws128x128-types-desc" ->
// "fused-ws128x128"): variants of one tile in other orders count as one family.
inline std::string variant_family(std::string name) {
  for (const char* suffix : {"-desc", "-types"}) {
    const std::string s = suffix;
    if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) name.resize(name.size() - s.size());
  }
  return name;
}

// Alone (the default): the three fastest. Alternating (calibrate_alternating): a tile's orders are
// close alone but its speed alternating with dense can differ from another tile's (the squares at
// n = 32768 on the H200: the three fastest alone were all ws128x128, 1821-1829 µs, slower alternating
// than wsl64x128, fourth at 1858), so the fastest variants until three tiles are in, at least three
// and at most eight variants (each re-timed 5 rounds alternating).
inline size_t shortlist_size(const std::vector<std::string>& sorted_names, bool alternating) {
  if (!alternating) return std::min<size_t>(3, sorted_names.size());
  std::set<std::string> families;
  size_t n = 0;
  while (n < sorted_names.size() && n < 8 && (n < 3 || families.size() < 3)) families.insert(variant_family(sorted_names[n++]));
  return n;
}

}  // namespace qalg::bench
