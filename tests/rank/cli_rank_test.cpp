// `qalg rank` and `qalg cost` end to end: exit codes 0 / 1 / 2 and what they print.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include "support/command_run.hpp"

namespace {

namespace fs = std::filesystem;

struct CliRun {
  int code;
  std::string out;
};

CliRun qalg(const std::string& args, bool merge_stderr = true) {
  auto r = ::qalg::test_support::run_qalg(args, merge_stderr);
  return {r.code, r.out};
}

class RankCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("qalg_rank_cli_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void write(const std::string& name, const std::string& text) const { std::ofstream(path(name)) << text; }
  fs::path dir_;
};

TEST_F(RankCli, CompleteTwoHasExactRankSix) {
  CliRun r = qalg("rank complete:2");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("R = 6"), std::string::npos) << r.out;
  CliRun j = qalg("rank complete:2 --power 2 --json");
  ASSERT_EQ(j.code, 0) << j.out;
  auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["rank"]["best_lower_bound"], 28);
  EXPECT_EQ(doc["rank"]["explicit_length"], 36);
  EXPECT_TRUE(doc["rank"]["rank_exact"].is_null());
}

TEST_F(RankCli, WrittenAlgorithmVerifiesAndACorruptedOneExitsOne) {
  ASSERT_EQ(qalg("rank complete:3 --write-algorithm " + path("q3.json")).code, 0);
  CliRun ok = qalg("rank complete:3 --algorithm " + path("q3.json"));
  EXPECT_EQ(ok.code, 0) << ok.out;
  auto alg = nlohmann::json::parse(std::ifstream(path("q3.json")));
  EXPECT_EQ(alg["terms"].size(), 15u);  // 2·9 − 3
  alg["terms"][4]["gamma"][0][1] = "2";
  std::ofstream(path("bad.json")) << alg.dump();
  CliRun bad = qalg("rank complete:3 --algorithm " + path("bad.json") + " --json");
  EXPECT_EQ(bad.code, 1) << bad.out;
  auto doc = nlohmann::json::parse(bad.out);
  EXPECT_FALSE(doc["algorithm"]["verified"]);
  EXPECT_EQ(doc["algorithm"]["mismatch"]["algorithm_value"], "2");
  EXPECT_EQ(doc["algorithm"]["mismatch"]["table_value"], "1");
}

TEST_F(RankCli, BadAlgorithmFilesExitTwoWithAOneLineReason) {
  ASSERT_EQ(qalg("rank complete:2 --write-algorithm " + path("q2.json")).code, 0);
  CliRun dim = qalg("rank complete:3 --algorithm " + path("q2.json"));
  EXPECT_EQ(dim.code, 2);
  EXPECT_NE(dim.out.find("dim"), std::string::npos) << dim.out;
  CliRun field = qalg("rank complete:2 --field 'GF(5)' --algorithm " + path("q2.json"));
  EXPECT_EQ(field.code, 2);
  EXPECT_NE(field.out.find("GF(5)"), std::string::npos) << field.out;
  write("text.json", R"({"format":"qalg-algorithm","version":1,"field":"Q","dim":4,
    "terms":[{"alpha":[[0,"x"]],"beta":[[0,"1"]],"gamma":[[0,"1"]]}]})");
  CliRun text = qalg("rank complete:2 --algorithm " + path("text.json"));
  EXPECT_EQ(text.code, 2);
  EXPECT_NE(text.out.find("term 0 alpha"), std::string::npos) << text.out;
  EXPECT_EQ(qalg("rank complete:2 --algorithm " + path("missing.json")).code, 2);
}

TEST_F(RankCli, CostReportsExactFractions) {
  CliRun r = qalg("cost complete:4 --shape 2048,4096,4096 --json");
  ASSERT_EQ(r.code, 0) << r.out;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["fraction"], "7/16");
  EXPECT_EQ(doc["attention"]["forward_ceiling"], "32/23");
  EXPECT_EQ(doc["forward_macs"].get<uint64_t>() * 16, uint64_t{7} * 2048 * 4096 * 4096);
  CliRun square = qalg("cost complete:2 --power 2 --shape 512,512,512 --json");
  ASSERT_EQ(square.code, 0) << square.out;
  auto sq = nlohmann::json::parse(square.out);
  EXPECT_EQ(sq["block_products"], 36);
  EXPECT_EQ(sq["square_products"]["macs"], 36ull * 128 * 128 * 128);
  CliRun unequal = qalg("cost complete:2 --shape 8,96,64 --widths 32,64 --output-widths 16,48");
  EXPECT_EQ(unequal.code, 0) << unequal.out;
}

TEST_F(RankCli, CostRejectsShapesAndWidthsThatDoNotAddUp) {
  CliRun widths = qalg("cost complete:2 --shape 8,96,64 --widths 32,60");
  EXPECT_EQ(widths.code, 2);
  EXPECT_NE(widths.out.find("--widths"), std::string::npos) << widths.out;
  EXPECT_EQ(qalg("cost complete:2 --shape 8,96").code, 2);
  EXPECT_EQ(qalg("cost complete:2 --shape 8,x,64").code, 2);
  EXPECT_EQ(qalg("cost complete:3 --shape 8,64,64").code, 2);  // 3 ∤ 64
  CliRun loop = qalg("cost " + std::string(QALG_SOURCE_DIR) + "/tests/rank/no_such_graph --shape 1,1,1");
  EXPECT_EQ(loop.code, 2);
  write("loop.txt", "1 1\n");
  CliRun slot = qalg("cost " + path("loop.txt") + " --shape 2,2,2");
  EXPECT_EQ(slot.code, 2);
  EXPECT_NE(slot.out.find("slot"), std::string::npos) << slot.out;
}

}  // namespace
