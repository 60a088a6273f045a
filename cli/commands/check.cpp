// qalg check: property-based runs of the catalogue (verify/catalogue.hpp) with a reproducible
// seed; --mutate runs the fault-injection campaign. Exit 0 all hold, 1 a property failed (the
// shrunk counterexample is written where `qalg inspect` reads it), 2 bad arguments.
#include <filesystem>
#include <iostream>
#include <random>
#include <sstream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "command_registry.hpp"
#include "count_option.hpp"
#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/table_io.hpp"
#include "qalg/verify/catalogue.hpp"
#include "qalg/verify/fault.hpp"

namespace qalg::cli {
namespace {

using verify::PropertyOutcome;

struct CheckOptions {
  std::vector<std::string> names;
  int cases = 100;
  uint64_t seed = 0;
  CLI::Option* seed_option = nullptr;  // given or not
  size_t max_size = 6;
  bool json = false, list = false, mutate = false;
  std::string counterexample_dir = ".";
};

std::vector<const verify::Property*> select(const CheckOptions& o) {
  std::vector<const verify::Property*> out;
  if (o.mutate && !o.names.empty()) throw InputError("--mutate runs the fault-injection properties; give no PROPERTY with it");
  for (const auto& n : o.names) {
    const verify::Property* p = verify::find_property(n);
    if (!p) throw InputError(fmt::format("unknown property '{}' (qalg check --list shows the names)", n));
    out.push_back(p);
  }
  if (!out.empty()) return out;
  for (const auto& p : verify::property_catalogue())
    if (!p.demonstration && (!o.mutate || p.name.rfind("fault-", 0) == 0)) out.push_back(&p);
  return out;
}

// Writes the shrunk case next to the user (atomically) and returns its path.
std::string write_counterexample(const CheckOptions& o, const PropertyOutcome& r) {
  const auto& c = *r.counterexample;
  const std::string path = (std::filesystem::path(o.counterexample_dir) /
                            ("qalg-counterexample-" + r.name + c.extension())).string();
  write_text_atomically(c.text, path);
  return path;
}

std::string inspect_command(const verify::Counterexample& c, const std::string& path) {
  return c.kind == verify::Counterexample::Kind::Quiver ? fmt::format("qalg inspect {} --field '{}'", path, c.field)
                                                        : fmt::format("qalg inspect --table-file {}", path);
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// The first n non-empty lines of RapidCheck's failure description (where, and the assertion).
std::vector<std::string> message_lines(const std::string& s, size_t n) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string line; out.size() < n && std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

// Per fault kind: how many injected faults each checker caught (SPEC §1 checkers + canonical
// algorithm), and how many some checker caught.
void print_mutation_table(const std::vector<PropertyOutcome>& results) {
  fmt::print("\n{:<20} {:>8}", "fault kind", "injected");
  for (const auto& c : verify::checker_names()) fmt::print(" {:>19}", c);
  fmt::print(" {:>8}\n", "caught");
  int injected = 0, caught = 0;
  for (const auto& r : results) {
    const std::string k = r.name.substr(6);  // "fault-<kind>"
    auto get = [&](const std::string& key) { auto it = r.tallies.find(k + "/" + key); return it == r.tallies.end() ? 0 : it->second; };
    fmt::print("{:<20} {:>8}", k, get("injected"));
    for (const auto& c : verify::checker_names()) fmt::print(" {:>19}", get(c));
    fmt::print(" {:>8}\n", get("caught"));
    injected += get("injected"), caught += get("caught");
  }
  fmt::print("overall: {} of {} injected faults caught by at least one checker\n", caught, injected);
}

int run_check(const CheckOptions& o) {
  if (o.list) {
    for (const auto& p : verify::property_catalogue())
      fmt::print("{:<24} {:<26} {}\n", p.name, p.section, p.statement);
    return 0;
  }
  if (o.cases < 1) throw InputError("--cases must be at least 1");
  if (o.max_size < 1 || o.max_size > 64) throw InputError("--max-size must be between 1 and 64");
  if (!std::filesystem::is_directory(o.counterexample_dir))
    throw InputError("--counterexample-dir " + o.counterexample_dir + ": not a directory");
  const auto properties = select(o);
  verify::RunConfig config;
  config.cases = o.cases;
  config.seed = o.seed_option->count() > 0 ? o.seed : std::random_device{}() * uint64_t(4294967296ull) + std::random_device{}();
  config.max_size = o.max_size;
  config.progress = &std::cerr;

  std::vector<PropertyOutcome> results;
  nlohmann::json out = {{"seed", config.seed}, {"cases", o.cases}, {"max_size", o.max_size}};
  int failed = 0;
  if (!o.json) fmt::print("qalg check: {} properties, {} cases each, max size {}, seed {}\n", properties.size(), o.cases, o.max_size, config.seed);
  for (const auto* p : properties) {
    if (!o.json) std::fflush(stdout);
    PropertyOutcome r = verify::run_property(*p, config);
    nlohmann::json pj = {{"name", r.name}, {"section", p->section}, {"status", verify::status_name(r.status)},
                         {"cases", r.cases}, {"discarded", r.discarded}, {"seconds", r.seconds}};
    if (!r.tallies.empty()) pj["tallies"] = r.tallies;
    if (r.status != PropertyOutcome::Status::Passed) {
      ++failed;
      pj["message"] = r.message;
      pj["replay"] = verify::replay_command(r.name, config);
    }
    if (!o.json) fmt::print("  {:<7} {:<24} {:>5} cases {:>7.2f} s\n", verify::status_name(r.status), r.name, r.cases, r.seconds);
    if (r.status != PropertyOutcome::Status::Passed && !o.json) {
      for (const auto& line : message_lines(r.message, 2)) fmt::print("          {}\n", line);
      for (const auto& [what, value] : r.shown)
        if (value.size() < 200) fmt::print("          {} = {}\n", what, first_line(value));
    }
    if (r.counterexample) {
      const std::string path = write_counterexample(o, r);
      pj["counterexample"] = {{"path", path}, {"kind", r.counterexample->kind == verify::Counterexample::Kind::Quiver ? "quiver" : "table"},
                              {"field", r.counterexample->field}, {"summary", r.counterexample->summary},
                              {"inspect", inspect_command(*r.counterexample, path)}};
      if (!o.json)
        fmt::print("          counterexample ({}): {}\n          inspect it: {}\n", r.counterexample->summary, path,
                   inspect_command(*r.counterexample, path));
    }
    if (r.status != PropertyOutcome::Status::Passed && !o.json)
      fmt::print("          replay:     {}\n", verify::replay_command(r.name, config));
    out["properties"].push_back(pj);
    results.push_back(std::move(r));
  }
  out["failed"] = failed;
  if (o.json) {
    std::cout << out.dump(2) << "\n";
  } else {
    if (o.mutate) print_mutation_table(results);
    fmt::print("{} of {} properties hold (seed {})\n", results.size() - size_t(failed), results.size(), config.seed);
  }
  return failed ? 1 : 0;
}

const RegisterCommand kRegisterCheck{Command{
    "check", "property-based runs of qalg's laws (SPEC §1–4) with a reproducible seed; --mutate for fault injection",
    [](CLI::App& sub) -> std::function<int()> {
      auto o = std::make_shared<CheckOptions>();
      sub.add_option("PROPERTY", o->names, "properties to run (default: all; --list shows them)");
      sub.add_option("--cases", o->cases, "successful cases per property (default 100)");
      o->seed_option = sub.add_option("--seed", o->seed, "RapidCheck seed; the same seed gives the same cases (default: random, printed)")->check(kCount);
      sub.add_option("--max-size", o->max_size, "largest quiver (vertices) the generators produce (default 6)")->check(kCount);
      sub.add_option("--counterexample-dir", o->counterexample_dir, "where failing cases are written (default .)");
      sub.add_flag("--json", o->json, "machine-readable output");
      sub.add_flag("--list", o->list, "list the properties and exit");
      sub.add_flag("--mutate", o->mutate, "fault injection: count which checker catches each injected fault");
      return [o] { return run_check(*o); };
    }}};

}  // namespace
}  // namespace qalg::cli
