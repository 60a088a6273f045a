// distributed_flip_search: rounds of independent walks, exchange of the best schemes (header).
#include "qalg/sweep/distributed_search.hpp"

#include <algorithm>
#include <chrono>
#include <set>

#include <nlohmann/json.hpp>

namespace qalg::sweep {
namespace {

std::vector<uint64_t> scheme_words(const search::Scheme& s) {
  std::vector<uint64_t> words;
  for (const auto& t : s.terms)
    for (const auto& f : t.f) words.push_back(f.pos), words.push_back(f.neg);
  return words;
}

search::Scheme scheme_from_words(const std::vector<uint64_t>& words, const search::Scheme& like) {
  search::Scheme s{like.mode, like.dim, {}};
  for (size_t w = 0; w + 6 <= words.size(); w += 6) {
    search::Term t;
    for (size_t k = 0; k < 3; ++k) t.f[k].pos = words[w + 2 * k], t.f[k].neg = words[w + 2 * k + 1];
    s.terms.push_back(t);
  }
  return s;
}

nlohmann::json pool_json(const std::vector<search::Scheme>& pool) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& s : pool) a.push_back(scheme_words(s));
  return a;
}

std::vector<search::Scheme> pool_from_json(const nlohmann::json& a, const search::Scheme& like) {
  std::vector<search::Scheme> pool;
  for (const auto& w : a) pool.push_back(scheme_from_words(w.get<std::vector<uint64_t>>(), like));
  return pool;
}

// Rank 0: every rank's report of one round -> the exchange record and the merged pool (the
// shortest schemes of all ranks, rank order, duplicates up to term order and sign dropped).
std::vector<search::Scheme> merge_round(const std::vector<std::string>& parts, unsigned round,
                                        const search::Scheme& like, const search::DenseTarget& target,
                                        size_t pool_size, SearchExchange& ex, uint64_t& flips, uint64_t& walks) {
  std::vector<std::vector<search::Scheme>> pools;
  ex.round = round;
  for (size_t r = 0; r < parts.size(); ++r) {
    const auto j = nlohmann::json::parse(parts[r]);
    RankRound rr;
    rr.rank = int(r), rr.round = round, rr.seed = j.at("seed").get<uint64_t>();
    rr.start_length = j.at("start_length").get<size_t>(), rr.start_hash = j.at("start_hash").get<uint64_t>();
    rr.flips = j.at("flips").get<uint64_t>(), rr.walks = j.at("walks").get<uint64_t>();
    pools.push_back(pool_from_json(j.at("pool"), like));
    for (const auto& s : pools.back())
      if (!search::scheme_matches(s, target))
        throw search::SearchBugError("MPI rank " + std::to_string(r) + " returned a scheme that does not sum to the target");
    rr.found_length = pools.back().front().length();
    flips += rr.flips, walks += rr.walks;
    ex.ranks.push_back(rr);
  }
  size_t best = pools.front().front().length();
  for (const auto& p : pools) best = std::min(best, p.front().length());
  std::vector<search::Scheme> merged;
  std::set<std::vector<uint64_t>> seen;
  for (const auto& p : pools)
    for (const auto& s : p)
      if (s.length() == best && merged.size() < std::max<size_t>(1, pool_size) && seen.insert(search::canonical_key(s)).second)
        merged.push_back(s);
  ex.merged_length = best;
  for (const auto& s : merged) ex.merged_hashes.push_back(scheme_hash(s));
  return merged;
}

}  // namespace

uint64_t round_seed(uint64_t seed, int rank, unsigned round) {
  return search::walk_seed(seed, size_t(rank), round, 0x5eedull);
}

uint64_t scheme_hash(const search::Scheme& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint64_t w : scheme_words(s))
    for (int b = 0; b < 8; ++b) h = (h ^ ((w >> (8 * b)) & 0xff)) * 0x100000001b3ull;
  return h;
}

DistributedSearchResult distributed_flip_search(const search::Scheme& start, const search::DenseTarget& target,
                                                const DistributedSearchOptions& o, Communicator& world,
                                                const std::function<void(const SearchExchange&)>& on_exchange) {
  const auto t0 = std::chrono::steady_clock::now();
  DistributedSearchResult out;
  search::SearchResult& merged = out.merged;
  merged.history.push_back({start.length(), 0, 0});
  search::Scheme current = start;
  const unsigned rounds = std::max(1u, o.rounds);
  const size_t goal = o.search.target.value_or(o.search.lower_bound);
  for (unsigned round = 0; round < rounds && current.length() > goal; ++round) {
    search::SearchOptions opts = o.search;
    opts.time_limit_s = o.search.time_limit_s / rounds;
    opts.seed = round_seed(o.search.seed, world.rank(), round);
    const search::SearchResult r = search::flip_search(current, target, opts);
    const nlohmann::json mine = {{"seed", opts.seed}, {"start_length", current.length()},
                                 {"start_hash", scheme_hash(current)}, {"flips", r.flips}, {"walks", r.walks},
                                 {"pool", pool_json(r.pool.empty() ? std::vector{current} : r.pool)}};
    const auto parts = world.gather_to_root(mine.dump());
    std::string chosen;
    if (world.rank() == 0) {
      SearchExchange ex;
      const auto pool = merge_round(parts, round, current, target, o.search.pool_size, ex, merged.flips, merged.walks);
      chosen = nlohmann::json{{"pool", pool_json(pool)}, {"flips", merged.flips}, {"walks", merged.walks}}.dump();
      out.exchanges.push_back(ex);
      if (on_exchange) on_exchange(ex);
    }
    const auto j = nlohmann::json::parse(world.broadcast_from_root(chosen));
    merged.pool = pool_from_json(j.at("pool"), current);
    merged.flips = j.at("flips").get<uint64_t>(), merged.walks = j.at("walks").get<uint64_t>();
    merged.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // Different ranks continue from different schemes of the best length (more diversity than
    // all restarting from one).
    current = merged.pool[size_t(world.rank()) % merged.pool.size()];
    if (current.length() < merged.history.back().length)
      merged.history.push_back({current.length(), merged.seconds, merged.flips});
  }
  if (merged.pool.empty()) merged.pool = {current};  // start already at the goal: no round ran
  merged.best_length = current.length();
  if (o.search.target && merged.best_length <= *o.search.target)
    merged.stop_reason = "target reached";
  else if (merged.best_length <= o.search.lower_bound)
    merged.stop_reason = "lower bound reached";
  else
    merged.stop_reason = "rounds done";
  return out;
}

}  // namespace qalg::sweep
