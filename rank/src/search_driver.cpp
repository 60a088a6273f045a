// The level-by-level flip-graph search over a pool of schemes (flip_search.hpp).
#include "qalg/rank/search/flip_search.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <mutex>
#include <set>
#include <thread>

#include <fmt/core.h>

#include "qalg/algebra/errors.hpp"

namespace qalg::search {

namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void check_scheme(const Scheme& s, const DenseTarget& target, size_t lower_bound,
                  const char* where) {
  if (!scheme_matches(s, target))
    throw SearchBugError(fmt::format("{}: a scheme of length {} does not sum to the table (a bug "
                                     "in the flip search)", where, s.length()));
  if (s.length() < lower_bound)
    throw SearchBugError(fmt::format("{}: a scheme of length {} sums to the table, below the proven "
                                     "lower bound {}: a bug in the search or in the bound",
                                     where, s.length(), lower_bound));
}

void validate(const SearchOptions& o) {
  if (o.threads < 1) throw InputError("--threads must be at least 1");
  if (o.batch < 1) throw InputError("the batch size must be at least 1");
  if (o.pool_size < 1) throw InputError("the pool size must be at least 1");
  if (o.walk.max_flips < 1) throw InputError("the walk budget must be at least one flip");
  if (!(o.time_limit_s > 0)) throw InputError("--time must be positive");
}

// Runs one batch of walks from `pool` on `threads` threads; the calling thread watches the
// clock and reports progress. Results are indexed by walk, independent of scheduling.
struct BatchRunner {
  const SearchOptions& o;
  Clock::time_point t0;
  std::atomic<bool>& stop;
  std::atomic<uint64_t>& flips;
  std::atomic<uint64_t>& walks;
  double last_report = 0;
  uint64_t last_flips = 0;

  std::vector<WalkResult> run(const std::vector<Scheme>& pool, size_t level, uint64_t batch_no,
                              const SearchProgress& base) {
    std::vector<WalkResult> results(o.batch);
    std::atomic<size_t> next{0};
    std::atomic<unsigned> finished{0};
    std::exception_ptr failure;
    std::mutex failure_mutex;
    auto worker = [&] {
      try {
        for (size_t b; (b = next.fetch_add(1)) < o.batch && !stop.load();) {
          const Scheme& from = pool[(batch_no * o.batch + b) % pool.size()];
          results[b] = run_walk(from, level, o.walk, walk_seed(o.seed, level, batch_no, b), stop,
                                flips);
          walks.fetch_add(1);
        }
      } catch (...) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        failure = std::current_exception();
        stop.store(true);
      }
      finished.fetch_add(1);
    };
    const unsigned n = static_cast<unsigned>(std::min<size_t>(o.threads, o.batch));
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < n; ++t) threads.emplace_back(worker);
    while (finished.load() < n) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      const double now = seconds_since(t0);
      if (now >= o.time_limit_s) stop.store(true);
      if (o.progress && now - last_report >= o.progress_interval_s) report(base, now);
    }
    for (auto& th : threads) th.join();
    if (failure) std::rethrow_exception(failure);
    return results;
  }

  void report(SearchProgress p, double now) {
    const uint64_t f = flips.load();
    p.flips = f;
    p.seconds = now;
    p.walks = walks.load();
    p.flips_per_second = now > last_report ? double(f - last_flips) / (now - last_report) : 0;
    last_report = now;
    last_flips = f;
    o.progress(p);
  }
};

}  // namespace

uint64_t walk_seed(uint64_t seed, size_t level, uint64_t batch, uint64_t walk) {
  return splitmix64(seed ^ splitmix64(level ^ splitmix64(batch ^ splitmix64(walk))));
}

SearchResult flip_search(const Scheme& start, const DenseTarget& target, const SearchOptions& o) {
  validate(o);
  const auto t0 = Clock::now();
  check_scheme(start, target, o.lower_bound, "starting scheme");
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> flips{0}, walks{0};
  BatchRunner runner{o, t0, stop, flips, walks};

  std::vector<Scheme> pool{FlipWalk(start, o.seed).scheme()};  // reduced once
  check_scheme(pool[0], target, o.lower_bound, "reduced starting scheme");
  size_t level = pool[0].length();
  const size_t goal = std::max(o.target.value_or(0), o.lower_bound);
  SearchResult result;
  result.history.push_back({level, seconds_since(t0), 0});
  uint64_t batches = 0, batch_at_level = 0;

  for (;;) {
    if (level <= goal) {
      result.stop_reason = o.target && level <= *o.target ? "target reached" : "lower bound reached";
      break;
    }
    if (o.max_batches && batches >= *o.max_batches) { result.stop_reason = "batch budget spent"; break; }
    if (stop.load() || seconds_since(t0) >= o.time_limit_s) { result.stop_reason = "time limit"; break; }

    SearchProgress base{level, pool.size(), 0, 0, 0, 0, batch_at_level + 1};
    std::vector<WalkResult> results = runner.run(pool, level, batch_at_level, base);
    ++batches;
    size_t shortest = level;
    for (const auto& r : results)
      if (r.reduced) shortest = std::min(shortest, r.scheme.length());
    if (shortest == level) {  // a restart: same pool, fresh seeds
      ++batch_at_level;
      continue;
    }
    std::vector<Scheme> next_pool;
    std::set<std::vector<uint64_t>> seen;
    for (const auto& r : results) {
      if (!r.reduced || r.scheme.length() != shortest) continue;
      check_scheme(r.scheme, target, o.lower_bound, "flip search");
      if (next_pool.size() < o.pool_size && seen.insert(canonical_key(r.scheme)).second)
        next_pool.push_back(r.scheme);
    }
    pool = std::move(next_pool);
    level = shortest;
    batch_at_level = 0;
    result.history.push_back({level, seconds_since(t0), flips.load()});
  }
  result.pool = std::move(pool);
  result.best_length = level;
  result.flips = flips.load();
  result.walks = walks.load();
  result.seconds = seconds_since(t0);
  return result;
}

}  // namespace qalg::search
