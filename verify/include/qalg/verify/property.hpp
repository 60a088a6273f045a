#pragma once
// Named properties and a seeded runner (issue 5). A property is a documented law with a body
// written like an RC_GTEST_PROP body (`*gen`, RC_ASSERT, RC_PRE); the same Property value runs
// from GoogleTest and from `qalg check`. The runner drives RapidCheck with an explicit seed, so
// the same (seed, cases, max size) gives the same cases and the same result, and it keeps the
// shrunk counterexample as a file `qalg inspect` reads (edge list or table JSON).
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "qalg/algebra/field.hpp"
#include "qalg/algebra/quiver.hpp"
#include "qalg/algebra/structure_tensor.hpp"

namespace qalg::verify {

struct RunConfig {
  int cases = 100;        // successful cases required
  uint64_t seed = 1;      // RapidCheck's seed: same seed ⇒ same cases
  size_t max_size = 6;    // largest quiver (vertices) a generator may produce
  std::ostream* progress = nullptr;  // progress lines on long runs (every ~2 s), when set
};

struct Property {
  std::string name;       // "graph-associative", used on the command line
  std::string section;    // "SPEC §1"
  std::string statement;  // the law, in one line
  std::function<void(const RunConfig&)> body;
  bool demonstration = false;  // deliberately false; only run when named explicitly
};

// What a failing case was, in a form `qalg inspect` accepts.
struct Counterexample {
  enum class Kind { Quiver, Table };
  Kind kind = Kind::Table;
  std::string text;       // an edge list (Quiver) or qalg-table JSON (Table)
  std::string field;      // "Q" or "GF(p)"
  std::string summary;    // e.g. "quiver with 2 vertices, 1 arrow"
  std::string extension() const { return kind == Kind::Quiver ? ".edges" : ".json"; }
};

// Called inside a property body: the case under test, remembered for the failure report. The last
// call of a case wins (record the object the law is stated about).
void record_case(const Quiver& q, const Field& f);
void record_case(const StructureTensor& t);
// Called inside a property body: adds 1 to a named counter, kept for the run's main cases only
// (not for shrinking), e.g. "changed-constant/unit" in the fault-injection campaign.
void tally(const std::string& counter);

struct PropertyOutcome {
  enum class Status { Passed, Failed, GaveUp };
  std::string name;
  Status status = Status::Passed;
  int cases = 0;                  // successful cases
  int discarded = 0;              // cases rejected by RC_PRE
  std::string message;            // RapidCheck's failure description or why it gave up
  std::vector<std::pair<std::string, std::string>> shown;  // RapidCheck's shrunk values, as text
  std::optional<Counterexample> counterexample;            // the shrunk case, when recorded
  std::map<std::string, int> tallies;
  uint64_t seed = 0;
  double seconds = 0;
};
std::string status_name(PropertyOutcome::Status s);  // "passed", "FAILED", "gave up"

PropertyOutcome run_property(const Property& p, const RunConfig& config);

// The command line that replays a property run.
std::string replay_command(const std::string& property, const RunConfig& config);

}  // namespace qalg::verify
