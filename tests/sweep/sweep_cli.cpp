// `qalg sweep` end to end: one process, mpirun on 1 and 2 ranks (oversubscribed), identical
// results; a stopped run resumed from its checkpoints; bad arguments exit 2 (label mpi).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "cli_run.hpp"

namespace {

namespace fs = std::filesystem;

using qalg::test::CommandRun;
using qalg::test::mpirun;
using qalg::test::run;

nlohmann::json result(const fs::path& file) {
  std::ifstream in(file);
  nlohmann::json j = nlohmann::json::parse(in);
  j.erase("run");  // ranks and seconds differ by design
  return j;
}

class SweepCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("qalg-sweep-cli-{}-{}", ::getpid(),
                                                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void need_mpi() {
    if (std::string(QALG_MPIEXEC).empty()) GTEST_SKIP() << "qalg built without MPI";
  }
  fs::path dir_;
};

TEST_F(SweepCli, OneProcessCountsDigraphs) {
  // OEIS A000273: 1, 3, 16, 218 digraphs on 1-4 vertices.
  const std::vector<int> counts = {1, 3, 16, 218};
  for (int n = 1; n <= 4; ++n) {
    const CommandRun r = run(fmt::format("{} sweep --vertices {} --json r.json", QALG_BINARY, n), dir_);
    ASSERT_EQ(r.code, 0) << r.output;
    const auto j = result(dir_ / "r.json");
    EXPECT_EQ(j["quivers"], counts[size_t(n - 1)]);
    EXPECT_EQ(j["complete"], true);
    for (const auto& law : j["laws"]) EXPECT_EQ(law["failed"], 0) << law;
  }
}

TEST_F(SweepCli, OneAndTwoRanksGiveIdenticalResults) {
  need_mpi();
  const std::string args = "sweep --vertices 4 --loops --max-arrows 5 --json";
  const CommandRun one = run(fmt::format("{} {} plain.json", QALG_BINARY, args), dir_);
  ASSERT_EQ(one.code, 0) << one.output;
  for (int ranks : {1, 2}) {
    const CommandRun r = run(fmt::format("{} {} mpi{}.json", mpirun(ranks), args, ranks), dir_);
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_NE(r.output.find(fmt::format("{} ranks", ranks)), std::string::npos) << r.output;
    EXPECT_EQ(result(dir_ / fmt::format("mpi{}.json", ranks)), result(dir_ / "plain.json")) << ranks << " ranks";
  }
  // The loopless 4-vertex sweep on 2 ranks: A000273(4) = 218.
  const CommandRun r = run(fmt::format("{} sweep --vertices 4 --json two.json", mpirun(2)), dir_);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(result(dir_ / "two.json")["quivers"], 218);
}

TEST_F(SweepCli, StoppedRunResumesFromCheckpoints) {
  need_mpi();
  const std::string args = "sweep --vertices 4 --property associative,rank-formula --checkpoint ck --json";
  ASSERT_EQ(run(fmt::format("{} {} full.json", QALG_BINARY, args), dir_).code, 0);
  const CommandRun stopped = run(fmt::format("{} {} part.json --stop-after 40", mpirun(2), args), dir_);
  ASSERT_EQ(stopped.code, 0) << stopped.output;
  EXPECT_EQ(result(dir_ / "part.json")["complete"], false);
  EXPECT_EQ(result(dir_ / "part.json")["quivers"], 80);
  EXPECT_TRUE(fs::exists(dir_ / "ck.rank0of2") && fs::exists(dir_ / "ck.rank1of2"));
  const CommandRun resumed = run(fmt::format("{} {} resumed.json", mpirun(2), args), dir_);
  ASSERT_EQ(resumed.code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("resuming at index"), std::string::npos) << resumed.output;
  EXPECT_EQ(result(dir_ / "resumed.json"), result(dir_ / "full.json"));
}

TEST_F(SweepCli, BadArgumentsExitTwoWithOneLine) {
  for (const std::string bad : {"--vertices 11", "", "--vertices 3 --property no-such-law",
                                "--vertices 3 --counterexample-dir /no/such/dir", "--vertices 3 --checkpoint-seconds 0"}) {
    const CommandRun r = run(fmt::format("{} sweep {}", QALG_BINARY, bad), dir_);
    EXPECT_EQ(r.code, 2) << bad << "\n" << r.output;
    EXPECT_NE(r.output.find("error"), std::string::npos) << bad << "\n" << r.output;
  }
  std::ofstream(dir_ / "ck.rank0of1") << "garbage";
  const CommandRun r = run(fmt::format("{} sweep --vertices 2 --checkpoint ck", QALG_BINARY), dir_);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("ck.rank0of1"), std::string::npos) << r.output;
}

}  // namespace
