#pragma once
// An exhaustive sweep: every quiver of a QuiverRange checked against the named laws. Rank r of N
// checks the quivers whose stream index is r mod N, so the merged result does not depend on N.
// Each rank checkpoints its tally (temp file + rename) and resumes from it.
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "qalg/sweep/quiver_stream.hpp"

namespace qalg::sweep {

struct SweepConfig {
  QuiverRange range;
  std::vector<std::string> laws;         // names from quiver_laws(), in that order
  std::string checkpoint;                // file prefix; empty: no checkpoints
  double checkpoint_seconds = 5;         // between checkpoint writes
  std::optional<uint64_t> stop_after;    // quivers this rank checks in this run, then stops
  size_t kept_counterexamples = 10;      // per law, the lowest indices
  std::ostream* progress = nullptr;      // progress lines (every ~5 s), when set
  // 0: every rank reads the whole stream and checks index ≡ rank mod N. M > 0: nauty's res/mod
  // split into M chunks (`geng n k/M`), rank r generates only chunks k ≡ r mod N, and a quiver's
  // index is k·2^40 + its position in chunk k. Either way the result does not depend on N.
  unsigned chunks = 0;
};
inline constexpr unsigned kChunkShift = 40;

struct SweepCounterexample {
  uint64_t index = 0;  // position in nauty's stream
  std::string law, reason;
  std::string edges;   // edge list `qalg inspect` reads
};

// One rank's tally, or the merge of all ranks'.
struct SweepTally {
  uint64_t next_index = 0;  // this rank's quivers below this index are done
  uint64_t quivers = 0;     // quivers checked
  std::vector<uint64_t> passed, failed, skipped;  // per law, in SweepConfig::laws order
  std::vector<SweepCounterexample> counterexamples;
  bool complete = false;    // reached the end of the stream
  uint64_t checked_now = 0; // quivers checked by this invocation (throughput; not in results)
};

// Runs rank `rank` of `ranks`: loads its checkpoint when there is one (InputError when it was
// written for another sweep), checks its remaining quivers, checkpoints, returns its tally.
SweepTally sweep_rank(const SweepConfig& config, int rank, int ranks);

// Sums the tallies; keeps the lowest-index counterexamples per law; complete when all are.
SweepTally merge_tallies(const SweepConfig& config, const std::vector<SweepTally>& parts);

// The tally's JSON (checkpoints, MPI gather) and the sweep's result document.
nlohmann::json tally_to_json(const SweepTally& t);
SweepTally tally_from_json(const nlohmann::json& j, size_t laws);
nlohmann::json result_json(const SweepConfig& config, const SweepTally& merged);

// Per-rank checkpoint path: "<prefix>.rank<r>of<N>".
std::string checkpoint_path(const std::string& prefix, int rank, int ranks);

}  // namespace qalg::sweep
