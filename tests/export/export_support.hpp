#pragma once
// Helpers of the kernel-package tests: run a shell command capturing its output, fresh temporary
// paths, whole-file reads.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/wait.h>

namespace qalg::export_test {

struct CommandRun {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// A path under the temp directory unique to this process and `name` (not created).
inline std::filesystem::path scratch(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("qalg_export_test_" + std::to_string(getpid()) + "_" + name);
}

inline CommandRun shell(const std::string& command) {
  const std::filesystem::path log = scratch("shell.log");
  const int status = std::system(("(" + command + ") >" + log.string() + " 2>&1").c_str());
  CommandRun r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_text(log)};
  std::filesystem::remove(log);
  return r;
}

inline CommandRun qalg_command(const std::string& args) { return shell(std::string(QALG_BINARY) + " " + args); }

}  // namespace qalg::export_test
