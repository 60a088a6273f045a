// KernelPlan sizes, MAC counts and its JSON form (kernel_plan.hpp).
//   {"format": "qalg-plan", "version": 1, "q": q, "field": "Q", "table_hash": "...",
//    "input_widths": [s...], "output_widths": [r...],
//    "terms": [[i, j, [[k, "c"], ...]], ...]}      // only non-empty B(i, j)
#include "qalg/gpu/kernel_plan.hpp"

#include <stdexcept>

#include "json_file.hpp"
#include "qalg/gpu/fraction.hpp"

namespace qalg::gpu {

static uint64_t sum_of(const std::vector<uint32_t>& w, size_t count) {
  uint64_t s = 0;
  for (size_t g = 0; g < count && g < w.size(); ++g) s += w[g];
  return s;
}

uint64_t KernelPlan::K() const { return sum_of(input_widths, input_widths.size()); }
uint64_t KernelPlan::N() const { return sum_of(output_widths, output_widths.size()); }
uint64_t KernelPlan::input_offset(uint32_t k) const { return sum_of(input_widths, k); }
uint64_t KernelPlan::output_offset(uint32_t j) const { return sum_of(output_widths, j); }

uint64_t KernelPlan::macs_per_row(uint32_t i) const {
  uint64_t macs = 0;
  for (uint32_t j = 0; j < q; ++j)
    for (const PlanTerm& t : B(i, j)) macs += uint64_t(input_widths[t.input_group]) * output_widths[j];
  return macs;
}

nlohmann::json plan_to_json(const KernelPlan& p) {
  nlohmann::json terms = nlohmann::json::array();
  for (uint32_t i = 0; i < p.q; ++i)
    for (uint32_t j = 0; j < p.q; ++j) {
      if (p.B(i, j).empty()) continue;
      nlohmann::json b = nlohmann::json::array();
      for (const PlanTerm& t : p.B(i, j))
        b.push_back({t.input_group, fraction_text({t.num, t.den})});
      terms.push_back({i, j, b});
    }
  return {{"format", "qalg-plan"}, {"version", 1},         {"q", p.q},
          {"field", p.field},      {"table_hash", p.table_hash},
          {"input_widths", p.input_widths}, {"output_widths", p.output_widths},
          {"terms", terms}};
}

namespace {

[[noreturn]] void fail(const std::string& origin, const std::string& field, const std::string& what) {
  throw std::invalid_argument(origin + ": plan field '" + field + "': " + what);
}

uint32_t get_u32(const nlohmann::json& v, const std::string& origin, const std::string& field,
                 uint64_t bound) {
  if (!v.is_number_unsigned() || v.get<uint64_t>() >= bound)
    fail(origin, field, "expected an integer in [0, " + std::to_string(bound) + "), got " + v.dump());
  return uint32_t(v.get<uint64_t>());
}

std::vector<uint32_t> get_widths(const nlohmann::json& j, const char* key, uint32_t q,
                                 const std::string& origin) {
  if (!j.contains(key) || !j[key].is_array() || j[key].size() != q)
    fail(origin, key, "expected an array of q = " + std::to_string(q) + " group widths");
  std::vector<uint32_t> w;
  for (size_t g = 0; g < q; ++g) {
    w.push_back(get_u32(j[key][g], origin, std::string(key) + "[" + std::to_string(g) + "]",
                        uint64_t(1) << 32));
    if (w.back() == 0) fail(origin, std::string(key) + "[" + std::to_string(g) + "]", "width 0");
  }
  return w;
}

}  // namespace

KernelPlan plan_from_json(const nlohmann::json& j, const std::string& origin) {
  if (!j.is_object()) throw std::invalid_argument(origin + ": a qalg-plan must be a JSON object");
  // Not j.value("format", ""): it throws json type_error when "format" is not a string.
  if (!j.contains("format") || j["format"] != "qalg-plan") fail(origin, "format", "expected \"qalg-plan\"");
  if (!j.contains("version") || j["version"] != 1) fail(origin, "version", "expected 1");
  KernelPlan p;
  if (!j.contains("q")) fail(origin, "q", "missing");
  p.q = get_u32(j["q"], origin, "q", uint64_t(kMaxPlanGroups) + 1);
  if (p.q == 0) fail(origin, "q", "must be at least 1");
  if (!j.contains("field") || !j["field"].is_string()) fail(origin, "field", "expected a string");
  p.field = j["field"].get<std::string>();
  if (!j.contains("table_hash") || !j["table_hash"].is_string())
    fail(origin, "table_hash", "expected a string");
  p.table_hash = j["table_hash"].get<std::string>();
  p.input_widths = get_widths(j, "input_widths", p.q, origin);
  p.output_widths = get_widths(j, "output_widths", p.q, origin);

  const size_t cells = size_t(p.q) * p.q;
  p.terms.assign(cells, {});
  p.block_used.assign(cells, 0);
  std::vector<uint8_t> seen(cells, 0);
  if (!j.contains("terms") || !j["terms"].is_array()) fail(origin, "terms", "expected an array");
  const auto& terms = j["terms"];
  for (size_t e = 0; e < terms.size(); ++e) {
    std::string where = "terms[" + std::to_string(e) + "]";
    const auto& row = terms[e];
    if (!row.is_array() || row.size() != 3 || !row[2].is_array())
      fail(origin, where, "expected [i, j, [[k, c], ...]]");
    uint32_t i = get_u32(row[0], origin, where + "[0]", p.q);
    uint32_t jj = get_u32(row[1], origin, where + "[1]", p.q);
    if (seen[size_t(i) * p.q + jj]++) fail(origin, where, "B(i, j) listed twice");
    auto& out = p.terms[size_t(i) * p.q + jj];
    for (size_t t = 0; t < row[2].size(); ++t) {
      std::string w = where + "[2][" + std::to_string(t) + "]";
      const auto& term = row[2][t];
      if (!term.is_array() || term.size() != 2) fail(origin, w, "expected [k, c]");
      PlanTerm pt;
      pt.input_group = get_u32(term[0], origin, w + "[0]", p.q);
      if (!out.empty() && out.back().input_group >= pt.input_group)
        fail(origin, w, "input groups must be strictly increasing");
      Fraction c;
      try {
        c = fraction_from_json(term[1]);
      } catch (const std::invalid_argument& err) {
        fail(origin, w + "[1]", err.what());
      }
      if (c.num == 0) fail(origin, w + "[1]", "zero coefficient");
      pt.num = c.num;
      pt.den = c.den;
      out.push_back(pt);
      p.block_used[size_t(pt.input_group) * p.q + jj] = 1;
    }
  }
  return p;
}

KernelPlan read_plan_file(const std::string& path) {
  return plan_from_json(read_json_file(path, "plan file"), path);
}

}  // namespace qalg::gpu
