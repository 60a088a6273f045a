// The qalg command end to end: inspect's JSON keys and values, and bad input → exit 2 with a
// message naming the problem and no output file written.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/command_run.hpp"

namespace {

using Outcome = qalg::test_support::CommandRun;
using qalg::test_support::run_qalg;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("qalg_cli_test_" + std::to_string(getpid()) + "_" + name)).string();
}

void write_file(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

TEST(Inspect, PaperQ2Json) {
  Outcome r = run_qalg("inspect complete:2 --json");
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["dim"], 4);
  EXPECT_EQ(j["vertices"], 2);
  EXPECT_EQ(j["arrows"], 2);
  EXPECT_EQ(j["nnz"], 6);
  EXPECT_EQ(j["associative"], true);
  EXPECT_EQ(j["unit"], (nlohmann::json{{"e_1", "1"}, {"e_2", "1"}}));
  EXPECT_EQ(j["radical_dim"], 2);
  EXPECT_EQ(j["radical_squared_zero"], true);
  EXPECT_EQ(j["t"], 2);
  EXPECT_EQ(j["alder_strassen_bound"], 6);
  EXPECT_EQ(j["explicit_length"], 6);
  EXPECT_EQ(j["rank_exact"], 6);
}

TEST(Inspect, CompleteGraphsOverPrimeFields) {
  for (int q : {3, 4, 8}) {
    Outcome r = run_qalg("inspect complete:" + std::to_string(q) + " --field 'GF(3)' --json");
    ASSERT_EQ(r.code, 0) << r.out;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["dim"], q * q);
    EXPECT_EQ(j["t"], q);
    EXPECT_EQ(j["alder_strassen_bound"], 2 * q * q - q);
    EXPECT_EQ(j["rank_exact"], 2 * q * q - q);
  }
}

TEST(Inspect, TensorSquareOfQ2IsNotAGraphAlgebraAndRankIsOpen) {
  Outcome r = run_qalg("inspect complete:2 --power 2 --json");
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["dim"], 16);
  EXPECT_EQ(j["radical_dim"], 12);
  EXPECT_EQ(j["radical_squared_zero"], false);
  EXPECT_EQ(j["t"], 4);
  EXPECT_EQ(j["alder_strassen_bound"], 28);
  EXPECT_EQ(j["explicit_length"], 36);
  EXPECT_TRUE(j["rank_exact"].is_null());
  Outcome same = run_qalg("inspect complete:2 --tensor complete:2 --json");
  ASSERT_EQ(same.code, 0) << same.out;
  EXPECT_EQ(nlohmann::json::parse(same.out)["table_hash"], j["table_hash"]);
}

TEST(Inspect, EdgeListAndDotFilesWithLoopsAndParallelArrows) {
  std::string el = temp_path("q.txt"), dot = temp_path("q.dot");
  write_file(el, "1 2\n1 2\n2 2\n");
  write_file(dot, "digraph { 1 -> 2; 1 -> 2; 2 -> 2; }\n");
  for (const auto& f : {el, dot}) {
    Outcome r = run_qalg("inspect " + f + " --json");
    ASSERT_EQ(r.code, 0) << r.out;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["dim"], 5);
    EXPECT_EQ(j["nnz"], 8);
    EXPECT_EQ(j["t"], 2);
    EXPECT_EQ(j["radical_dim"], 3);
  }
  std::filesystem::remove(el);
  std::filesystem::remove(dot);
}

struct BadCase {
  std::string args;
  std::string message;
};

TEST(BadInput, ExitTwoWithANamedProblem) {
  std::string el = temp_path("bad.txt"), dot = temp_path("bad.dot");
  write_file(el, "1 2\n1 2 3 4\n");
  write_file(dot, "digraph { 1 -> ; }\n");
  const BadCase cases[] = {
      {"inspect " + el, el + ":2:"},
      {"inspect " + dot, "malformed DOT"},
      {"inspect pentagon:5", "unknown quiver family 'pentagon'"},
      {"inspect complete:abc", "q must be a positive integer"},
      {"inspect random:4,2,1", "p must be in [0, 1]"},
      {"inspect complete:100000", "basis limit"},
      {"inspect complete:60000", "GiB"},
      {"inspect complete:2 --field 'GF(4)'", "4 is not a prime"},
      {"inspect complete:2 --field R", "unknown field 'R'"},
      {"inspect /nonexistent/quiver.txt", "cannot open"},
      {"inspect complete:2 --power 0", "--power must be at least 1"},
      {"inspect complete:16 --power 5", "exceeds 2^32"},
      {"inspect complete:2 --tensor nosuch:3", "unknown quiver family 'nosuch'"},
      {"inspect", "give exactly one of GRAPH and --table-file"},
  };
  for (const auto& c : cases) {
    Outcome r = run_qalg(c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.message), std::string::npos) << c.args << "\n" << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << "one-line error expected: " << r.out;
  }
  std::filesystem::remove(el);
  std::filesystem::remove(dot);
}

// A table file's own field names the algebra in every report (it read "over Q" beside "field":
// "GF(3)" until the thirty-eighth session), and a --tensor operand is a table when its text is
// JSON, whatever its file name (a table named .tbl was read as an edge list of vertices '{' ...).
TEST(Inspect, ATableFilesFieldAndATensorOperandReadByContent) {
  const std::string f3 = temp_path("c2f3.json"), tbl = temp_path("c2.tbl");
  ASSERT_EQ(run_qalg("table complete:2 --field 'GF(3)' --out " + f3).code, 0);
  Outcome r = run_qalg("inspect --table-file " + f3 + " --json");
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["field"], "GF(3)");
  EXPECT_NE(j["algebra"].get<std::string>().find("over GF(3)"), std::string::npos) << j["algebra"];
  ASSERT_EQ(run_qalg("table complete:2 --out " + tbl).code, 0);
  Outcome by_file = run_qalg("inspect complete:2 --tensor " + tbl + " --json");
  Outcome by_family = run_qalg("inspect complete:2 --tensor complete:2 --json");
  ASSERT_EQ(by_file.code, 0) << by_file.out;
  ASSERT_EQ(by_family.code, 0) << by_family.out;
  auto a = nlohmann::json::parse(by_file.out), b = nlohmann::json::parse(by_family.out);
  EXPECT_EQ(a["dim"], 16);
  for (const char* key : {"dim", "nnz", "t", "radical_dim", "alder_strassen_bound"}) EXPECT_EQ(a[key], b[key]) << key;
  std::filesystem::remove(f3);
  std::filesystem::remove(tbl);
}

// A file name that is not UTF-8 reaches the JSON outputs as U+FFFD (nlohmann refuses to write invalid
// UTF-8: `qalg export` of such a table ended in an internal error, exit 3, until the thirty-eighth session).
TEST(Inspect, AFileNameThatIsNotUtf8IsDescribedWithAReplacementCharacter) {
  const std::string good = temp_path("c2.json"), bad = temp_path("tab\xff" "le.json");
  ASSERT_EQ(run_qalg("table complete:2 --out " + good).code, 0);
  std::filesystem::copy_file(good, bad, std::filesystem::copy_options::overwrite_existing);
  Outcome r = run_qalg("inspect --table-file '" + bad + "' --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string algebra = nlohmann::json::parse(r.out)["algebra"].get<std::string>();
  EXPECT_NE(algebra.find("tab\xEF\xBF\xBD" "le.json"), std::string::npos) << algebra;
  std::filesystem::remove(good);
  std::filesystem::remove(bad);
}
