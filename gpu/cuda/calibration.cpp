// Per-shape forward calibration (kernels.hpp): read the CSV a benchmark run wrote, look rows up by
// (K, N, q, M).
#include <charconv>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "qalg/gpu/kernels.hpp"

namespace qalg::gpu {
namespace {
std::mutex g_mutex;
std::vector<CalibrationEntry> g_entries;
}  // namespace

namespace {
// A whole field as an unsigned number no larger than `max`: std::stoull took "-14" as 2^64 - 14,
// "14abc" as 14 and "1e3" as 1, and a q of 4294967300 was cut to 4 (thirty-eighth session's audit).
uint64_t field_number(const std::string& text, uint64_t max, const std::string& where, const char* name) {
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v > max)
    throw std::invalid_argument(where + name + " '" + text + "' is not a whole number in 0.." + std::to_string(max));
  return v;
}
}  // namespace

std::vector<CalibrationEntry> read_forward_calibration(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw std::invalid_argument(path + ": is a directory, not a calibration file");
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot open calibration file");
  std::vector<CalibrationEntry> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // (a file with Windows line ends)
    if (line.empty() || line.rfind("K,", 0) == 0 || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) f.push_back(cell);
    const std::string where = path + ":" + std::to_string(n) + ": ";
    if (f.size() < 8 || f.size() > 10)
      throw std::invalid_argument(where + "expected 8 to 10 fields K,N,q,M,schedule,bm,bn,warps[,engine[,order]], got " +
                                  std::to_string(f.size()));
    CalibrationEntry e;
    const uint64_t u64 = ~uint64_t(0), u32 = 0xffffffffu;
    e.K = field_number(f[0], u64, where, "K"), e.N = field_number(f[1], u64, where, "N");
    e.q = uint32_t(field_number(f[2], u32, where, "q")), e.M = field_number(f[3], u64, where, "M");
    e.tiles = TileConfig{uint32_t(field_number(f[5], u32, where, "bm")), uint32_t(field_number(f[6], u32, where, "bn")),
                         uint32_t(field_number(f[7], u32, where, "warps"))};
    if (f.size() == 10) {
      const std::string o = f[9];
      const std::string base = o.size() > 11 && o.compare(o.size() - 11, 11, "-descending") == 0 ? o.substr(0, o.size() - 11) : o;
      if (base == "columns") e.order = WsItemOrder::columns;
      else if (base == "types") e.order = WsItemOrder::types;
      else
        throw std::invalid_argument(where + "order must be columns, types, columns-descending or types-descending, got '" +
                                    o + "'");
      e.descending = base != o;
    }
    if (f.size() >= 9) {
      if (f[8] == "wgmma") e.tiles.engine = TileEngine::wgmma;
      else if (f[8] == "wgmma_ws") e.tiles.engine = TileEngine::wgmma_ws;
      else if (f[8] == "wgmma_ws_resident") e.tiles.engine = TileEngine::wgmma_ws_resident;
      else if (f[8] == "wgmma_ws_types") e.tiles.engine = TileEngine::wgmma_ws_types;
      else if (f[8] == "wgmma_many") e.tiles.engine = TileEngine::wgmma_many;
      else if (f[8] == "wgmma_many_rows") e.tiles.engine = TileEngine::wgmma_many_rows;
      else if (f[8] == "wgmma_many_lean") e.tiles.engine = TileEngine::wgmma_many_lean;
      else if (f[8] == "wgmma_ws_lean") e.tiles.engine = TileEngine::wgmma_ws_lean;
      else if (f[8] == "wgmma_ws_pair") e.tiles.engine = TileEngine::wgmma_ws_pair;
      else if (f[8] == "wgmma_ws_group_pairs") e.tiles.engine = TileEngine::wgmma_ws_group_pairs;
      else if (f[8] == "wgmma_ws_row_pairs") e.tiles.engine = TileEngine::wgmma_ws_row_pairs;
      else if (f[8] == "narrow_law") e.tiles.engine = TileEngine::narrow_law;
      else if (f[8] != "mma")
        throw std::invalid_argument(where + "engine must be mma, wgmma, wgmma_ws, wgmma_ws_resident, wgmma_ws_types, wgmma_many, wgmma_many_rows, wgmma_many_lean, wgmma_ws_lean, wgmma_ws_pair, wgmma_ws_group_pairs, wgmma_ws_row_pairs or narrow_law, got '" + f[8] + "'");
    }
    if (f[4] == "endpoint-fused") e.schedule = ForwardSchedule::endpoint_fused;
    else if (f[4] == "diagonal-first") e.schedule = ForwardSchedule::diagonal_first;
    else throw std::invalid_argument(where + "schedule must be endpoint-fused or diagonal-first, got '" + f[4] + "'");
    const TileConfig saved = forward_tiles();
    try {
      set_forward_tiles(e.tiles);  // validates against the compiled tile set
    } catch (const std::invalid_argument& err) {
      set_forward_tiles(saved);
      throw std::invalid_argument(where + err.what());
    }
    set_forward_tiles(saved);
    out.push_back(e);
  }
  return out;
}

void use_forward_calibration(std::vector<CalibrationEntry> entries) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_entries = std::move(entries);
}

std::optional<CalibrationEntry> find_calibration(uint64_t K, uint64_t N, uint32_t q, uint64_t M) {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (const CalibrationEntry& e : g_entries)
    if (e.K == K && e.N == N && e.q == q && e.M == M) return e;
  return std::nullopt;
}

ForwardSchedule calibrated_schedule(const DeviceBatch& b) {
  const auto e = find_calibration(b.plan().K(), b.plan().N(), b.plan().q(), b.rows());
  return e ? e->schedule : ForwardSchedule::endpoint_fused;
}

}  // namespace qalg::gpu
