#pragma once
// Flip-graph search (rank/search, issue 11) across MPI ranks (issue 13): in each round every rank
// walks from the current best scheme with its own seeds; rank 0 gathers each rank's shortest
// scheme, re-checks it against the target, and broadcasts the shortest (ties: lowest rank) as
// the next round's start. One merged result, on every rank.
#include "qalg/rank/search/flip_search.hpp"
#include "qalg/sweep/communicator.hpp"

namespace qalg::sweep {

struct DistributedSearchOptions {
  search::SearchOptions search;  // per round: time_limit_s / rounds, seed mixed with rank and round
  unsigned rounds = 4;
};

// flips and walks are summed over ranks; pool holds the one merged best scheme.
search::SearchResult distributed_flip_search(const search::Scheme& start, const search::DenseTarget& target,
                                             const DistributedSearchOptions& o, Communicator& world);

}  // namespace qalg::sweep
