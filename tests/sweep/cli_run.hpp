#pragma once
// Running `qalg` (plain or under mpirun) from the sweep/search CLI tests: exit code and the
// combined stdout + stderr.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/core.h>

namespace qalg::test {

struct CommandRun {
  int code;
  std::string output;
};

inline CommandRun run(const std::string& args, const std::filesystem::path& dir) {
  const std::filesystem::path out = dir / "output.txt";
  const int status = std::system(fmt::format("cd '{}' && {} > '{}' 2>&1", dir.string(), args, out.string()).c_str());
  std::ifstream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text};
}

// mpirun as root needs --allow-run-as-root; --oversubscribe lets 2 ranks share fewer cores. Under
// scripts/sanitize.sh the ranks get LeakSanitizer suppressions for OpenMPI's own allocations.
inline std::string mpirun(int ranks) {
  return fmt::format("LSAN_OPTIONS=suppressions={}/tests/sweep/lsan_openmpi.supp {} --allow-run-as-root --oversubscribe "
                     "-x LSAN_OPTIONS -np {} {}", QALG_SOURCE_DIR, QALG_MPIEXEC, ranks, QALG_BINARY);
}

}  // namespace qalg::test
