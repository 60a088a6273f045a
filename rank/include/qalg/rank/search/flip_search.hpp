#pragma once
// The level-by-level flip-graph search (Kauers–Moosbauer, arXiv 2212.01175): a pool of schemes
// of the current length L; batches of random walks, each from a pool scheme, look for a scheme
// of length < L; the shortest ones found become the next pool. A batch without success is a
// restart with fresh seeds. Walk b of batch n at level L gets the seed mix(seed, L, n, b), and
// results are collected in walk order, so a run with a flip budget gives the same schemes for
// any number of threads; a time limit only cuts it short.
//
// Safety (issue 11): every scheme that enters the pool is re-checked against the dense target,
// and a length below the proven lower bound stops the search with SearchBugError.
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <vector>

#include "qalg/rank/search/flip_walk.hpp"
#include "qalg/rank/search/scheme.hpp"

namespace qalg::search {

// A scheme that does not sum to the target, or is shorter than a proven lower bound: a bug in
// the search or in the bound, never a result.
class SearchBugError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

struct SearchProgress {
  size_t level = 0;         // length of the current pool
  size_t pool = 0;          // schemes in the pool
  uint64_t flips = 0;       // all flips so far, all threads
  double seconds = 0;
  double flips_per_second = 0;
  uint64_t walks = 0;       // walks finished
  uint64_t batches = 0;     // batches at the current level (1 + restarts)
};

struct SearchOptions {
  std::optional<size_t> target;  // stop at this length (default: the lower bound)
  size_t lower_bound = 0;        // proven bound for the table over the mode's field
  double time_limit_s = 10;
  std::optional<uint64_t> max_batches;  // alternative budget: batches in total (reproducible)
  unsigned threads = 1;
  uint64_t seed = 1;
  WalkLimits walk;
  size_t batch = 32;             // walks per batch
  size_t pool_size = 32;         // schemes kept per level
  double progress_interval_s = 1;
  std::function<void(const SearchProgress&)> progress;  // called from the calling thread
};

struct LevelReached {
  size_t length = 0;
  double seconds = 0;
  uint64_t flips = 0;
};

struct SearchResult {
  std::vector<Scheme> pool;            // distinct schemes of the best length, in found order
  size_t best_length = 0;
  std::vector<LevelReached> history;   // the start, then each new level
  uint64_t flips = 0;
  uint64_t walks = 0;
  double seconds = 0;
  std::string stop_reason;             // "target reached", "lower bound reached", "time", ...
};

// `start` must sum to `target` (checked; SearchBugError otherwise). Threads are std::thread.
SearchResult flip_search(const Scheme& start, const DenseTarget& target, const SearchOptions& o);

// The seed of walk `walk` in batch `batch` at level `level` (splitmix64 mixing).
uint64_t walk_seed(uint64_t seed, size_t level, uint64_t batch, uint64_t walk);

}  // namespace qalg::search
