// qalg rank: lower bounds on R(A), the shortest verified algorithm, and whether they meet
// (SPEC §3). Exit 0; 1 when a given --algorithm fails verification; 2 on bad input.
#include <iostream>

#include <fmt/core.h>

#include "algebra_args.hpp"
#include "command_registry.hpp"
#include "qalg/algebra/report.hpp"
#include "qalg/rank/algorithm_io.hpp"
#include "qalg/rank/rank_report.hpp"

namespace qalg::cli {
namespace {

struct RankOptions {
  AlgebraArgs algebra;
  std::string algorithm_file;
  std::string write_algorithm;
  bool json = false;
};

void print_human(const RankOptions& o, const StructureTensor& t, const RankReport& r,
                 const std::optional<VerificationResult>& extra, size_t extra_length) {
  fmt::print("rank of {} (dim {}, nnz {})\n", o.algebra.describe(), t.dim(), t.nnz());
  fmt::print("lower bounds:\n");
  for (const auto& b : r.bounds) fmt::print("  {:<20} {:>8}   {}\n", b.name, b.value, b.hypothesis);
  if (r.bounds.empty()) fmt::print("  (none applicable)\n");
  fmt::print("best lower bound:   {} ({})\n", r.best_lower_bound, r.best_bound_name);
  fmt::print("explicit algorithm: {}, length {}, {}\n", r.explicit_algorithm, r.explicit_length,
             r.explicit_verified ? "verified exactly" : "NOT verified");
  if (r.rank_exact)
    fmt::print("rank:               R = {} (the bound meets the algorithm)\n", *r.rank_exact);
  else
    fmt::print("rank:               {} ≤ R ≤ {} (open)\n", r.best_lower_bound, r.explicit_length);
  if (extra)
    fmt::print("--algorithm {}: length {}, {}\n", o.algorithm_file, extra_length,
               extra->verified ? "verified exactly" : "FAILS verification: " + extra->failure);
  for (const auto& n : r.notes) fmt::print("note: {}\n", n);
}

int run_rank(const RankOptions& o) {
  StructureTensor t = o.algebra.build();
  AlgebraReport report = inspect_algebra(t);
  std::optional<BilinearAlgorithm> extra;
  std::optional<VerificationResult> extra_check;
  size_t extra_length = 0;
  if (!o.algorithm_file.empty()) {
    BilinearAlgorithm a = read_algorithm_file(o.algorithm_file);
    require_compatible(a, t, o.algorithm_file);
    extra_check = verify_algorithm(a, t);
    extra_length = a.length();
    if (extra_check->verified) extra = std::move(a);
  }
  RankReport r = compute_rank_report(t, report, extra);
  if (!o.write_algorithm.empty()) {
    KnownAlgorithm best = best_known_algorithm(t, extra);
    if (best.verified) write_algorithm_file(best.algorithm, o.write_algorithm);
  }
  if (o.json) {
    nlohmann::json out = {{"algebra", o.algebra.describe()}, {"field", t.field().name()},
                          {"dim", t.dim()}, {"nnz", t.nnz()}, {"rank", to_json(r)}};
    if (extra_check) {
      nlohmann::json a = {{"file", o.algorithm_file}, {"length", extra_length},
                          {"verified", extra_check->verified}};
      if (const auto& m = extra_check->mismatch)
        a["mismatch"] = {{"i", m->i}, {"j", m->j}, {"k", m->k},
                         {"algorithm_value", m->algorithm_value.str()},
                         {"table_value", m->table_value.str()}, {"message", extra_check->failure}};
      out["algorithm"] = a;
    }
    std::cout << out.dump(2) << "\n";
  } else {
    print_human(o, t, r, extra_check, extra_length);
  }
  return extra_check && !extra_check->verified ? 1 : 0;
}

const RegisterCommand kRegisterRank{Command{
    "rank", "bilinear rank: lower bounds, the best verified algorithm, exact rank when they meet",
    [](CLI::App& sub) -> std::function<int()> {
      auto o = std::make_shared<RankOptions>();
      o->algebra.add_to(sub);
      sub.add_option("--algorithm", o->algorithm_file,
                     "verify a qalg-algorithm JSON file against the table (exit 1 if it fails)");
      sub.add_option("--write-algorithm", o->write_algorithm,
                     "write the shortest verified algorithm as qalg-algorithm JSON");
      sub.add_flag("--json", o->json, "machine-readable output");
      return [o] { return run_rank(*o); };
    }}};

}  // namespace
}  // namespace qalg::cli
