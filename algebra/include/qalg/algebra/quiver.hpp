#pragma once
// A quiver G = (V, E): finite vertices, arrows s(a) -> t(a); parallel arrows and loops allowed
// (SPEC §1). This plain value is what every input format is converted into, once.
#include <cstdint>
#include <string>
#include <vector>

namespace qalg {

struct Arrow {
  uint32_t source = 0;
  uint32_t target = 0;
  std::string name;  // unique among the quiver's basis names
};

struct Quiver {
  std::vector<std::string> vertices;  // names, in input order
  std::vector<Arrow> arrows;          // in input order

  size_t vertex_count() const { return vertices.size(); }
  size_t arrow_count() const { return arrows.size(); }
  bool has_loops() const;
  bool has_parallel_arrows() const;
};

}  // namespace qalg
