// distributed_flip_search: rounds of independent walks, exchange of the best scheme (header).
#include "qalg/sweep/distributed_search.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace qalg::sweep {
namespace {

nlohmann::json scheme_json(const search::Scheme& s, uint64_t flips, uint64_t walks) {
  std::vector<uint64_t> words;
  for (const auto& t : s.terms)
    for (const auto& f : t.f) words.push_back(f.pos), words.push_back(f.neg);
  return {{"words", words}, {"flips", flips}, {"walks", walks}};
}

search::Scheme scheme_from_json(const nlohmann::json& j, const search::Scheme& like) {
  search::Scheme s{like.mode, like.dim, {}};
  const auto words = j.at("words").get<std::vector<uint64_t>>();
  for (size_t w = 0; w + 6 <= words.size(); w += 6) {
    search::Term t;
    for (size_t k = 0; k < 3; ++k) t.f[k].pos = words[w + 2 * k], t.f[k].neg = words[w + 2 * k + 1];
    s.terms.push_back(t);
  }
  return s;
}

}  // namespace

search::SearchResult distributed_flip_search(const search::Scheme& start, const search::DenseTarget& target,
                                             const DistributedSearchOptions& o, Communicator& world) {
  search::SearchResult merged;
  search::Scheme current = start;
  const unsigned rounds = std::max(1u, o.rounds);
  for (unsigned round = 0; round < rounds; ++round) {
    search::SearchOptions opts = o.search;
    opts.time_limit_s = o.search.time_limit_s / rounds;
    opts.seed = search::walk_seed(o.search.seed, size_t(world.rank()), round, 0x5eedull);
    const search::SearchResult r = search::flip_search(current, target, opts);
    const search::Scheme& mine = r.pool.empty() ? current : r.pool.front();
    const auto parts = world.gather_to_root(scheme_json(mine, r.flips, r.walks).dump());
    std::string chosen;
    if (world.rank() == 0) {
      // Shortest scheme that sums to the target; ties go to the lowest rank (deterministic).
      std::optional<search::Scheme> best;
      for (const auto& p : parts) {
        const auto j = nlohmann::json::parse(p);
        merged.flips += j.at("flips").get<uint64_t>(), merged.walks += j.at("walks").get<uint64_t>();
        search::Scheme s = scheme_from_json(j, current);
        if (!search::scheme_matches(s, target)) throw search::SearchBugError("a rank returned a scheme that does not sum to the target");
        if (!best || s.length() < best->length()) best = std::move(s);
      }
      chosen = scheme_json(*best, merged.flips, merged.walks).dump();
    }
    const auto j = nlohmann::json::parse(world.broadcast_from_root(chosen));
    current = scheme_from_json(j, current);
    merged.flips = j.at("flips").get<uint64_t>(), merged.walks = j.at("walks").get<uint64_t>();
    merged.seconds += r.seconds;
    merged.history.push_back({current.length(), merged.seconds, merged.flips});
    if (current.length() <= o.search.target.value_or(o.search.lower_bound)) {
      merged.stop_reason = "target reached";
      break;
    }
  }
  if (merged.stop_reason.empty()) merged.stop_reason = "rounds done";
  merged.best_length = current.length();
  merged.pool = {current};
  return merged;
}

}  // namespace qalg::sweep
