// Every number of the SPEC §3 table, reproduced from the table itself.
#include <gtest/gtest.h>

#include "qalg/algebra/report.hpp"
#include "qalg/algebra/tensor_product.hpp"
#include "qalg/rank/rank_report.hpp"
#include "rank_test_support.hpp"

namespace qalg {
namespace {

struct Row {
  size_t dim, t, bound, explicit_length;
  std::optional<size_t> exact;
};

void expect_row(const StructureTensor& table, const Row& want) {
  AlgebraReport a = inspect_algebra(table);
  ASSERT_EQ(a.dim, want.dim);
  ASSERT_TRUE(a.t.has_value());
  EXPECT_EQ(*a.t, want.t);
  RankReport r = compute_rank_report(table, a);
  EXPECT_EQ(r.best_lower_bound, want.bound);
  EXPECT_EQ(r.best_bound_name, "Alder–Strassen");
  EXPECT_EQ(r.explicit_length, want.explicit_length);
  EXPECT_TRUE(r.explicit_verified);
  EXPECT_EQ(r.rank_exact, want.exact);
  for (const auto& n : r.notes) EXPECT_EQ(n.find("INCONSISTENT"), std::string::npos) << n;
}

TEST(RankNumbers, CompleteTwo) {
  expect_row(testing::graph_table("complete:2"), {4, 2, 6, 6, 6});
  RankReport r = compute_rank_report(testing::graph_table("complete:2"),
                                     inspect_algebra(testing::graph_table("complete:2")));
  EXPECT_EQ(r.explicit_algorithm, "canonical graph-algebra algorithm");
}

TEST(RankNumbers, CompleteQUpToThirtyTwo) {
  for (size_t q = 2; q <= 32; ++q) {
    SCOPED_TRACE(q);
    size_t value = 2 * q * q - q;
    expect_row(testing::graph_table("complete:" + std::to_string(q)), {q * q, q, value, value, value});
  }
}

TEST(RankNumbers, CompleteFourMeetsItsBound) {
  expect_row(testing::graph_table("complete:4"), {16, 4, 28, 28, 28});
}

TEST(RankNumbers, SquareOfCompleteTwoIsOpenBetween28And36) {
  expect_row(tensor_power(testing::graph_table("complete:2"), 2), {16, 4, 28, 36, std::nullopt});
}

TEST(RankNumbers, SquareOfDualNumbersNeedsNineProductsFromQalg) {
  // k[x]/(x²) is the loop quiver: one vertex, one loop (SPEC §3).
  StructureTensor dual = graph_algebra(parse_edge_list("1 1\n", "loop"), Field::rationals());
  expect_row(dual, {2, 1, 3, 3, 3});
  expect_row(tensor_power(dual, 2), {4, 1, 7, 9, std::nullopt});
  // Over GF(2) the bound is the same (Alder–Strassen holds over every field).
  expect_row(tensor_power(graph_algebra(parse_edge_list("1 1\n", "loop"), Field::prime(2)), 2),
             {4, 1, 7, 9, std::nullopt});
}

TEST(RankNumbers, RandomQuiversMeetAlderStrassen) {
  // SPEC §3: R(Q_G) = |V| + 2|E| for every quiver, loops and parallel arrows included.
  for (const char* spec : {"path:5", "cycle:4", "star:6", "random:7,0.4,11"}) {
    SCOPED_TRACE(spec);
    Quiver q = read_quiver(spec);
    size_t n = q.vertex_count() + 2 * q.arrow_count();
    expect_row(graph_algebra(q, Field::rationals()),
               {q.vertex_count() + q.arrow_count(), q.vertex_count(), n, n, n});
  }
}

TEST(RankReportJson, CarriesTheIntervalAndBounds) {
  StructureTensor t = tensor_power(testing::graph_table("complete:2"), 2);
  nlohmann::json j = to_json(compute_rank_report(t, inspect_algebra(t)));
  EXPECT_EQ(j["best_lower_bound"], 28);
  EXPECT_EQ(j["explicit_length"], 36);
  EXPECT_TRUE(j["rank_exact"].is_null());
  EXPECT_EQ(j["interval"], nlohmann::json({28, 36}));
  EXPECT_FALSE(j["bounds"].empty());
}

}  // namespace
}  // namespace qalg
