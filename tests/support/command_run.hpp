#pragma once
// Test support: run a shell command and capture its output and exit code. Used by every test
// that drives the `qalg` binary end to end (its path is QALG_BINARY, set by tests/CMakeLists.txt).
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace qalg::test_support {

struct CommandRun {
  int code = -1;    // exit status, -1 when the command did not exit normally
  std::string out;  // stdout (+ stderr when merged)
};

inline CommandRun run_command(const std::string& cmd) {
  CommandRun r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

#ifdef QALG_BINARY
inline CommandRun run_qalg(const std::string& args, bool merge_stderr = true) {
  return run_command(std::string(QALG_BINARY) + " " + args + (merge_stderr ? " 2>&1" : " 2>/dev/null"));
}
#endif

}  // namespace qalg::test_support
