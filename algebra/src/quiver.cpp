// Quiver facts used by reports and lowering.
#include "qalg/algebra/quiver.hpp"

#include <set>
#include <utility>

namespace qalg {

bool Quiver::has_loops() const {
  for (const auto& a : arrows)
    if (a.source == a.target) return true;
  return false;
}

bool Quiver::has_parallel_arrows() const {
  std::set<std::pair<uint32_t, uint32_t>> seen;
  for (const auto& a : arrows)
    if (!seen.insert({a.source, a.target}).second) return true;
  return false;
}

}  // namespace qalg
