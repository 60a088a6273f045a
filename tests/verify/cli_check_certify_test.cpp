// `qalg check` and `qalg certify` end to end: exit codes 0 / 1 / 2, counterexample files that
// `qalg inspect` reads, same seed ⇒ same output, fault-injection counts, certificate tampering.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/command_run.hpp"

namespace {

using qalg::test_support::CommandRun;
using qalg::test_support::run_qalg;

std::filesystem::path temp_dir() {
  auto d = std::filesystem::temp_directory_path() / ("qalg_verify_cli_" + std::to_string(getpid()));
  std::filesystem::create_directories(d);
  return d;
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The JSON output without the timings, which differ between runs.
nlohmann::json without_timings(nlohmann::json j) {
  for (auto& p : j["properties"]) p.erase("seconds");
  return j;
}

}  // namespace

TEST(CheckCli, ListsThePropertiesAndRunsOne) {
  CommandRun list = run_qalg("check --list");
  ASSERT_EQ(list.code, 0) << list.out;
  for (const char* name : {"graph-associative", "rank-formula", "tensor-t", "plan-executor", "fault-arrow-product"})
    EXPECT_NE(list.out.find(name), std::string::npos) << name;
  CommandRun r = run_qalg("check graph-associative graph-unit --cases 25 --seed 3 --max-size 4 --json", false);
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["seed"], 3);
  EXPECT_EQ(j["failed"], 0);
  ASSERT_EQ(j["properties"].size(), 2u);
  for (const auto& p : j["properties"]) {
    EXPECT_EQ(p["status"], "passed");
    EXPECT_EQ(p["cases"], 25);
  }
}

TEST(CheckCli, BadArgumentsExitTwo) {
  CommandRun unknown = run_qalg("check no-such-law");
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.out.find("unknown property 'no-such-law'"), std::string::npos) << unknown.out;
  EXPECT_EQ(run_qalg("check graph-unit --cases 0").code, 2);
  EXPECT_EQ(run_qalg("check graph-unit --seed banana").code, 2);
  EXPECT_EQ(run_qalg("check --mutate graph-unit").code, 2);
  EXPECT_EQ(run_qalg("check graph-unit --counterexample-dir /no/such/dir").code, 2);
}

TEST(CheckCli, FailureWritesACounterexampleThatInspectReads) {
  const auto dir = temp_dir();
  const std::string args = "check demo-false-t-is-one --seed 5 --cases 50 --counterexample-dir " + dir.string();
  CommandRun r = run_qalg(args);
  ASSERT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("replay:     qalg check demo-false-t-is-one --seed 5 --cases 50"), std::string::npos) << r.out;
  const auto file = dir / "qalg-counterexample-demo-false-t-is-one.edges";
  ASSERT_TRUE(std::filesystem::exists(file)) << r.out;
  CommandRun inspect = run_qalg("inspect " + file.string() + " --field Q --json", false);
  ASSERT_EQ(inspect.code, 0) << inspect.out;
  EXPECT_NE(nlohmann::json::parse(inspect.out)["t"], 1);  // it really violates t = 1
  // Same seed, same run: identical output apart from timings.
  CommandRun a = run_qalg(args + " --json", false), b = run_qalg(args + " --json", false);
  EXPECT_EQ(without_timings(nlohmann::json::parse(a.out)), without_timings(nlohmann::json::parse(b.out)));
  std::filesystem::remove_all(dir);
}

TEST(CheckCli, MutationCampaignCatchesEveryFault) {
  CommandRun r = run_qalg("check --mutate --cases 30 --seed 1 --max-size 4 --json", false);
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["properties"].size(), 3u);
  for (const auto& p : j["properties"]) {
    const std::string kind = p["name"].get<std::string>().substr(6);
    EXPECT_EQ(p["tallies"][kind + "/injected"], 30) << kind;
    EXPECT_EQ(p["tallies"][kind + "/caught"], 30) << kind;
  }
  CommandRun human = run_qalg("check --mutate --cases 10 --seed 1 --max-size 3");
  EXPECT_NE(human.out.find("overall: 30 of 30 injected faults caught"), std::string::npos) << human.out;
}

TEST(CertifyCli, WriteVerifyAndRejectTampering) {
  const auto dir = temp_dir();
  const std::string cert = (dir / "q2.json").string();
  CommandRun w = run_qalg("certify complete:2 --out " + cert);
  ASSERT_EQ(w.code, 0) << w.out;
  CommandRun v = run_qalg("certify --verify " + cert);
  EXPECT_EQ(v.code, 0) << v.out;
  // A changed claim: t.
  auto j = nlohmann::json::parse(read_file(cert));
  j["t"]["value"] = 1;
  const std::string forged = (dir / "forged.json").string();
  std::ofstream(forged) << j.dump(2);
  CommandRun f = run_qalg("certify --verify " + forged);
  EXPECT_EQ(f.code, 1) << f.out;
  EXPECT_NE(f.out.find("claim 't'"), std::string::npos) << f.out;
  // Malformed certificates and missing --out are bad input; nothing is written.
  std::ofstream(dir / "broken.json") << "{\"format\": \"qalg-certificate\"";
  EXPECT_EQ(run_qalg("certify --verify " + (dir / "broken.json").string()).code, 2);
  const std::string none = (dir / "none.json").string();
  EXPECT_EQ(run_qalg("certify complete:2").code, 2);
  EXPECT_EQ(run_qalg("certify no-such-family:3 --out " + none).code, 2);
  EXPECT_FALSE(std::filesystem::exists(none));
  std::filesystem::remove_all(dir);
}

TEST(CertifyCli, CoqInstanceFile) {
  const auto dir = temp_dir();
  const std::string cert = (dir / "c.json").string(), coq = (dir / "Q2Instance.v").string();
  CommandRun r = run_qalg("certify complete:2 --out " + cert + " --coq " + coq);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(read_file(coq).find("Require"), std::string::npos);
  // A GF(p) table cannot go to Coq: bad input, and neither file is written.
  const std::string cert2 = (dir / "c2.json").string(), coq2 = (dir / "Gf.v").string();
  EXPECT_EQ(run_qalg("certify complete:2 --field 'GF(3)' --out " + cert2 + " --coq " + coq2).code, 2);
  EXPECT_FALSE(std::filesystem::exists(cert2));
  EXPECT_FALSE(std::filesystem::exists(coq2));
  std::filesystem::remove_all(dir);
}
