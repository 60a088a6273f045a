#include "quiver_builder.hpp"

namespace qalg::detail {

uint32_t QuiverBuilder::vertex(const std::string& name) {
  auto [it, inserted] = index_.emplace(name, uint32_t(q_.vertices.size()));
  if (inserted) q_.vertices.push_back(name);
  return it->second;
}

bool QuiverBuilder::arrow(const std::string& source, const std::string& target, const std::string& name) {
  uint32_t s = vertex(source), t = vertex(target);
  std::string n = name;
  if (n.empty()) {
    std::string base = source + "->" + target;
    n = base;
    for (int copy = 2; arrow_names_.count(n); ++copy) n = base + "#" + std::to_string(copy);
  } else if (arrow_names_.count(n)) {
    return false;
  }
  arrow_names_.insert(n);
  q_.arrows.push_back(Arrow{s, t, n});
  return true;
}

}  // namespace qalg::detail
