#pragma once
// Flip-graph search (rank/search, issue 11) across MPI ranks (issue 13): in each round every rank
// walks from a scheme of the current best length with its own seed; rank 0 gathers each rank's
// pool of shortest schemes, re-checks every one against the target, and broadcasts the merged
// pool of the shortest length (ranks in order, duplicates dropped). In the next round rank r
// starts from merged pool entry r mod |pool|, so the ranks keep walking from different schemes of
// the best length found anywhere. One merged result, on every rank.
#include <functional>

#include "qalg/rank/search/flip_search.hpp"
#include "qalg/sweep/communicator.hpp"

namespace qalg::sweep {

struct DistributedSearchOptions {
  // Per round: time_limit_s / rounds; max_batches per rank and round; seed mixed with rank and
  // round (round_seed). `progress` is called on the ranks where it is set.
  search::SearchOptions search;
  unsigned rounds = 4;
};

// What one rank did in one round, as rank 0 received it.
struct RankRound {
  int rank = 0;
  unsigned round = 0;
  uint64_t seed = 0;           // the seed its flip_search ran with
  size_t start_length = 0;     // length of the scheme it started from
  uint64_t start_hash = 0;     // scheme_hash of that scheme
  size_t found_length = 0;     // its shortest length at the end of the round
  uint64_t flips = 0, walks = 0;
};

// One exchange: every rank's round, and the merged pool rank 0 broadcast after it.
struct SearchExchange {
  unsigned round = 0;
  std::vector<RankRound> ranks;
  size_t merged_length = 0;
  std::vector<uint64_t> merged_hashes;  // scheme_hash of each scheme of the merged pool
};

struct DistributedSearchResult {
  search::SearchResult merged;          // flips, walks summed over ranks; pool = the merged pool
  std::vector<SearchExchange> exchanges;  // filled on rank 0 only
};

// The seed rank `rank` runs round `round` with: walks of different ranks and rounds never share
// a seed stream (splitmix64 mixing, search::walk_seed).
uint64_t round_seed(uint64_t seed, int rank, unsigned round);

// A 64-bit FNV-1a hash of the scheme's factor words in term order (identifies a scheme sent
// between ranks; not invariant under reordering).
uint64_t scheme_hash(const search::Scheme& s);

// Collective: every rank of `world` must call it with the same start, target and options (seed
// included). `on_exchange`, when set, is called on rank 0 after each exchange.
DistributedSearchResult distributed_flip_search(const search::Scheme& start, const search::DenseTarget& target,
                                                const DistributedSearchOptions& o, Communicator& world,
                                                const std::function<void(const SearchExchange&)>& on_exchange = {});

}  // namespace qalg::sweep
