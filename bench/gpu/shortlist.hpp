#pragma once
// Which of the calibration's variants (sorted by their time alone) its second pass re-times
// (Bench::calibrate). Plain C++: tests/gpu/shortlist_test.cpp checks it on the CPU.
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

constexpr size_t kShortlistFamilies = 4, kShortlistMax = 8;

// Positions in sorted_names (fastest alone first) that pass 2 re-times, ascending.
// Alone (the default): the three fastest. Alternating (calibrate_alternating): the fastest variant
// of each of the four fastest tiles, then the next fastest of any tile, up to eight. Why tiles
// first: a tile's orders are close alone, but the tiles' speeds alternating with dense can rank
// otherwise than alone, and the next tile can sit within 0.1 µs of the cut:
// - the squares at n = 32768 on the H200 (thirty-fifth session): the three fastest alone were all
//   ws128x128, 1821-1829 µs, slower alternating than wsl64x128, fourth at 1858;
// - Qwen3-32B at M = 2048 on an H100 (forty-first session, call 1): alone ws64x128 159.7 µs,
//   wr64x128 161.3, wsm128x128 165.0, wsl64x128-desc 165.1; alternating 171, 172, 185.5 and (in
//   the call's other run) 162.0. The rule before this one (the fastest until three tiles are in)
//   left wsl64x128-desc out by those 0.1 µs, and the row took ws64x128-desc (166.1 µs in the table;
//   the other run's wsl64x128-desc 162.0);
//   on the squares it filled its eight places with two tiles, so a third tile could be left out
//   (wsp64x128-types: ninth alone in the thirty-fifth session's list; call 1's pick for that row).
inline std::vector<size_t> shortlist(const std::vector<std::string>& sorted_names, bool alternating) {
  std::vector<size_t> picked;
  if (!alternating) {
    for (size_t i = 0; i < std::min<size_t>(3, sorted_names.size()); ++i) picked.push_back(i);
    return picked;
  }
  std::set<std::string> families;
  std::vector<bool> in(sorted_names.size(), false);
  for (size_t i = 0; i < sorted_names.size() && families.size() < kShortlistFamilies; ++i)
    if (families.insert(variant_family(sorted_names[i])).second) in[i] = true, picked.push_back(i);
  for (size_t i = 0; i < sorted_names.size() && picked.size() < kShortlistMax; ++i)
    if (!in[i]) in[i] = true, picked.push_back(i);
  std::sort(picked.begin(), picked.end());
  return picked;
}

}  // namespace qalg::bench
