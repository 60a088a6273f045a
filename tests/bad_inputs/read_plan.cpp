// read_plan FILE: reads a qalg-plan (gpu::read_plan_file) or, with --table, a table through the
// gpu module's own reader (gpu::read_table_data), the two readers no qalg subcommand exposes
// (the GPU benchmarks and tests read them). Prints a one-line summary; exit 2 with the reader's
// one-line message on bad input, as `qalg` does. Used by the bad-input corpus only.
#include <cstdio>
#include <stdexcept>
#include <string>

#include "qalg/gpu/kernel_plan.hpp"
#include "qalg/gpu/table_data.hpp"

int main(int argc, char** argv) {
  const bool table = argc == 3 && std::string(argv[1]) == "--table";
  if (argc != 2 && !table) {
    std::fprintf(stderr, "usage: read_plan [--table] FILE\n");
    return 2;
  }
  try {
    if (table) {
      qalg::gpu::TableData t = qalg::gpu::read_table_data(argv[2]);
      std::printf("table over %s, dim %u, %zu entries\n", t.field.c_str(), t.dim, t.entries.size());
    } else {
      qalg::gpu::KernelPlan p = qalg::gpu::read_plan_file(argv[1]);
      std::printf("plan: q = %u, K = %llu, N = %llu\n", p.q, (unsigned long long)p.K(), (unsigned long long)p.N());
    }
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "read_plan: error: %s\n", e.what());
    return 2;
  }
  return 0;
}
