#pragma once
// Refuse work that would not fit before allocating it (SPEC scale: 10^6 arrows are normal).
#include <cstddef>
#include <string>

namespace qalg {

// Bytes of memory this process may plan to use: min(physical memory, QALG_MEMORY_LIMIT env).
size_t memory_budget_bytes();
// Overflow-checked a*b; throws ResourceError naming `what` on overflow.
size_t checked_mul(size_t a, size_t b, const std::string& what);
size_t checked_add(size_t a, size_t b, const std::string& what);
// Throws ResourceError when `bytes` exceeds the budget, naming `what`.
void require_fits(size_t bytes, const std::string& what);

}  // namespace qalg
