// Reader of the qalg-table JSON format (algebra/table_io.hpp) into the FLINT-free TableData.
#include "qalg/gpu/table_data.hpp"

#include <algorithm>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <unordered_set>

#include "json_file.hpp"
#include "qalg/gpu/fraction.hpp"
#include "table_hash.hpp"

namespace qalg::gpu {
namespace {

// Not `fail`: kernel_plan.cpp has a `fail` of the same signature in its anonymous namespace, and the
// unity build (CMAKE_UNITY_BUILD) compiles both files as one source.
[[noreturn]] void table_fail(const std::string& origin, const std::string& field, const std::string& what) {
  throw std::invalid_argument(origin + ": field '" + field + "': " + what);
}

uint64_t get_index(const nlohmann::json& v, const std::string& origin, const std::string& field,
                   uint64_t bound, const char* bound_name) {
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0))
    table_fail(origin, field, "expected a non-negative integer, got " + v.dump());
  uint64_t x = v.get<uint64_t>();
  if (x >= bound)
    table_fail(origin, field, std::to_string(x) + " is out of range (" + bound_name + " = " +
                            std::to_string(bound) + ")");
  return x;
}

const nlohmann::json& member(const nlohmann::json& j, const char* key, const std::string& origin) {
  auto it = j.find(key);
  if (it == j.end()) table_fail(origin, key, "missing");
  return *it;
}

// "Q" or "GF(p)" with p >= 2. Primality is the exact core's concern; the gpu module lowers
// only tables over Q (floating-point kernels compute over the reals).
uint64_t parse_field(const std::string& f, const std::string& origin) {
  if (f == "Q") return 0;
  if (f.size() > 4 && f.rfind("GF(", 0) == 0 && f.back() == ')') {
    std::string digits = f.substr(3, f.size() - 4);
    if (!digits.empty() && std::all_of(digits.begin(), digits.end(), ::isdigit) && digits.size() < 20) {
      uint64_t p = std::stoull(digits);
      if (p >= 2) return p;
    }
  }
  table_fail(origin, "field", "expected \"Q\" or \"GF(p)\", got \"" + f + "\"");
}

}  // namespace

TableData table_data_from_json(const nlohmann::json& j, const std::string& origin) {
  if (!j.is_object()) throw std::invalid_argument(origin + ": a qalg-table must be a JSON object");
  const auto& format = member(j, "format", origin);
  if (format != "qalg-table") table_fail(origin, "format", "expected \"qalg-table\", got " + format.dump());
  const auto& version = member(j, "version", origin);
  if (version != 1) table_fail(origin, "version", "expected 1, got " + version.dump());

  TableData t;
  const auto& field = member(j, "field", origin);
  if (!field.is_string()) table_fail(origin, "field", "expected a string");
  t.field = field.get<std::string>();
  uint64_t p = parse_field(t.field, origin);

  const auto& basis = member(j, "basis", origin);
  if (!basis.is_array()) table_fail(origin, "basis", "expected an array of names");
  std::unordered_set<std::string> seen;
  for (size_t b = 0; b < basis.size(); ++b) {
    if (!basis[b].is_string()) table_fail(origin, "basis[" + std::to_string(b) + "]", "expected a string");
    t.basis.push_back(basis[b].get<std::string>());
    if (!seen.insert(t.basis.back()).second)
      table_fail(origin, "basis[" + std::to_string(b) + "]", "duplicate name \"" + t.basis.back() + "\"");
  }
  const auto& dim = member(j, "dim", origin);
  if (!dim.is_number_integer() || dim.get<int64_t>() != int64_t(t.basis.size()))
    table_fail(origin, "dim", dim.dump() + " does not match the " + std::to_string(t.basis.size()) +
                            " basis names");
  t.dim = uint32_t(t.basis.size());

  const auto& entries = member(j, "entries", origin);
  if (!entries.is_array()) table_fail(origin, "entries", "expected an array of [i, j, k, c]");
  std::set<std::tuple<uint32_t, uint32_t, uint32_t>> keys;
  t.entries.reserve(entries.size());
  for (size_t e = 0; e < entries.size(); ++e) {
    std::string where = "entries[" + std::to_string(e) + "]";
    const auto& row = entries[e];
    if (!row.is_array() || row.size() != 4) table_fail(origin, where, "expected [i, j, k, c]");
    TableEntry te;
    te.i = uint32_t(get_index(row[0], origin, where + "[0]", t.dim, "dim"));
    te.j = uint32_t(get_index(row[1], origin, where + "[1]", t.dim, "dim"));
    te.k = uint32_t(get_index(row[2], origin, where + "[2]", t.dim, "dim"));
    Fraction c;
    try {
      c = fraction_from_json(row[3]);
    } catch (const std::invalid_argument& err) {
      table_fail(origin, where + "[3]", err.what());
    }
    if (p != 0 && (c.den != 1 || c.num < 0 || uint64_t(c.num) >= p))
      table_fail(origin, where + "[3]", "over " + t.field + " a coefficient is a residue in [0, p)");
    if (!keys.insert({te.i, te.j, te.k}).second)
      table_fail(origin, where, "duplicate entry for c_{" + std::to_string(te.i) + "," +
                              std::to_string(te.j) + "}^" + std::to_string(te.k));
    te.num = c.num;
    te.den = c.den;
    if (te.num != 0) t.entries.push_back(te);
  }

  if (auto it = j.find("slots"); it != j.end()) {
    const auto& slots = *it;
    if (!slots.is_object()) table_fail(origin, "slots", "expected {\"q\": q, \"cells\": [[row, col], ...]}");
    const auto& q = member(slots, "q", origin);
    uint64_t qv = get_index(q, origin, "slots.q", uint64_t(1) << 32, "limit");
    if (qv == 0) table_fail(origin, "slots.q", "must be at least 1");
    const auto& cells = member(slots, "cells", origin);
    if (!cells.is_array() || cells.size() != t.dim)
      table_fail(origin, "slots.cells", "expected one [row, col] per basis element (" +
                                      std::to_string(t.dim) + ")");
    for (size_t b = 0; b < cells.size(); ++b) {
      std::string where = "slots.cells[" + std::to_string(b) + "]";
      if (!cells[b].is_array() || cells[b].size() != 2) table_fail(origin, where, "expected [row, col]");
      uint32_t r = uint32_t(get_index(cells[b][0], origin, where + "[0]", qv, "q"));
      uint32_t c = uint32_t(get_index(cells[b][1], origin, where + "[1]", qv, "q"));
      t.slots.emplace_back(r, c);
    }
    t.slot_grid = uint32_t(qv);
  }
  t.hash = canonical_table_hash(j);
  return t;
}

TableData read_table_data(const std::string& path) {
  return table_data_from_json(read_json_file(path, "table file"), path);
}

}  // namespace qalg::gpu
