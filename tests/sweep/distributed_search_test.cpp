// distributed_flip_search on one process (the MPI path shares the code after the gather): the
// merged scheme sums to the target, is no longer than the start, and never beats the bound.
#include <gtest/gtest.h>

#include "qalg/algebra/graph_algebra.hpp"
#include "qalg/algebra/quiver_input.hpp"
#include "qalg/algebra/tensor_product.hpp"
#include "qalg/rank/search/scheme.hpp"
#include "qalg/sweep/distributed_search.hpp"

namespace qalg::sweep {
namespace {

TEST(DistributedSearch, MergedSchemeIsCorrectAndNoLonger) {
  const StructureTensor t = tensor_power(graph_algebra(quiver_family("complete:2"), Field::rationals()), 2);
  const auto target = search::dense_target(t, search::Mode::GF2);
  const search::Scheme start = search::initial_scheme(t, search::Mode::GF2);
  DistributedSearchOptions o;
  o.search.lower_bound = 28;  // Alder–Strassen for Q_2 ⊗ Q_2 (SPEC §3)
  o.search.time_limit_s = 2;
  o.search.max_batches = 2;
  o.rounds = 2;
  const auto world = world_communicator();
  const DistributedSearchResult d = distributed_flip_search(start, target, o, *world);
  const search::SearchResult& r = d.merged;
  ASSERT_FALSE(r.pool.empty());
  for (const auto& s : r.pool) {
    EXPECT_TRUE(search::scheme_matches(s, target));
    EXPECT_EQ(s.length(), r.best_length);
  }
  EXPECT_LE(r.best_length, start.length());
  EXPECT_GE(r.best_length, 28u);
  EXPECT_FALSE(r.history.empty());
  // The exchange log: round k ran with round_seed(seed, rank, k) and started from the scheme
  // merged after round k - 1 (here, one rank: entry 0 of the merged pool).
  ASSERT_FALSE(d.exchanges.empty());
  for (size_t k = 0; k < d.exchanges.size(); ++k) {
    const auto& ex = d.exchanges[k];
    ASSERT_EQ(ex.ranks.size(), 1u);
    EXPECT_EQ(ex.ranks[0].seed, round_seed(o.search.seed, 0, unsigned(k)));
    EXPECT_EQ(ex.merged_length, ex.ranks[0].found_length);
    if (k == 0) EXPECT_EQ(ex.ranks[0].start_hash, scheme_hash(start));
    else EXPECT_EQ(ex.ranks[0].start_hash, d.exchanges[k - 1].merged_hashes.front());
  }
  EXPECT_EQ(d.exchanges.back().merged_length, r.best_length);
}

}  // namespace
}  // namespace qalg::sweep
