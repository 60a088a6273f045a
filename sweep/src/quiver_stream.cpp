// nauty pipeline reader (see quiver_stream.hpp for why loops are vertex colours).
#include "qalg/sweep/quiver_stream.hpp"

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <vector>

#include <fmt/core.h>

#include "qalg/algebra/errors.hpp"

namespace qalg::sweep {
namespace {

// Debian installs nauty's tools as nauty-<tool>; upstream builds install plain <tool>.
std::string nauty_tool(const std::string& tool) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  std::vector<std::string> candidates;
  for (std::string d; std::getline(dirs, d, ':');) candidates.push_back(d);
  for (const std::string& name : {"nauty-" + tool, tool})
    for (const auto& d : candidates)
      if (!d.empty() && std::filesystem::exists(std::filesystem::path(d) / name)) return name;
  throw InputError(fmt::format("qalg sweep needs nauty's {} (Debian package nauty; make deps installs it)", tool));
}

// The fields of a -T line: n, m, then (coloured) n colours, then 2m endpoints.
std::vector<unsigned long> fields(const std::string& line) {
  std::vector<unsigned long> out;
  std::istringstream in(line);
  for (std::string tok; in >> tok;) {
    char* end = nullptr;
    const unsigned long v = std::strtoul(tok.c_str(), &end, 10);
    if (tok.empty() || *end != '\0') throw InputError(fmt::format("nauty output: bad field '{}' in '{}'", tok, line));
    out.push_back(v);
  }
  return out;
}

// Arrows (arcs + loops) of a -T line, without building the quiver.
size_t arrow_count(const std::vector<unsigned long>& f, bool coloured) {
  if (f.size() < 2) return 0;
  size_t loops = 0;
  if (coloured)
    for (size_t v = 0; v < f[0] && 2 + v < f.size(); ++v) loops += f[2 + v] != 0;
  return f[1] + loops;
}

}  // namespace

std::string nauty_pipeline(const QuiverRange& r) {
  if (r.vertices < 1 || r.vertices > 10)
    throw InputError(fmt::format("--vertices {}: must be between 1 and 10", r.vertices));
  // directg's -e bounds the arcs; loops are added after, so the total is filtered in next().
  const std::string arcs = r.max_arrows ? fmt::format(" -e0:{}", *r.max_arrows) : "";
  if (r.part && (r.part->second == 0 || r.part->first >= r.part->second))
    throw InputError(fmt::format("nauty split {}/{}: need 0 <= res < mod", r.part->first, r.part->second));
  const std::string split = r.part ? fmt::format(" {}/{}", r.part->first, r.part->second) : "";
  const std::string geng = nauty_tool("geng"), directg = nauty_tool("directg");
  if (!r.loops) return fmt::format("{} -q {}{} | {} -q -T{}", geng, r.vertices, split, directg, arcs);
  return fmt::format("{} -q {}{} | {} -q{} | {} -q -m2 -T", geng, r.vertices, split, directg, arcs, nauty_tool("vcolg"));
}

Quiver parse_nauty_line(const std::string& line, bool coloured) {
  const auto f = fields(line);
  if (f.size() < 2) throw InputError(fmt::format("nauty output: short line '{}'", line));
  const size_t n = f[0], m = f[1], colours = coloured ? n : 0;
  if (f.size() != 2 + colours + 2 * m)
    throw InputError(fmt::format("nauty output: expected {} fields in '{}'", 2 + colours + 2 * m, line));
  Quiver q;
  for (size_t v = 0; v < n; ++v) q.vertices.push_back(fmt::format("v{}", v + 1));
  auto add = [&](unsigned long s, unsigned long t) {
    if (s >= n || t >= n) throw InputError(fmt::format("nauty output: vertex out of range in '{}'", line));
    q.arrows.push_back({uint32_t(s), uint32_t(t), fmt::format("a{}", q.arrows.size() + 1)});
  };
  for (size_t e = 0; e < m; ++e) add(f[2 + colours + 2 * e], f[3 + colours + 2 * e]);
  for (size_t v = 0; v < colours; ++v)
    if (f[2 + v] != 0) add(v, v);
  return q;
}

QuiverStream::QuiverStream(const QuiverRange& range) : range_(range) {
  const std::string cmd = nauty_pipeline(range);
  pipe_ = popen(cmd.c_str(), "r");
  if (!pipe_) throw InputError("cannot start nauty: " + cmd);
}

QuiverStream::~QuiverStream() {
  if (pipe_) pclose(pipe_);
}

bool QuiverStream::read_line() {
  line_.clear();
  char buf[4096];
  while (std::fgets(buf, sizeof buf, pipe_)) {
    line_ += buf;
    if (!line_.empty() && line_.back() == '\n') {
      line_.pop_back();
      return true;
    }
  }
  return !line_.empty();
}

bool QuiverStream::next() {
  while (pipe_ && read_line()) {
    if (line_.empty()) continue;
    if (range_.max_arrows && arrow_count(fields(line_), range_.loops) > *range_.max_arrows) continue;
    ++index_;
    return true;
  }
  return false;
}

Quiver QuiverStream::quiver() const { return parse_nauty_line(line_, range_.loops); }

void QuiverStream::finish() {
  if (!pipe_) return;
  const int status = pclose(pipe_);
  pipe_ = nullptr;
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw InputError(fmt::format("nauty pipeline failed ({})", nauty_pipeline(range_)));
}

}  // namespace qalg::sweep
