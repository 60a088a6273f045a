// QALG_TABLE_ROWS (bench/gpu/table_rows.hpp): which of the bench table suite's rows a run times.
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "../../bench/gpu/table_rows.hpp"
#include "property.hpp"

using namespace qalg::bench;

namespace {
// The rows of `table` that `spec` keeps, as "kind name M" strings.
std::set<std::string> kept(const std::string& spec, const std::vector<TableRow>& table) {
  const TableRowFilter f = parse_table_rows(spec, table);
  std::set<std::string> out;
  for (const TableRow& r : table)
    if (f.keeps(r)) out.insert(r.kind + " " + r.name + " " + std::to_string(r.M));
  return out;
}
std::string message(const std::string& spec) {
  try {
    parse_table_rows(spec, table_suite_rows());
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(TableRows, TheSuitesRowsFromSpecTables) {
  // 8 projections + 5 shapes x (2 FFN rows + 2 training rows) + 4 squares (SPEC §6's tables)
  const auto rows = table_suite_rows();
  EXPECT_EQ(rows.size(), 8u + 5u * 4u + 4u);
  std::set<std::string> distinct;
  for (const TableRow& r : rows) distinct.insert(r.kind + " " + r.name + " " + std::to_string(r.M));
  EXPECT_EQ(distinct.size(), rows.size());  // every row has its own (kind, name, M)
}

TEST(TableRows, TheUnmetRowsOfTheCurrentTable) {
  const auto table = table_suite_rows();
  EXPECT_EQ(kept("projection:Qwen3-30B,ffn:DeepSeek-V3@2048,ffn:Qwen3-8B@1", table),
            (std::set<std::string>{"projection Qwen3-30B-A3B-expert 2048", "ffn DeepSeek-V3-expert 2048",
                                   "ffn Qwen3-8B 1"}));
  // M picks among the three Qwen3-32B projections; no M keeps all three
  EXPECT_EQ(kept("projection:Qwen3-32B@8192", table).size(), 1u);
  EXPECT_EQ(kept("projection:Qwen3-32B", table).size(), 3u);
  EXPECT_EQ(kept("training:Qwen3-4B/down", table), (std::set<std::string>{"training Qwen3-4B/down 2048"}));
  EXPECT_EQ(kept("square:16384", table), (std::set<std::string>{"square 16384 16384"}));
  EXPECT_EQ(kept("ffn:Qwen3", table).size(), 8u);  // four Qwen3 shapes x M = 1, 2048
}

TEST(TableRows, NoFilterKeepsEveryRow) {
  const TableRowFilter none;
  for (const TableRow& r : table_suite_rows()) EXPECT_TRUE(none.keeps(r)) << r.name;
}

TEST(TableRows, BadItemsAreRefusedByName) {
  EXPECT_NE(message("").find("empty"), std::string::npos);
  EXPECT_NE(message("Qwen3-8B").find("'Qwen3-8B': expected KIND:PREFIX[@M]"), std::string::npos);
  EXPECT_NE(message("decode:Qwen3-8B").find("'decode:Qwen3-8B': kind must be"), std::string::npos);
  EXPECT_NE(message("ffn:Qwen3-9B").find("'ffn:Qwen3-9B': selects no row"), std::string::npos);
  EXPECT_NE(message("ffn:Qwen3-8B@512").find("selects no row"), std::string::npos);  // no FFN row at M = 512
  EXPECT_NE(message("ffn:Qwen3-8B@1x").find("M must be a positive integer"), std::string::npos);
  EXPECT_NE(message("ffn:Qwen3-8B@0").find("M must be a positive integer"), std::string::npos);
  EXPECT_NE(message("ffn:Qwen3-8B@").find("M must be a positive integer"), std::string::npos);
  EXPECT_NE(message("ffn:@1").find("empty name prefix"), std::string::npos);
  EXPECT_NE(message("ffn:Qwen3-8B,,square:4096").find("'': expected"), std::string::npos);
  EXPECT_NE(message("ffn:Qwen3-8B,").find("trailing ','"), std::string::npos);
  EXPECT_NE(message("projection:qwen3-8B").find("selects no row"), std::string::npos);  // names are case-sensitive
  EXPECT_EQ(message("ffn:Qwen3-8B@1,square:4096"), "");
}

// Laws over random items drawn from the rows themselves: an item made of a row's kind, a prefix of
// its name and (maybe) its M keeps that row; a list keeps exactly the union of what its items keep.
QALG_PROPERTY(TableRows, ListsKeepTheUnionOfTheirItems) {
  std::mt19937_64 rng(seed);
  const auto table = table_suite_rows();
  const auto draw_item = [&](const TableRow& r) {
    const size_t len = 1 + rng() % r.name.size();
    std::string item = r.kind + ":" + r.name.substr(0, len);
    if (rng() % 2) item += "@" + std::to_string(r.M);
    return item;
  };
  const size_t n = 1 + rng() % 4;
  std::string spec;
  std::set<std::string> union_of_items;
  for (size_t k = 0; k < n; ++k) {
    const TableRow& r = table[rng() % table.size()];
    const std::string item = draw_item(r);
    const auto alone = kept(item, table);
    PROP_ASSERT(alone.count(r.kind + " " + r.name + " " + std::to_string(r.M)) == 1);
    for (const TableRow& other : table)  // an item keeps only rows of its own kind
      if (alone.count(other.kind + " " + other.name + " " + std::to_string(other.M))) PROP_ASSERT(other.kind == r.kind);
    union_of_items.insert(alone.begin(), alone.end());
    spec += (k ? "," : "") + item;
  }
  PROP_ASSERT(kept(spec, table) == union_of_items);
}
