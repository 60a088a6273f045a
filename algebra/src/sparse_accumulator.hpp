#pragma once
// Internal: accumulate field elements by key, then list the nonzero ones in key order.
#include <algorithm>
#include <unordered_map>
#include <vector>

#include "qalg/algebra/field.hpp"
#include "qalg/algebra/structure_tensor.hpp"

namespace qalg::detail {

template <class Key, class Hash = std::hash<Key>>
class Accumulator {
 public:
  explicit Accumulator(const Field& f) : field_(f) {}
  void add(const Key& k, const Rational& v) {
    auto [it, inserted] = map_.try_emplace(k, v);
    if (!inserted) it->second = field_.add(it->second, v);
  }
  void sub(const Key& k, const Rational& v) { add(k, field_.neg(v)); }
  void clear() { map_.clear(); }
  // Nonzero entries sorted by key.
  std::vector<std::pair<Key, Rational>> nonzero() const {
    std::vector<std::pair<Key, Rational>> out;
    for (const auto& [k, v] : map_)
      if (!v.is_zero()) out.emplace_back(k, v);
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return out;
  }

 private:
  const Field& field_;
  std::unordered_map<Key, Rational, Hash> map_;
};

inline SparseVector to_sparse(std::vector<std::pair<uint32_t, Rational>> v) { return v; }

}  // namespace qalg::detail
