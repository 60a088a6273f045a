#pragma once
// QALG_TABLE_ROWS (forty-seventh session): which of the table suite's rows a run times. An H200 has
// come only rarely since the thirty-sixth session, and after failed requests less device time is
// left than the whole table and its peer need; the unmet rows alone (the 30B expert's projection,
// DeepSeek-V3's FFN at M = 2048, the decodes) take a fraction of it.
// Plain C++: tests/gpu/table_rows_test.cpp checks it on the CPU.
//
//   QALG_TABLE_ROWS=KIND:PREFIX[@M],…    KIND: projection | ffn | training | square
// A row is timed when one item's kind is the row's, its prefix starts the row's name (training rows
// are named "SHAPE/up" and "SHAPE/down", squares by n, e.g. "16384") and its M, if given, is the
// row's. An item that selects no row of the table is refused with its text: a typo would otherwise
// time nothing and say nothing.
#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace qalg::bench {

// SPEC §6's projection table (name, D, F, M, the paper's q) and the five shapes (name, D, F) of its
// FFN rows (M = 1 and 2048, q = 32) and training rows (M = 2048, up D -> F and down F -> D), and the
// squares' n (q = 128): the table suite times them in this order.
inline const std::vector<std::tuple<std::string, int, int, int, int>> kProjectionTable = {
    {"Qwen3-1.7B", 2048, 6144, 2048, 32},     {"Qwen3-4B", 2560, 9728, 2048, 32},
    {"Qwen3-8B", 4096, 12288, 2048, 32},      {"Qwen3-30B-A3B-expert", 2048, 768, 2048, 16},
    {"DeepSeek-V3-expert", 7168, 2048, 2048, 16}, {"Qwen3-32B", 5120, 25600, 2048, 32},
    {"Qwen3-32B", 5120, 25600, 8192, 128},    {"Qwen3-32B", 5120, 25600, 32768, 256}};
inline const std::vector<std::tuple<std::string, int, int>> kFfnShapes = {
    {"Qwen3-1.7B", 2048, 6144}, {"Qwen3-4B", 2560, 9728}, {"Qwen3-8B", 4096, 12288},
    {"Qwen3-30B-A3B-expert", 2048, 768}, {"DeepSeek-V3-expert", 7168, 2048}};
inline const std::vector<int> kTableSquares = {4096, 8192, 16384, 32768};
inline const std::vector<int> kFfnTableM = {1, 2048};

struct TableRow {
  std::string kind, name;
  int M = 0;
};

struct TableRowItem {
  std::string kind, prefix;
  int M = 0;  // 0: any M
  bool selects(const TableRow& r) const {
    return r.kind == kind && r.name.rfind(prefix, 0) == 0 && (M == 0 || r.M == M);
  }
};

// Every row of the table suite, in its order.
inline std::vector<TableRow> table_suite_rows() {
  std::vector<TableRow> rows;
  for (const auto& [name, D, F, M, q] : kProjectionTable) rows.push_back({"projection", name, M});
  for (const auto& [name, D, F] : kFfnShapes) {
    for (int M : kFfnTableM) rows.push_back({"ffn", name, M});
    rows.push_back({"training", name + "/up", 2048});
    rows.push_back({"training", name + "/down", 2048});
  }
  for (int n : kTableSquares) rows.push_back({"square", std::to_string(n), n});
  return rows;
}

// Empty items: every row.
struct TableRowFilter {
  std::vector<TableRowItem> items;
  bool keeps(const TableRow& r) const {
    return items.empty() || std::any_of(items.begin(), items.end(), [&](const TableRowItem& i) { return i.selects(r); });
  }
};

// Parses spec against the table's rows; std::invalid_argument names the first bad item and why.
inline TableRowFilter parse_table_rows(const std::string& spec, const std::vector<TableRow>& table) {
  static const std::vector<std::string> kinds = {"projection", "ffn", "training", "square"};
  TableRowFilter f;
  if (spec.empty()) throw std::invalid_argument("QALG_TABLE_ROWS is empty (unset it for every row)");
  std::stringstream list(spec);
  for (std::string item; std::getline(list, item, ',');) {
    const auto bad = [&](const std::string& why) {
      return std::invalid_argument("QALG_TABLE_ROWS: '" + item + "': " + why);
    };
    const size_t colon = item.find(':');
    if (colon == std::string::npos) throw bad("expected KIND:PREFIX[@M]");
    TableRowItem i;
    i.kind = item.substr(0, colon);
    if (std::find(kinds.begin(), kinds.end(), i.kind) == kinds.end())
      throw bad("kind must be projection, ffn, training or square");
    std::string rest = item.substr(colon + 1);
    if (const size_t at = rest.find('@'); at != std::string::npos) {
      const std::string m = rest.substr(at + 1);
      // whole digits only (std::stoi would read "20x" as 20)
      if (m.empty() || m.size() > 6 || m.find_first_not_of("0123456789") != std::string::npos || std::stoi(m) < 1)
        throw bad("M must be a positive integer");
      i.M = std::stoi(m);
      rest.resize(at);
    }
    if (rest.empty()) throw bad("empty name prefix");
    i.prefix = rest;
    if (std::none_of(table.begin(), table.end(), [&](const TableRow& r) { return i.selects(r); }))
      throw bad("selects no row of the table");
    f.items.push_back(i);
  }
  if (!spec.empty() && spec.back() == ',') throw std::invalid_argument("QALG_TABLE_ROWS: trailing ','");
  return f;
}

}  // namespace qalg::bench
