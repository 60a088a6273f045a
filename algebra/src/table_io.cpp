// The qalg-table JSON format (documented in table_io.hpp): reader, atomic writer, content hash.
#include "qalg/algebra/table_io.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_set>

#include <fmt/core.h>

#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/resource_guard.hpp"

namespace qalg {

nlohmann::json table_to_json(const StructureTensor& t) {
  using nlohmann::json;
  json j;
  j["format"] = "qalg-table";
  j["version"] = 1;
  j["field"] = t.field().name();
  j["dim"] = t.dim();
  j["basis"] = t.basis_names();
  json entries = json::array();
  for (const auto& e : t.entries()) entries.push_back(json::array({e.i, e.j, e.k, e.c.str()}));
  j["entries"] = std::move(entries);
  if (t.slots()) {
    json cells = json::array();
    for (const auto& s : *t.slots()) cells.push_back(json::array({s.row, s.col}));
    j["slots"] = {{"q", t.slot_grid()}, {"cells", std::move(cells)}};
  }
  if (t.graph_basis()) j["graph"] = {{"vertices", t.graph_basis()->vertex_count}, {"arrows", t.graph_basis()->arrow_count}};
  return j;
}

namespace {

uint64_t get_index(const nlohmann::json& v, const std::string& where) {
  if (!v.is_number_integer() || v.get<int64_t>() < 0)
    throw InputError(fmt::format("{}: expected a non-negative integer", where));
  return v.get<uint64_t>();
}

Rational get_coefficient(const nlohmann::json& v, const std::string& where) {
  Rational r;
  if (v.is_number_integer()) {
    if (v.is_number_unsigned()) fmpq_set_ui(r.get(), v.get<uint64_t>(), 1);
    else fmpq_set_si(r.get(), v.get<int64_t>(), 1);
    return r;
  }
  if (!v.is_string() || !Rational::parse(v.get<std::string>(), r))
    throw InputError(fmt::format("{}: coefficient must be an integer or a \"p/q\" string, got {}", where, v.dump()));
  return r;
}

}  // namespace

StructureTensor table_from_json(const nlohmann::json& j, const std::string& origin) {
  if (!j.is_object()) throw InputError(fmt::format("{}: a table file must be a JSON object", origin));
  // Not j.value("format", ""): it throws json type_error when "format" is not a string.
  if (!j.contains("format") || j["format"] != "qalg-table")
    throw InputError(fmt::format("{}: \"format\" must be \"qalg-table\"", origin));
  if (!j.contains("version") || j["version"] != 1)
    throw InputError(fmt::format("{}: unsupported \"version\" (expected 1)", origin));
  if (!j.contains("field") || !j["field"].is_string()) throw InputError(fmt::format("{}: missing \"field\"", origin));
  Field field = Field::parse(j["field"].get<std::string>());
  if (!j.contains("dim")) throw InputError(fmt::format("{}: missing \"dim\"", origin));
  uint64_t dim = get_index(j["dim"], origin + ": \"dim\"");
  // (An algebra of dimension 0 has no table a rank algorithm or certificate could be read back
  // against: the algorithm reader, too, wants a positive dim.)
  if (dim == 0) throw InputError(fmt::format("{}: \"dim\" must be at least 1", origin));
  if (!j.contains("basis") || !j["basis"].is_array() || j["basis"].size() != dim)
    throw InputError(fmt::format("{}: \"basis\" must be an array of {} names", origin, dim));
  std::vector<std::string> names;
  std::unordered_set<std::string> seen;
  for (const auto& n : j["basis"]) {
    if (!n.is_string()) throw InputError(fmt::format("{}: basis names must be strings", origin));
    if (!seen.insert(n.get<std::string>()).second)
      throw InputError(fmt::format("{}: basis name '{}' occurs twice", origin, n.get<std::string>()));
    names.push_back(n.get<std::string>());
  }
  if (!j.contains("entries") || !j["entries"].is_array()) throw InputError(fmt::format("{}: missing \"entries\" array", origin));
  require_fits(checked_mul(j["entries"].size(), sizeof(TensorEntry) + 16, "table entries"), origin);
  StructureTensor t(field, std::move(names));
  size_t n = 0;
  // Each c_ij^k at most once: add() sums repeats, so [0,0,0,"1"] twice would read as 2.
  std::vector<std::array<uint32_t, 3>> keys;
  keys.reserve(j["entries"].size());
  for (const auto& e : j["entries"]) {
    std::string where = fmt::format("{}: entries[{}]", origin, n++);
    if (!e.is_array() || e.size() != 4) throw InputError(where + ": expected [i, j, k, c]");
    uint64_t a = get_index(e[0], where), b = get_index(e[1], where), c = get_index(e[2], where);
    if (a >= dim || b >= dim || c >= dim)
      throw InputError(fmt::format("{}: index out of range for dim {}", where, dim));
    Rational v = get_coefficient(e[3], where);
    keys.push_back({uint32_t(a), uint32_t(b), uint32_t(c)});
    try {
      t.add(uint32_t(a), uint32_t(b), uint32_t(c), v);
    } catch (const InputError& err) {
      throw InputError(where + ": " + err.what());
    }
  }
  std::sort(keys.begin(), keys.end());
  if (auto twice = std::adjacent_find(keys.begin(), keys.end()); twice != keys.end())
    throw InputError(fmt::format("{}: entries give c_{{{},{}}}^{} more than once (each [i, j, k, c] at most once)", origin,
                                 (*twice)[0], (*twice)[1], (*twice)[2]));
  t.finalize();
  if (j.contains("slots")) {
    const auto& s = j["slots"];
    if (!s.is_object() || !s.contains("q") || !s.contains("cells") || !s["cells"].is_array() || s["cells"].size() != dim)
      throw InputError(fmt::format("{}: \"slots\" must be {{\"q\": q, \"cells\": [[row, col] × dim]}}", origin));
    uint64_t q = get_index(s["q"], origin + ": slots.q");
    if (q == 0 || q > dim) throw InputError(fmt::format("{}: slots.q must be in 1..dim", origin));
    std::vector<Slot> cells;
    for (const auto& c : s["cells"]) {
      if (!c.is_array() || c.size() != 2) throw InputError(origin + ": slots.cells entries must be [row, col]");
      uint64_t row = get_index(c[0], origin + ": slot row"), col = get_index(c[1], origin + ": slot col");
      // Checked before narrowing to uint32: row 2^32 must not read as row 0.
      if (row >= q || col >= q)
        throw InputError(fmt::format("{}: slot ({}, {}) is outside the {}×{} grid", origin, row, col, q, q));
      cells.push_back(Slot{uint32_t(row), uint32_t(col)});
    }
    t.set_slots(std::move(cells), uint32_t(q));
  }
  if (j.contains("graph")) {
    const auto& g = j["graph"];
    if (!g.is_object() || !g.contains("vertices") || !g.contains("arrows"))
      throw InputError(origin + ": \"graph\" must be {\"vertices\": n, \"arrows\": m}");
    uint64_t nv = get_index(g["vertices"], origin + ": graph.vertices"), na = get_index(g["arrows"], origin + ": graph.arrows");
    if (nv + na != dim) throw InputError(fmt::format("{}: graph.vertices + graph.arrows must equal dim {}", origin, dim));
    t.set_graph_basis(GraphBasis{nv, na});
  }
  return t;
}

StructureTensor read_table_file(const std::string& path) {
  return table_from_json(read_json_input(path, "table file"), path);
}

void write_table_file(const StructureTensor& t, const std::string& path) {
  write_text_atomically(table_to_json(t).dump() + "\n", path);
}

std::string table_hash(const StructureTensor& t) {
  std::string text = table_to_json(t).dump();
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(text.data(), text.size(), digest, &len, EVP_sha256(), nullptr);
  std::string hex;
  for (unsigned int i = 0; i < len; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

}  // namespace qalg
