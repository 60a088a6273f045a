// Tallies: JSON form (checkpoints and the MPI gather), merging, the result document.
#include <algorithm>
#include <map>

#include <fmt/core.h>

#include "qalg/algebra/errors.hpp"
#include "qalg/sweep/sweep.hpp"

namespace qalg::sweep {

nlohmann::json tally_to_json(const SweepTally& t) {
  nlohmann::json cx = nlohmann::json::array();
  for (const auto& c : t.counterexamples)
    cx.push_back({{"index", c.index}, {"law", c.law}, {"reason", c.reason}, {"edges", c.edges}});
  return {{"next_index", t.next_index}, {"quivers", t.quivers}, {"passed", t.passed}, {"failed", t.failed},
          {"skipped", t.skipped}, {"counterexamples", cx}, {"complete", t.complete}, {"checked_now", t.checked_now}};
}

namespace {

// A count: a JSON integer ≥ 0 (nlohmann's get<uint64_t> would turn -5 into 2^64 - 5).
uint64_t count_at(const nlohmann::json& j, const char* key) {
  const nlohmann::json& v = j.at(key);
  if (!v.is_number_unsigned()) throw InputError(fmt::format("sweep tally: \"{}\" must be an integer ≥ 0, not {}", key, v.dump()));
  return v.get<uint64_t>();
}

std::vector<uint64_t> counts_at(const nlohmann::json& j, const char* key) {
  const nlohmann::json& v = j.at(key);
  if (!v.is_array()) throw InputError(fmt::format("sweep tally: \"{}\" must be an array of counts", key));
  std::vector<uint64_t> out;
  for (const auto& x : v) {
    if (!x.is_number_unsigned()) throw InputError(fmt::format("sweep tally: \"{}\" holds {}, not a count", key, x.dump()));
    out.push_back(x.get<uint64_t>());
  }
  return out;
}

}  // namespace

SweepTally tally_from_json(const nlohmann::json& j, size_t laws) {
  SweepTally t;
  try {
    if (!j.is_object()) throw InputError("sweep tally: not a JSON object");
    t.next_index = count_at(j, "next_index");
    t.quivers = count_at(j, "quivers");
    t.passed = counts_at(j, "passed");
    t.failed = counts_at(j, "failed");
    t.skipped = counts_at(j, "skipped");
    t.complete = j.at("complete").get<bool>();
    t.checked_now = j.contains("checked_now") ? count_at(j, "checked_now") : 0;
    for (const auto& c : j.at("counterexamples"))
      t.counterexamples.push_back({c.at("index").get<uint64_t>(), c.at("law").get<std::string>(),
                                   c.at("reason").get<std::string>(), c.at("edges").get<std::string>()});
  } catch (const nlohmann::json::exception& e) {
    throw InputError(std::string("sweep tally: ") + e.what());
  }
  if (t.passed.size() != laws || t.failed.size() != laws || t.skipped.size() != laws)
    throw InputError(fmt::format("sweep tally: expected counts for {} laws", laws));
  // What every tally the sweep writes satisfies: each quiver checked once under every law, at a
  // distinct index below next_index, and at most the failures' counterexamples kept.
  uint64_t failures = 0;
  for (size_t l = 0; l < laws; ++l) {
    if (t.passed[l] + t.failed[l] + t.skipped[l] != t.quivers)
      throw InputError(fmt::format("sweep tally: law {}'s passed + failed + skipped ({} + {} + {}) is not the {} quivers checked",
                                   l, t.passed[l], t.failed[l], t.skipped[l], t.quivers));
    failures += t.failed[l];
  }
  if (t.quivers > t.next_index)
    throw InputError(fmt::format("sweep tally: {} quivers checked below index {}", t.quivers, t.next_index));
  if (t.counterexamples.size() > failures)
    throw InputError(fmt::format("sweep tally: {} counterexamples for {} failures", t.counterexamples.size(), failures));
  for (const auto& c : t.counterexamples)
    if (c.index >= t.next_index)
      throw InputError(fmt::format("sweep tally: a counterexample at index {}, not below next_index {}", c.index, t.next_index));
  return t;
}

SweepTally merge_tallies(const SweepConfig& config, const std::vector<SweepTally>& parts) {
  const size_t n = config.laws.size();
  SweepTally m;
  m.passed.assign(n, 0), m.failed.assign(n, 0), m.skipped.assign(n, 0);
  m.complete = true;
  for (const auto& p : parts) {
    m.quivers += p.quivers;
    m.checked_now += p.checked_now;
    m.next_index = std::max(m.next_index, p.next_index);
    m.complete = m.complete && p.complete;
    for (size_t l = 0; l < n; ++l) m.passed[l] += p.passed[l], m.failed[l] += p.failed[l], m.skipped[l] += p.skipped[l];
    m.counterexamples.insert(m.counterexamples.end(), p.counterexamples.begin(), p.counterexamples.end());
  }
  auto law_order = [&](const std::string& law) { return std::find(config.laws.begin(), config.laws.end(), law) - config.laws.begin(); };
  std::sort(m.counterexamples.begin(), m.counterexamples.end(), [&](const auto& a, const auto& b) {
    return a.index != b.index ? a.index < b.index : law_order(a.law) < law_order(b.law);
  });
  // Each rank kept its lowest indices per law, so the global lowest ones are all here.
  std::map<std::string, size_t> kept;
  std::vector<SweepCounterexample> out;
  for (auto& c : m.counterexamples)
    if (kept[c.law]++ < config.kept_counterexamples) out.push_back(std::move(c));
  m.counterexamples = std::move(out);
  return m;
}

nlohmann::json result_json(const SweepConfig& c, const SweepTally& m) {
  nlohmann::json laws = nlohmann::json::array();
  for (size_t l = 0; l < c.laws.size(); ++l)
    laws.push_back({{"name", c.laws[l]}, {"passed", m.passed[l]}, {"failed", m.failed[l]}, {"skipped", m.skipped[l]}});
  nlohmann::json j = tally_to_json(m);
  j.erase("passed"), j.erase("failed"), j.erase("skipped"), j.erase("next_index"), j.erase("checked_now");
  j["laws"] = laws;
  j["vertices"] = c.range.vertices;
  j["loops"] = c.range.loops;
  j["max_arrows"] = c.range.max_arrows ? nlohmann::json(*c.range.max_arrows) : nlohmann::json(nullptr);
  return j;
}

std::string checkpoint_path(const std::string& prefix, int rank, int ranks) {
  return fmt::format("{}.rank{}of{}", prefix, rank, ranks);
}

}  // namespace qalg::sweep
