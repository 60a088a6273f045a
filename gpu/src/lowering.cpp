// Table -> KernelPlan (SPEC §4), with the slot-compatibility check that makes it valid.
#include "qalg/gpu/lowering.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace qalg::gpu {
namespace {

std::string slot_text(std::pair<uint32_t, uint32_t> s) {
  return "(" + std::to_string(s.first) + "," + std::to_string(s.second) + ")";
}

std::string name_of(const TableData& t, uint32_t b) {
  return "'" + (b < t.basis.size() ? t.basis[b] : std::to_string(b)) + "'";
}

// Every basis element in the q×q grid, at most one per slot. Sorted (slot, element) pairs, not a
// q×q array: the grid size comes from the file and may be up to 2^32 (issue 12).
void check_slot_layout(const TableData& t) {
  if (!t.slot_grid || t.slots.size() != t.dim)
    throw std::invalid_argument("table has no slot layout (\"slots\"): lowering needs the grid "
                                "position of every basis element (SPEC §4)");
  const uint32_t q = *t.slot_grid;
  std::vector<std::pair<std::pair<uint32_t, uint32_t>, uint32_t>> placed;  // (slot, element)
  placed.reserve(t.dim);
  for (uint32_t b = 0; b < t.dim; ++b) {
    auto [row, col] = t.slots[b];
    if (row >= q || col >= q)
      throw std::invalid_argument("basis element " + name_of(t, b) + " has slot " +
                                  slot_text(t.slots[b]) + " outside the " + std::to_string(q) +
                                  "x" + std::to_string(q) + " grid");
    placed.push_back({t.slots[b], b});
  }
  std::sort(placed.begin(), placed.end());
  for (size_t n = 1; n < placed.size(); ++n)
    if (placed[n].first == placed[n - 1].first)
      throw std::invalid_argument(
          "not slot-compatible: slot " + slot_text(placed[n].first) + " holds two basis elements, " +
          name_of(t, placed[n - 1].second) + " and " + name_of(t, placed[n].second) +
          " (a loop or parallel arrows?)");
}

void check_widths(const std::vector<uint32_t>& w, uint32_t q, const char* what) {
  if (w.size() != q)
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(w.size()) +
                                " widths given, the table's slot grid needs q = " + std::to_string(q));
  uint64_t total = 0;
  for (size_t g = 0; g < w.size(); ++g) {
    if (w[g] == 0)
      throw std::invalid_argument(std::string(what) + ": group " + std::to_string(g) + " has width 0");
    total += w[g];
  }
  // The kernels index rows and columns of W with 32-bit integers (cuda/device_plan.cpp).
  if (total >= (uint64_t(1) << 31))
    throw std::invalid_argument(std::string(what) + ": total width " + std::to_string(total) +
                                " is not below 2^31, the kernels' index limit");
}

}  // namespace

void check_slot_compatible(const TableData& t) {
  check_slot_layout(t);
  for (const TableEntry& e : t.entries) {
    if (e.num == 0) continue;
    auto [a, b] = t.slots[e.i];
    auto [b2, d] = t.slots[e.j];
    std::string product = name_of(t, e.i) + "·" + name_of(t, e.j);
    if (b != b2)
      throw std::invalid_argument("not slot-compatible: " + product + " is nonzero (coefficient on " +
                                  name_of(t, e.k) + ") but slots " + slot_text(t.slots[e.i]) +
                                  " and " + slot_text(t.slots[e.j]) + " do not chain");
    if (t.slots[e.k] != std::pair{a, d})
      throw std::invalid_argument("not slot-compatible: " + product + " has a component on " +
                                  name_of(t, e.k) + " in slot " + slot_text(t.slots[e.k]) +
                                  ", expected slot " + slot_text({a, d}));
  }
}

KernelPlan lower_table(const TableData& t, const std::vector<uint32_t>& input_widths,
                       const std::vector<uint32_t>& output_widths) {
  if (t.field != "Q")
    throw std::invalid_argument("table is over " + t.field +
                                "; GPU kernels compute in floating point, lower a table over Q");
  check_slot_compatible(t);
  const uint32_t q = *t.slot_grid;
  if (q > kMaxPlanGroups)
    throw std::invalid_argument("slot grid q = " + std::to_string(q) + " is above " +
                                std::to_string(kMaxPlanGroups) + ", the largest a KernelPlan holds");
  check_widths(input_widths, q, "input widths");
  check_widths(output_widths, q, "output widths");

  KernelPlan p;
  p.q = q;
  p.input_widths = input_widths;
  p.output_widths = output_widths;
  p.table_hash = t.hash;
  p.field = t.field;
  p.terms.assign(size_t(q) * q, {});
  p.block_used.assign(size_t(q) * q, 0);
  // Slot-compatible: entry (i, j, k) with slots (a,b)·(b,d) -> (a,d) is the term k = b of B(a, d);
  // one basis element per slot makes (a, b, d) determine (i, j, k), so each term appears once.
  for (const TableEntry& e : t.entries) {
    if (e.num == 0) continue;
    auto [a, b] = t.slots[e.i];
    uint32_t d = t.slots[e.j].second;
    p.terms[size_t(a) * q + d].push_back(PlanTerm{b, e.num, e.den});
    p.block_used[size_t(b) * q + d] = 1;
  }
  for (auto& terms : p.terms)
    std::sort(terms.begin(), terms.end(),
              [](const PlanTerm& x, const PlanTerm& y) { return x.input_group < y.input_group; });
  return p;
}

std::vector<uint32_t> parse_widths(const std::string& text, uint32_t q, const std::string& what) {
  auto bad = [&](const std::string& why) {
    return std::invalid_argument(what + " '" + text + "': " + why);
  };
  // `role`: "width" or "repeat count" (the n of WxN), named in the errors.
  auto number = [&](std::string_view s, const std::string& role) {
    uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size() || s.empty())
      throw bad("'" + std::string(s) + "' is not a positive integer");
    if (v == 0) throw bad(role + " 0");
    if (v > UINT32_MAX) throw bad(role + " " + std::string(s) + " is too large");
    return v;
  };
  std::vector<uint32_t> widths;
  std::string_view rest(text);
  if (rest.empty()) throw bad("empty");
  while (true) {
    size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    size_t x = item.find('x');
    uint64_t w = number(item.substr(0, x), "width");
    uint64_t times = x == std::string_view::npos ? 1 : number(item.substr(x + 1), "repeat count");
    if (widths.size() + times > q && !(comma == std::string_view::npos && widths.empty() && times == 1))
      throw bad("more than q = " + std::to_string(q) + " widths");
    widths.insert(widths.end(), times, uint32_t(w));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  bool single = widths.size() == 1 && text.find('x') == std::string::npos;
  if (single) widths.assign(q, widths[0]);
  if (widths.size() != q)
    throw bad(std::to_string(widths.size()) + " widths given, q = " + std::to_string(q) + " needed");
  return widths;
}

}  // namespace qalg::gpu
