// Resource guards: refuse tables that cannot fit before allocating them.
#include "qalg/algebra/resource_guard.hpp"

#include <unistd.h>

#include <cstdlib>
#include <limits>

#include <fmt/core.h>

#include "qalg/algebra/errors.hpp"

namespace qalg {

size_t memory_budget_bytes() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long page = sysconf(_SC_PAGESIZE);
  size_t phys = (pages > 0 && page > 0) ? size_t(pages) * size_t(page) : (size_t(8) << 30);
  if (const char* env = std::getenv("QALG_MEMORY_LIMIT")) {
    char* end = nullptr;
    unsigned long long v = std::strtoull(env, &end, 10);
    if (end && *end == '\0' && v > 0 && v < phys) return size_t(v);
  }
  return phys;
}

size_t checked_mul(size_t a, size_t b, const std::string& what) {
  if (a != 0 && b > std::numeric_limits<size_t>::max() / a)
    throw ResourceError(fmt::format("{}: size {} × {} overflows", what, a, b));
  return a * b;
}

size_t checked_add(size_t a, size_t b, const std::string& what) {
  if (b > std::numeric_limits<size_t>::max() - a)
    throw ResourceError(fmt::format("{}: size {} + {} overflows", what, a, b));
  return a + b;
}

void require_fits(size_t bytes, const std::string& what) {
  size_t budget = memory_budget_bytes();
  if (bytes > budget)
    throw ResourceError(fmt::format("{} needs about {:.1f} GiB, more than the {:.1f} GiB available",
                                    what, double(bytes) / (1ull << 30), double(budget) / (1ull << 30)));
}

}  // namespace qalg
