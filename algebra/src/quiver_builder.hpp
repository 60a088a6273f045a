#pragma once
// Internal: assembles a Quiver from named endpoints, giving default unique arrow names.
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "qalg/algebra/quiver.hpp"

namespace qalg::detail {

class QuiverBuilder {
 public:
  uint32_t vertex(const std::string& name);
  // Adds an arrow; `name` empty means "s->t" (with "#2", "#3", ... for parallel copies).
  // Returns false when an explicit name is already used by another basis element.
  bool arrow(const std::string& source, const std::string& target, const std::string& name = "");
  Quiver take() { return std::move(q_); }
  const Quiver& quiver() const { return q_; }

 private:
  Quiver q_;
  std::unordered_map<std::string, uint32_t> index_;
  std::unordered_set<std::string> arrow_names_;
};

}  // namespace qalg::detail
