#pragma once
// The gpu module's own view of a structure table: plain integers and int64 rationals, no FLINT
// (the GPU machine has none). Read from the table file format of algebra/table_io.hpp, or built
// by the qalg command from an exact StructureTensor.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace qalg::gpu {

struct TableEntry {
  uint32_t i = 0, j = 0, k = 0;
  int64_t num = 0, den = 1;  // c_ij^k = num / den (den > 0); over GF(p) the residue, den = 1
};

struct TableData {
  std::string field = "Q";          // "Q" or "GF(p)"
  uint32_t dim = 0;
  std::vector<std::string> basis;
  std::vector<TableEntry> entries;
  // Grid position of each basis element (SPEC §4); absent for tables without a slot layout.
  std::optional<uint32_t> slot_grid;             // q
  std::vector<std::pair<uint32_t, uint32_t>> slots;  // (row, col) per basis element
  std::string hash;                  // table hash, carried into plans
};

// Throws std::invalid_argument naming the field at fault (origin = file name for messages).
TableData table_data_from_json(const nlohmann::json& j, const std::string& origin);
TableData read_table_data(const std::string& path);

}  // namespace qalg::gpu
