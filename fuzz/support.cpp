// Linked into every fuzz target: one-time set-up before the first input.
#include <cstdlib>

// Big-but-valid inputs (complete:100000, dims near 2^32) must be refused by the resource guards
// before allocation (resource_guard.hpp reads QALG_MEMORY_LIMIT), not found as OOM by libFuzzer's
// -rss_limit_mb, nor as a timeout: give the guards a small budget, 4 MiB (~87 000 tensor entries).
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("QALG_MEMORY_LIMIT", "4194304", 0);
  return 0;
}
