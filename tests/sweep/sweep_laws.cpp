// The sweep's laws and its rank-splitting, merging and checkpoints, in-process (label mpi).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/quiver_input.hpp"
#include "qalg/sweep/quiver_laws.hpp"
#include "qalg/sweep/sweep.hpp"
#include "qalg/verify/generators.hpp"

namespace qalg::sweep {
namespace {

namespace fs = std::filesystem;

SweepConfig config(unsigned n, bool loops, std::vector<std::string> laws = {}) {
  SweepConfig c;
  c.range = {n, std::nullopt, loops};
  c.laws = select_laws(laws);
  c.kept_counterexamples = 3;
  return c;
}

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("qalg-sweep-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

TEST(SweepLaws, NamesAreCheckedAndDefaultIsAll) {
  EXPECT_EQ(select_laws({}).size(), quiver_laws().size());
  EXPECT_THROW(select_laws({"associative", "no-such-law"}), InputError);
}

// Every law holds on every quiver of SPEC §1–4's kind; the lowering applies exactly to the
// quivers without loops (nauty's digraphs have no parallel arrows).
TEST(SweepLaws, ThreeVerticesWithLoopsAllHold) {
  const SweepConfig c = config(3, true);
  const SweepTally t = sweep_rank(c, 0, 1);
  EXPECT_TRUE(t.complete);
  EXPECT_EQ(t.quivers, 104u);  // OEIS A000595(3)
  for (size_t l = 0; l < c.laws.size(); ++l) {
    EXPECT_EQ(t.failed[l], 0u) << c.laws[l];
    EXPECT_EQ(t.passed[l] + t.skipped[l], t.quivers) << c.laws[l];
    EXPECT_EQ(t.skipped[l], c.laws[l] == "lowering" ? 104u - 16u : 0u) << c.laws[l];
  }
  EXPECT_TRUE(t.counterexamples.empty());
}

// The laws on random quivers beyond nauty's range (parallel arrows included).
RC_GTEST_PROP(SweepLaws, HoldOnRandomQuivers, ()) {
  const Quiver q = *verify::gen_quiver({.max_vertices = 4, .max_arrows = 8, .loops = true, .parallel = true});
  const auto names = select_laws({});
  const auto out = check_quiver_laws(q, names);
  for (size_t l = 0; l < out.size(); ++l) {
    RC_ASSERT(!out[l].failure);
    RC_ASSERT(out[l].skipped == (names[l] == "lowering" && (q.has_loops() || q.has_parallel_arrows())));
  }
}

// Splitting by index mod N and merging gives the one-rank result, for every N.
TEST(SweepRanks, MergeOfRanksEqualsOneRank) {
  const SweepConfig c = config(4, false, {"associative", "t", "lowering"});
  const auto whole = result_json(c, merge_tallies(c, {sweep_rank(c, 0, 1)}));
  EXPECT_EQ(whole["quivers"], 218);  // OEIS A000273(4)
  for (int ranks : {2, 3, 5}) {
    std::vector<SweepTally> parts;
    for (int r = 0; r < ranks; ++r) parts.push_back(sweep_rank(c, r, ranks));
    EXPECT_EQ(result_json(c, merge_tallies(c, parts)), whole) << ranks << " ranks";
  }
}

// Counterexamples kept per law are the lowest indices overall, whatever the split.
TEST(SweepRanks, MergeKeepsLowestIndicesPerLaw) {
  SweepConfig c = config(2, false, {"associative"});
  c.kept_counterexamples = 2;
  auto part = [&](std::vector<uint64_t> idx) {
    SweepTally t;
    t.passed = {0}, t.skipped = {0}, t.failed = {idx.size()};
    t.complete = true;
    for (auto i : idx) t.counterexamples.push_back({i, "associative", "x", ""});
    return t;
  };
  const SweepTally m = merge_tallies(c, {part({1, 5}), part({0, 2})});
  ASSERT_EQ(m.counterexamples.size(), 2u);
  EXPECT_EQ(m.counterexamples[0].index, 0u);
  EXPECT_EQ(m.counterexamples[1].index, 1u);
  EXPECT_EQ(m.failed[0], 4u);
}

// A run stopped after K quivers per rank resumes from its checkpoints to the uninterrupted result.
TEST(SweepCheckpoint, StopAndResumeEqualsUninterrupted) {
  const fs::path dir = fresh_dir("resume");
  SweepConfig c = config(4, false, {"unit", "radical"});
  const auto whole = result_json(c, merge_tallies(c, {sweep_rank(c, 0, 1)}));
  c.checkpoint = (dir / "ck").string();
  for (int ranks : {1, 2}) {
    std::vector<SweepTally> parts;
    c.stop_after = 30;
    for (int r = 0; r < ranks; ++r) {
      const SweepTally t = sweep_rank(c, r, ranks);
      EXPECT_FALSE(t.complete);
      EXPECT_EQ(t.quivers, 30u);
      EXPECT_TRUE(fs::exists(checkpoint_path(c.checkpoint, r, ranks)));
    }
    c.stop_after = 25;  // a second partial run continues, it does not restart
    for (int r = 0; r < ranks; ++r) EXPECT_EQ(sweep_rank(c, r, ranks).quivers, 55u);
    c.stop_after.reset();
    for (int r = 0; r < ranks; ++r) parts.push_back(sweep_rank(c, r, ranks));
    EXPECT_EQ(result_json(c, merge_tallies(c, parts)), whole) << ranks << " ranks";
  }
  fs::remove_all(dir);
}

TEST(SweepCheckpoint, RefusesAnotherSweepsFileAndGarbage) {
  const fs::path dir = fresh_dir("refuse");
  SweepConfig c = config(3, false, {"t"});
  c.checkpoint = (dir / "ck").string();
  sweep_rank(c, 0, 1);
  SweepConfig other = c;
  other.range.vertices = 2;
  EXPECT_THROW(sweep_rank(other, 0, 1), InputError);
  std::ofstream(checkpoint_path(c.checkpoint, 0, 2)) << "{ not json";
  EXPECT_THROW(sweep_rank(c, 0, 2), InputError);
  fs::remove_all(dir);
}

// A checkpoint is a file a user can edit or damage. One whose progress is not this rank's walk (a
// next_index past the stream's end, a negative count, counts that do not add up, more quivers than
// the stream has below its index) is refused naming the file; one that claims "complete" is walked
// again and the quivers it skipped are checked. Until the thirty-eighth session a next_index of
// 10^12 came back as a complete sweep of the 5 quivers it had checked.
TEST(SweepCheckpoint, RefusesProgressThatIsNotThisRanksWalk) {
  const fs::path dir = fresh_dir("tamper");
  SweepConfig c = config(4, false, {"unit", "t"});
  const auto whole = result_json(c, merge_tallies(c, {sweep_rank(c, 0, 1)}));
  c.checkpoint = (dir / "ck").string();
  for (int ranks : {1, 2}) {
    c.stop_after = 7;
    std::vector<nlohmann::json> saved;
    for (int r = 0; r < ranks; ++r) {
      sweep_rank(c, r, ranks);
      std::ifstream in(checkpoint_path(c.checkpoint, r, ranks));
      saved.push_back(nlohmann::json::parse(in));
    }
    c.stop_after.reset();
    using Edit = std::function<void(nlohmann::json&)>;
    const std::vector<std::pair<std::string, Edit>> refused = {
        {"next_index past the end", [](nlohmann::json& t) { t["next_index"] = uint64_t(1) << 40; }},
        {"negative next_index", [](nlohmann::json& t) { t["next_index"] = -5; }},
        {"negative count", [](nlohmann::json& t) { t["passed"][0] = -1; }},
        {"counts not adding up", [](nlohmann::json& t) { t["quivers"] = t["quivers"].get<uint64_t>() + 1; }},
        {"one quiver more under every law", [](nlohmann::json& t) {
           t["quivers"] = t["quivers"].get<uint64_t>() + 1;
           for (auto& p : t["passed"]) p = p.get<uint64_t>() + 1;
         }},
        {"fewer quivers", [](nlohmann::json& t) {
           t["quivers"] = t["quivers"].get<uint64_t>() - 1;
           for (auto& p : t["passed"]) p = p.get<uint64_t>() - 1;
         }},
        {"a counterexample without a failure", [](nlohmann::json& t) {
           t["counterexamples"].push_back({{"index", 0}, {"law", "t"}, {"reason", "made up"}, {"edges", "0 1"}});
         }},
    };
    for (const auto& [what, edit] : refused)
      for (int r = 0; r < ranks; ++r) {
        nlohmann::json j = saved[size_t(r)];
        edit(j["tally"]);
        std::ofstream(checkpoint_path(c.checkpoint, r, ranks)) << j.dump();
        try {
          sweep_rank(c, r, ranks);
          ADD_FAILURE() << what << " accepted (rank " << r << " of " << ranks << ")";
        } catch (const InputError& e) {
          EXPECT_NE(std::string(e.what()).find(checkpoint_path(c.checkpoint, r, ranks)), std::string::npos) << e.what();
        }
      }
    // "complete": true on a stopped run: the rest is walked and checked, the result is the whole one.
    std::vector<SweepTally> parts;
    for (int r = 0; r < ranks; ++r) {
      nlohmann::json j = saved[size_t(r)];
      j["tally"]["complete"] = true;
      std::ofstream(checkpoint_path(c.checkpoint, r, ranks)) << j.dump();
      parts.push_back(sweep_rank(c, r, ranks));
    }
    EXPECT_EQ(result_json(c, merge_tallies(c, parts)), whole) << ranks << " ranks";
    for (int r = 0; r < ranks; ++r) fs::remove(checkpoint_path(c.checkpoint, r, ranks));
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace qalg::sweep

namespace qalg::sweep {
namespace {

// Law counts of a result document, without the indices (chunked indices are (chunk, position)).
nlohmann::json counts(const SweepConfig& c, const std::vector<SweepTally>& parts) {
  nlohmann::json j = result_json(c, merge_tallies(c, parts));
  j.erase("counterexamples");
  return j;
}

// nauty's res/mod split: the chunks together are the whole stream, for any number of ranks, and
// a stopped chunked run resumes to the same counts (6 vertices, at most 7 arrows: 4580 quivers in
// chunk 0 and 93 in chunk 1 of 5 — geng splits late, so smaller ranges stay in chunk 0).
TEST(SweepChunks, ChunkedSweepCountsEqualTheSingleStream) {
  SweepConfig c = config(6, false, {"t"});
  c.range.max_arrows = 7;
  const auto whole = counts(c, {sweep_rank(c, 0, 1)});
  c.chunks = 5;
  for (int ranks : {1, 2, 3}) {
    std::vector<SweepTally> parts;
    for (int r = 0; r < ranks; ++r) parts.push_back(sweep_rank(c, r, ranks));
    EXPECT_EQ(counts(c, parts), whole) << ranks << " ranks";
  }
  const fs::path dir = fresh_dir("chunks");
  c.checkpoint = (dir / "ck").string();
  c.stop_after = 3;
  std::vector<SweepTally> parts;
  for (int r = 0; r < 2; ++r) EXPECT_FALSE(sweep_rank(c, r, 2).complete);
  c.stop_after.reset();
  for (int r = 0; r < 2; ++r) parts.push_back(sweep_rank(c, r, 2));
  EXPECT_EQ(counts(c, parts), whole);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace qalg::sweep
