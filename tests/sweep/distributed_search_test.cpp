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
  const search::SearchResult r = distributed_flip_search(start, target, o, *world);
  ASSERT_EQ(r.pool.size(), 1u);
  EXPECT_TRUE(search::scheme_matches(r.pool.front(), target));
  EXPECT_LE(r.best_length, start.length());
  EXPECT_GE(r.best_length, 28u);
  EXPECT_EQ(r.best_length, r.pool.front().length());
  EXPECT_FALSE(r.history.empty());
}

}  // namespace
}  // namespace qalg::sweep
