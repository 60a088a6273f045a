// The seeded property runner: RapidCheck's checkProperty with explicit TestParams and a listener
// that keeps the shrunk case (recorded by the body) and the per-case tallies.
#include <rapidcheck.h>
#include <rapidcheck/detail/Property.h>
#include <rapidcheck/detail/TestListener.h>

#include <chrono>
#include <ostream>
#include <unordered_map>

#include <fmt/core.h>

#include "qalg/algebra/quiver_input.hpp"
#include "qalg/algebra/table_io.hpp"
#include "qalg/verify/property.hpp"

namespace qalg::verify {
namespace {

// What the body of the case being evaluated recorded. One property runs at a time per thread.
struct CaseState {
  std::optional<Counterexample> recorded;
  std::map<std::string, int> tallies;
};
thread_local CaseState current_case;

using Clock = std::chrono::steady_clock;

class RunListener : public rc::detail::TestListener {
 public:
  RunListener(const std::string& name, const RunConfig& config, PropertyOutcome& out)
      : name_(name), config_(config), out_(out), start_(Clock::now()), last_(start_) {}

  void onTestCaseFinished(const rc::detail::CaseDescription& d) override {
    using Type = rc::detail::CaseResult::Type;
    if (d.result.type == Type::Discard) {
      ++out_.discarded;
    } else {
      for (const auto& [k, v] : current_case.tallies) out_.tallies[k] += v;
      if (d.result.type == Type::Success) ++done_;
      if (d.result.type == Type::Failure) out_.counterexample = current_case.recorded;
    }
    progress(false);
  }
  void onShrinkTried(const rc::detail::CaseDescription&, bool accepted) override {
    // An accepted shrink still fails: the case just evaluated is the smaller counterexample.
    if (accepted) out_.counterexample = current_case.recorded;
    progress(true);
  }
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}

 private:
  void progress(bool shrinking) {
    if (!config_.progress) return;
    const auto now = Clock::now();
    if (now - last_ < std::chrono::seconds(2)) return;
    last_ = now;
    const double s = std::chrono::duration<double>(now - start_).count();
    *config_.progress << fmt::format("  {}: {}{}/{} cases, {:.0f} s\n", name_,
                                     shrinking ? "shrinking after " : "", done_, config_.cases, s);
    config_.progress->flush();
  }
  std::string name_;
  const RunConfig& config_;
  PropertyOutcome& out_;
  int done_ = 0;
  Clock::time_point start_, last_;
};

}  // namespace

void record_case(const Quiver& q, const Field& f) {
  Counterexample c;
  c.kind = Counterexample::Kind::Quiver;
  c.text = to_edge_list(q);
  c.field = f.name();
  c.summary = fmt::format("quiver with {} vertices, {} arrows over {}", q.vertex_count(), q.arrow_count(), f.name());
  current_case.recorded = std::move(c);
}

void record_case(const StructureTensor& t) {
  Counterexample c;
  c.kind = Counterexample::Kind::Table;
  c.text = table_to_json(t).dump(2) + "\n";
  c.field = t.field().name();
  c.summary = fmt::format("table of dim {} with {} nonzero constants over {}", t.dim(), t.nnz(), t.field().name());
  current_case.recorded = std::move(c);
}

void tally(const std::string& counter) { ++current_case.tallies[counter]; }

std::string status_name(PropertyOutcome::Status s) {
  switch (s) {
    case PropertyOutcome::Status::Passed: return "passed";
    case PropertyOutcome::Status::Failed: return "FAILED";
    case PropertyOutcome::Status::GaveUp: return "gave up";
  }
  return "?";
}

PropertyOutcome run_property(const Property& p, const RunConfig& config) {
  PropertyOutcome out;
  out.name = p.name;
  out.seed = config.seed;
  rc::detail::TestParams params;
  params.seed = config.seed;
  params.maxSuccess = config.cases;
  // gen_quiver grows one vertex per 10 size steps, so the size range must reach 10 × max_size.
  params.maxSize = std::max(100, int(10 * config.max_size));
  rc::detail::TestMetadata meta;
  meta.id = p.name;
  meta.description = p.statement;
  RunListener listener(p.name, config, out);
  const auto start = Clock::now();
  auto testable = [&p, &config] {
    current_case = CaseState{};
    p.body(config);
  };
  // An explicit (empty) reproduce map: the overloads without one read RapidCheck's global
  // RC_PARAMS configuration, which would print its own, unrelated seed.
  const std::unordered_map<std::string, rc::detail::Reproduce> no_reproduce;
  const rc::detail::TestResult result =
      rc::detail::checkProperty(rc::detail::toProperty(testable), meta, params, listener, no_reproduce);
  current_case = CaseState{};
  out.seconds = std::chrono::duration<double>(Clock::now() - start).count();

  rc::detail::SuccessResult success;
  rc::detail::FailureResult failure;
  rc::detail::GaveUpResult gave_up;
  rc::detail::Error error;
  if (result.match(success)) {
    out.status = PropertyOutcome::Status::Passed;
    out.cases = success.numSuccess;
  } else if (result.match(failure)) {
    out.status = PropertyOutcome::Status::Failed;
    out.cases = failure.numSuccess;
    out.message = failure.description;
    out.shown = failure.counterExample;
  } else if (result.match(gave_up)) {
    out.status = PropertyOutcome::Status::GaveUp;
    out.cases = gave_up.numSuccess;
    out.message = gave_up.description;
  } else if (result.match(error)) {
    out.status = PropertyOutcome::Status::GaveUp;
    out.message = error.description;
  }
  if (out.status != PropertyOutcome::Status::Failed) out.counterexample.reset();
  return out;
}

std::string replay_command(const std::string& property, const RunConfig& config) {
  return fmt::format("qalg check {} --seed {} --cases {} --max-size {}", property, config.seed,
                     config.cases, config.max_size);
}

}  // namespace qalg::verify
