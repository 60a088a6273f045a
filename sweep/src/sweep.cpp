// sweep_rank: one rank's share of the stream, with checkpoints (sweep.hpp).
#include "qalg/sweep/sweep.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

#include <fmt/core.h>

#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/quiver_input.hpp"
#include "qalg/algebra/table_io.hpp"
#include "qalg/sweep/quiver_laws.hpp"

namespace qalg::sweep {
namespace {

using Clock = std::chrono::steady_clock;

// What a checkpoint belongs to: a file from another sweep (or another rank count) is refused.
nlohmann::json fingerprint(const SweepConfig& c, int rank, int ranks) {
  return {{"vertices", c.range.vertices}, {"loops", c.range.loops},
          {"max_arrows", c.range.max_arrows ? nlohmann::json(*c.range.max_arrows) : nlohmann::json(nullptr)},
          {"laws", c.laws}, {"chunks", c.chunks}, {"rank", rank}, {"ranks", ranks}, {"kept_counterexamples", c.kept_counterexamples}};
}

std::optional<SweepTally> load_checkpoint(const SweepConfig& c, const std::string& path, int rank, int ranks) {
  if (!std::filesystem::exists(path)) return std::nullopt;
  const nlohmann::json j = read_json_input(path, "sweep checkpoint");
  if (!j.contains("sweep") || j["sweep"] != fingerprint(c, rank, ranks))
    throw InputError(fmt::format("--checkpoint {}: written for another sweep ({}); remove it or change --checkpoint",
                                 path, j.contains("sweep") ? j["sweep"].dump() : "no fingerprint"));
  if (!j.contains("tally")) throw InputError(fmt::format("--checkpoint {}: no tally", path));
  try {
    return tally_from_json(j["tally"], c.laws.size());
  } catch (const InputError& e) {
    throw InputError(fmt::format("--checkpoint {}: {}", path, e.what()));
  }
}

void save_checkpoint(const SweepConfig& c, const std::string& path, int rank, int ranks, const SweepTally& t) {
  const nlohmann::json j = {{"sweep", fingerprint(c, rank, ranks)}, {"tally", tally_to_json(t)}};
  write_text_atomically(j.dump() + "\n", path);
}

void record(const SweepConfig& c, SweepTally& t, uint64_t index, const Quiver& q, const std::vector<LawOutcome>& out) {
  ++t.quivers;
  for (size_t l = 0; l < out.size(); ++l) {
    if (out[l].skipped) {
      ++t.skipped[l];
    } else if (!out[l].failure) {
      ++t.passed[l];
    } else if (t.failed[l]++ < c.kept_counterexamples) {
      t.counterexamples.push_back({index, c.laws[l], *out[l].failure, to_edge_list(q)});
    }
  }
}

}  // namespace

SweepTally sweep_rank(const SweepConfig& c, int rank, int ranks) {
  const size_t n = c.laws.size();
  const std::string path = c.checkpoint.empty() ? "" : checkpoint_path(c.checkpoint, rank, ranks);
  SweepTally t;
  t.passed.assign(n, 0), t.failed.assign(n, 0), t.skipped.assign(n, 0);
  if (!path.empty())
    if (auto saved = load_checkpoint(c, path, rank, ranks)) t = std::move(*saved);
  t.checked_now = 0;
  // A loaded tally is checked against the stream as the sweep walks past it: this rank's positions
  // below its next_index must be exactly its quivers, and next_index no further than the stream's
  // end. Why: a checkpoint is a file a user can edit or damage; one with next_index past the end
  // (or "complete": true) otherwise came back as a complete sweep that checked nothing. A complete
  // tally is walked too (nothing is checked again: every position is below its next_index).
  const uint64_t loaded_next = t.next_index, loaded_quivers = t.quivers;
  uint64_t mine_below = 0, end_index = 0;  // (end_index: one past the highest index the walk saw)
  if (c.progress && t.next_index > 0 && !t.complete)
    *c.progress << fmt::format("[rank {}/{}] resuming at index {} ({} quivers already checked)\n", rank, ranks, t.next_index, t.quivers);

  const auto start = Clock::now();
  auto last_save = start, last_progress = start;
  uint64_t checked_now = 0;
  // One nauty stream; `mine` says which positions this rank checks, `index_of` their global index.
  // Returns false when --stop-after cut it short.
  auto sweep_stream = [&](const QuiverRange& range, auto mine, auto index_of) {
    QuiverStream stream(range);
    while (stream.next()) {
      const uint64_t i = index_of(stream.index());
      end_index = std::max(end_index, i + 1);
      if (!mine(stream.index())) continue;
      if (i < loaded_next) ++mine_below;
      if (i < t.next_index) continue;
      if (c.stop_after && checked_now >= *c.stop_after) return false;
      const Quiver q = stream.quiver();
      record(c, t, i, q, check_quiver_laws(q, c.laws));
      t.next_index = i + 1;
      ++checked_now;
      const auto now = Clock::now();
      if (!path.empty() && std::chrono::duration<double>(now - last_save).count() >= c.checkpoint_seconds) {
        save_checkpoint(c, path, rank, ranks, t);
        last_save = now;
      }
      if (c.progress && std::chrono::duration<double>(now - last_progress).count() >= 5) {
        const double s = std::chrono::duration<double>(now - start).count();
        *c.progress << fmt::format("[rank {}/{}] {} quivers checked, index {}, {:.0f} quivers/s\n", rank, ranks, t.quivers, i,
                                   double(checked_now) / s);
        c.progress->flush();
        last_progress = now;
      }
    }
    stream.finish();
    return true;
  };
  bool finished = true;
  if (c.chunks == 0) {
    finished = sweep_stream(c.range, [&](uint64_t i) { return i % uint64_t(ranks) == uint64_t(rank); },
                            [](uint64_t i) { return i; });
  } else {
    // nauty's res/mod split: chunk k is `geng n k/M`; all of its quivers belong to rank k mod N.
    for (unsigned k = unsigned(rank); finished && k < c.chunks; k += unsigned(ranks)) {
      QuiverRange part = c.range;
      part.part = {k, c.chunks};
      finished = sweep_stream(part, [](uint64_t) { return true; }, [k](uint64_t i) { return (uint64_t(k) << kChunkShift) | i; });
    }
  }
  if (mine_below != loaded_quivers || (finished && loaded_next > end_index))
    throw InputError(fmt::format("--checkpoint {}: not this sweep's progress (it says {} quivers checked below index {}; "
                                 "this rank has {} there{}); remove it to start again",
                                 path, loaded_quivers, loaded_next, mine_below,
                                 loaded_next > end_index ? fmt::format(", and its stream ends at index {}", end_index) : ""));
  t.complete = finished;
  t.checked_now = checked_now;
  if (!path.empty()) save_checkpoint(c, path, rank, ranks, t);
  return t;
}

}  // namespace qalg::sweep
