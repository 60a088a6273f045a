// `qalg search` end to end (issue 11): the written algorithm file is accepted by
// `qalg rank --algorithm`; bad arguments exit 2 with a one-line message naming the argument.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include "support/command_run.hpp"

namespace {

namespace fs = std::filesystem;

using ::qalg::test_support::CommandRun;
using ::qalg::test_support::run_qalg;

class SearchCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("qalg_search_cli_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(SearchCli, LoopSquaredOverF3ReachesSevenAndRankAcceptsTheFile) {
  CommandRun r = run_qalg("search cycle:1 --power 2 --field F3 --time 30 --threads 2 --seed 7 --walk-flips "
                          "20000 --plateau 1000 --batch 16 --quiet --json --out " + dir_.string(), false);
  ASSERT_EQ(r.code, 0) << r.out;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["best_length"], 7);
  EXPECT_EQ(doc["lower_bound"], 7);
  ASSERT_EQ(doc["algorithm"]["verified"], true) << r.out;
  EXPECT_EQ(doc["algorithm"]["field"], "Q");
  const std::string file = doc["algorithm"]["file"];
  CommandRun check = run_qalg("rank cycle:1 --power 2 --algorithm " + file);
  EXPECT_EQ(check.code, 0) << check.out;
  EXPECT_NE(check.out.find("R = 7"), std::string::npos) << check.out;
}

TEST_F(SearchCli, BadArgumentsExitTwoNamingTheArgument) {
  const std::string out = " --out " + dir_.string();
  CommandRun field = run_qalg("search complete:2 --field 'GF(5)' --time 1" + out);
  EXPECT_EQ(field.code, 2) << field.out;
  EXPECT_NE(field.out.find("--field GF(5)"), std::string::npos) << field.out;
  CommandRun threads = run_qalg("search complete:2 --threads 0 --time 1" + out);
  EXPECT_EQ(threads.code, 2) << threads.out;
  EXPECT_NE(threads.out.find("--threads"), std::string::npos) << threads.out;
  CommandRun time = run_qalg("search complete:2 --time 0" + out);
  EXPECT_EQ(time.code, 2) << time.out;
  CommandRun big = run_qalg("search complete:9 --time 1" + out);
  EXPECT_EQ(big.code, 2) << big.out;
  EXPECT_NE(big.out.find("dimension 81"), std::string::npos) << big.out;
  EXPECT_TRUE(fs::is_empty(dir_));  // nothing written on bad input
}

}  // namespace
