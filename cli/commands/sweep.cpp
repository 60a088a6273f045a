// qalg sweep: every quiver on n vertices up to isomorphism (nauty), each checked against the
// sweep's laws (sweep/quiver_laws.hpp); `mpirun -np N qalg sweep ...` splits the work by stream
// index mod N and merges on rank 0. Exit 0 all hold, 1 a law failed, 2 bad input.
#include <chrono>
#include <cmath>
#include <optional>
#include <filesystem>
#include <iostream>

#include <fmt/core.h>

#include "command_registry.hpp"
#include "count_option.hpp"
#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/table_io.hpp"
#include "qalg/sweep/communicator.hpp"
#include "qalg/sweep/quiver_laws.hpp"
#include "qalg/sweep/sweep.hpp"

namespace qalg::cli {
namespace {

struct SweepOptions {
  std::optional<unsigned> vertices;
  std::optional<unsigned> max_arrows;  // (unsigned: CLI11 refuses a negative count)
  bool loops = false, list = false;
  std::vector<std::string> laws;
  std::string checkpoint, json_file, counterexample_dir;
  double checkpoint_seconds = 5;
  std::optional<uint64_t> stop_after;
  size_t kept = 10;
  unsigned chunks = 0;
};

sweep::SweepConfig make_config(const SweepOptions& o) {
  if (!o.vertices) throw InputError("--vertices N is required (1-10)");
  if (*o.vertices < 1 || *o.vertices > 10) throw InputError(fmt::format("--vertices {}: must be between 1 and 10", *o.vertices));
  if (!(o.checkpoint_seconds > 0) || !std::isfinite(o.checkpoint_seconds))  // (NaN compares false)
    throw InputError("--checkpoint-seconds must be a positive number of seconds");
  if (!o.counterexample_dir.empty() && !std::filesystem::is_directory(o.counterexample_dir))
    throw InputError("--counterexample-dir " + o.counterexample_dir + ": not a directory");
  sweep::SweepConfig c;
  c.range.vertices = *o.vertices;
  c.range.loops = o.loops;
  c.range.max_arrows = o.max_arrows;
  c.laws = sweep::select_laws(o.laws);
  c.checkpoint = o.checkpoint;
  c.checkpoint_seconds = o.checkpoint_seconds;
  c.stop_after = o.stop_after;
  c.kept_counterexamples = o.kept;
  c.chunks = o.chunks;
  c.progress = &std::cerr;
  sweep::nauty_pipeline(c.range);  // nauty installed? (InputError before any rank starts work)
  return c;
}

// Rank 0: the merged result on stdout, the JSON file and the counterexample files.
int report(const SweepOptions& o, const sweep::SweepConfig& c, const sweep::SweepTally& m, int ranks, double seconds) {
  fmt::print("qalg sweep: {} vertices{}{}, {} ranks: {} quivers checked{}; this run {} in {:.2f} s ({:.0f} quivers/s)\n",
             c.range.vertices, c.range.loops ? " with loops" : ", no loops",
             c.range.max_arrows ? fmt::format(", at most {} arrows", *c.range.max_arrows) : "", ranks, m.quivers,
             m.complete ? "" : " — STOPPED EARLY, run again to resume", m.checked_now, seconds,
             seconds > 0 ? double(m.checked_now) / seconds : 0.0);
  uint64_t failed = 0;
  for (size_t l = 0; l < c.laws.size(); ++l) {
    fmt::print("  {:<14} passed {:>9}  failed {:>6}  not applicable {:>9}\n", c.laws[l], m.passed[l], m.failed[l], m.skipped[l]);
    failed += m.failed[l];
  }
  for (const auto& cx : m.counterexamples) {
    fmt::print("  FAILED {} on quiver #{}: {}\n", cx.law, cx.index, cx.reason);
    if (!o.counterexample_dir.empty()) {
      const auto path = std::filesystem::path(o.counterexample_dir) /
                        fmt::format("sweep-n{}{}-{}-{}.edges", c.range.vertices, c.range.loops ? "l" : "", cx.law, cx.index);
      write_text_atomically(cx.edges, path.string());
      fmt::print("    written to {} (qalg inspect {})\n", path.string(), path.string());
    }
  }
  if (!o.json_file.empty()) {
    nlohmann::json j = sweep::result_json(c, m);
    j["run"] = {{"ranks", ranks}, {"seconds", seconds}, {"checked", m.checked_now}};
    write_text_atomically(j.dump(2) + "\n", o.json_file);
  }
  return failed > 0 ? 1 : 0;
}

int run_sweep(const SweepOptions& o) {
  if (o.list) {
    for (const auto& l : sweep::quiver_laws()) fmt::print("{:<14} {:<9} {}\n", l.name, l.section, l.statement);
    return 0;
  }
  const sweep::SweepConfig c = make_config(o);
  const auto world = sweep::world_communicator();
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> parts;
  try {
    parts = world->gather_to_root(sweep::tally_to_json(sweep::sweep_rank(c, world->rank(), world->size())).dump());
  } catch (const InputError& e) {
    if (world->size() == 1) throw;
    std::cerr << fmt::format("qalg: error (rank {}): {}\n", world->rank(), e.what());
    world->abort(2);
  }
  if (world->rank() != 0) return 0;
  std::vector<sweep::SweepTally> tallies;
  for (const auto& p : parts) tallies.push_back(sweep::tally_from_json(nlohmann::json::parse(p), c.laws.size()));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report(o, c, sweep::merge_tallies(c, tallies), world->size(), seconds);
}

const RegisterCommand kRegisterSweep{Command{
    "sweep", "check every quiver on n vertices up to isomorphism (nauty) against SPEC §1–4's laws; MPI-parallel under mpirun",
    [](CLI::App& sub) -> std::function<int()> {
      auto o = std::make_shared<SweepOptions>();
      sub.add_option("--vertices,-n", o->vertices, "number of vertices (1-10)");
      sub.add_option("--max-arrows", o->max_arrows, "only quivers with at most this many arrows (loops included)");
      sub.add_flag("--loops", o->loops, "also quivers with loops (at most one per vertex)");
      sub.add_option("--property", o->laws, "laws to check, comma-separated (default all; --list shows them)")->delimiter(',');
      sub.add_option("--checkpoint", o->checkpoint, "per-rank checkpoint files FILE.rank<r>of<N>; a rerun resumes from them");
      sub.add_option("--checkpoint-seconds", o->checkpoint_seconds, "seconds between checkpoint writes (default 5)");
      sub.add_option("--stop-after", o->stop_after, "each rank stops after checking this many quivers (then resume)")->check(kCount);
      sub.add_option("--chunks", o->chunks, "split nauty's generation into this many res/mod chunks, dealt to ranks (for n >= 7)");
      sub.add_option("--keep", o->kept, "counterexamples kept per law, lowest indices first (default 10)")->check(kCount);
      sub.add_option("--json", o->json_file, "write the merged result as JSON to this file");
      sub.add_option("--counterexample-dir", o->counterexample_dir, "write failing quivers here as edge lists");
      sub.add_flag("--list", o->list, "list the laws and exit");
      return [o] { return run_sweep(*o); };
    }}};

}  // namespace
}  // namespace qalg::cli
