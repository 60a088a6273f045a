// `qalg table` and `qalg lower` end to end (whole-project builds only: needs the qalg binary).
// The plan the command writes must equal the gpu module's own lowering of the table file the
// command wrote, hash included; bad widths and non-slot-compatible quivers exit 2, writing nothing.
#ifdef QALG_BINARY
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "qalg/gpu/lowering.hpp"
#include "qalg/gpu/plan_costs.hpp"
#include "support/command_run.hpp"

namespace qalg::gpu {
namespace {

using test_support::CommandRun;
using test_support::run_qalg;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("qalg_gpucore_" + std::to_string(getpid()) + "_" + name)).string();
}

bool same_plan(const KernelPlan& a, const KernelPlan& b) {
  if (a.q != b.q || a.input_widths != b.input_widths || a.output_widths != b.output_widths ||
      a.table_hash != b.table_hash || a.terms.size() != b.terms.size())
    return false;
  for (size_t c = 0; c < a.terms.size(); ++c) {
    if (a.terms[c].size() != b.terms[c].size()) return false;
    for (size_t x = 0; x < a.terms[c].size(); ++x)
      if (a.terms[c][x].input_group != b.terms[c][x].input_group ||
          a.terms[c][x].num != b.terms[c][x].num || a.terms[c][x].den != b.terms[c][x].den)
        return false;
  }
  return true;
}

TEST(LowerCommand, PlanEqualsLoweringOfTheWrittenTable) {
  for (std::string algebra : {"complete:2", "complete:3 --power 2", "path:4", "complete:2 --tensor cycle:3"}) {
    std::string table = temp_path("t.json"), plan = temp_path("p.json");
    CommandRun t = run_qalg("table " + algebra + " --out " + table);
    ASSERT_EQ(t.code, 0) << t.out;
    CommandRun l = run_qalg("lower " + algebra + " --widths 3 --output-widths 5 --out " + plan);
    ASSERT_EQ(l.code, 0) << l.out;
    TableData data = read_table_data(table);
    ASSERT_FALSE(data.hash.empty()) << "whole-project builds have OpenSSL";
    KernelPlan mine = lower_table(data, std::vector<uint32_t>(*data.slot_grid, 3),
                                  std::vector<uint32_t>(*data.slot_grid, 5));
    EXPECT_TRUE(same_plan(read_plan_file(plan), mine)) << algebra;
    EXPECT_NE(t.out.find(data.hash), std::string::npos) << "the hash `qalg table` prints: " << t.out;
    std::filesystem::remove(table);
    std::filesystem::remove(plan);
  }
}

TEST(LowerCommand, SummaryReportsTheSpecDensity) {
  std::string plan = temp_path("q2.json");
  CommandRun l = run_qalg("lower complete:2 --widths 64,64 --out " + plan);
  ASSERT_EQ(l.code, 0) << l.out;
  EXPECT_NE(l.out.find("ρ = Σ_i C_i / (q·K·N) = 0.750000"), std::string::npos) << l.out;
  CommandRun j = run_qalg("lower complete:2 --power 2 --widths 16x4 --json --out " + plan);
  ASSERT_EQ(j.code, 0) << j.out;
  nlohmann::json s = nlohmann::json::parse(j.out);
  EXPECT_EQ(s["q"], 4);
  EXPECT_DOUBLE_EQ(s["density"].get<double>(), 9.0 / 16);  // Q_2^{⊗2}
  EXPECT_DOUBLE_EQ(balanced_density(read_plan_file(plan)), 9.0 / 16);
  std::filesystem::remove(plan);
}

TEST(LowerCommand, BadInputExitsTwoAndWritesNothing) {
  std::string plan = temp_path("never.json");
  std::string loop = temp_path("loop.txt"), parallel = temp_path("parallel.txt");
  std::ofstream(loop) << "u v\nv v\n";
  std::ofstream(parallel) << "u v\nu v\n";
  const std::pair<std::string, std::string> cases[] = {
      {"complete:2 --widths 64,64,64", "--widths '64,64,64'"},
      {"complete:2 --widths 0,64", "--widths '0,64': width 0"},
      {"complete:2 --widths abc", "--widths 'abc'"},
      {"complete:2 --widths 8 --output-widths 8,8,8", "--output-widths '8,8,8'"},
      {loop + " --widths 8", "slot (1,1) holds two basis elements"},
      {parallel + " --widths 8", "slot (0,1) holds two basis elements"},
      {"complete:2 --field 'GF(5)' --widths 8", "table is over GF(5)"},
  };
  for (const auto& [args, expected] : cases) {
    CommandRun r = run_qalg("lower " + args + " --out " + plan);
    EXPECT_EQ(r.code, 2) << args << ": " << r.out;
    EXPECT_NE(r.out.find(expected), std::string::npos) << args << ": " << r.out;
    EXPECT_FALSE(std::filesystem::exists(plan)) << args;
  }
  EXPECT_EQ(run_qalg("lower complete:2 --widths 8").code, 2);  // --out is required
  std::filesystem::remove(loop);
  std::filesystem::remove(parallel);
}

}  // namespace
}  // namespace qalg::gpu
#endif
