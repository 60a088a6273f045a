// The rank report: every applicable bound against the shortest verified algorithm (SPEC §3).
#include "qalg/rank/rank_report.hpp"

#include <fmt/core.h>

#include "qalg/rank/algorithms.hpp"
#include "qalg/rank/lower_bounds.hpp"

namespace qalg {

KnownAlgorithm best_known_algorithm(const StructureTensor& t,
                                    const std::optional<BilinearAlgorithm>& extra,
                                    std::vector<std::string>* notes) {
  // Candidates in order of preference when lengths tie.
  std::vector<BilinearAlgorithm> candidates;
  if (has_graph_description(t)) candidates.push_back(canonical_graph_algorithm(t));
  candidates.push_back(product_algorithm(t));
  if (extra) candidates.push_back(*extra);

  std::optional<size_t> best;
  for (size_t c = 0; c < candidates.size(); ++c) {
    VerificationResult v = verify_algorithm(candidates[c], t);
    if (!v.verified) {
      if (notes)
        notes->push_back(fmt::format("{} (length {}) fails verification: {}", candidates[c].name,
                                     candidates[c].length(), v.failure));
      continue;
    }
    if (!best || candidates[c].length() < candidates[*best].length()) best = c;
  }
  if (!best) return KnownAlgorithm{product_algorithm(t), false};
  return KnownAlgorithm{std::move(candidates[*best]), true};
}

RankReport compute_rank_report(const StructureTensor& t, const AlgebraReport& report,
                               const std::optional<BilinearAlgorithm>& extra) {
  RankReport r;
  FlatteningOutcome flat = flattening_bound(t);
  for (const BoundOutcome& o :
       {alder_strassen_bound(report), blaser_bound(t, report), flat.outcome}) {
    if (o.bound) r.bounds.push_back(*o.bound);
    if (!o.note.empty()) r.notes.push_back(o.note);
  }
  r.best_bound_name = "none";
  for (const auto& b : r.bounds)
    if (b.value > r.best_lower_bound || r.best_bound_name == "none") {
      r.best_lower_bound = b.value;
      r.best_bound_name = b.name;
    }

  KnownAlgorithm known = best_known_algorithm(t, extra, &r.notes);
  r.explicit_length = known.algorithm.length();
  r.explicit_algorithm = known.algorithm.name;
  r.explicit_verified = known.verified;
  if (known.verified && r.best_lower_bound == r.explicit_length) r.rank_exact = r.explicit_length;
  if (known.verified && r.best_lower_bound > r.explicit_length)
    r.notes.push_back(fmt::format("INCONSISTENT: a verified algorithm of length {} is shorter than "
                                  "the {} bound {}; a bound's hypotheses were wrongly established",
                                  r.explicit_length, r.best_bound_name, r.best_lower_bound));
  return r;
}

nlohmann::json to_json(const RankReport& r) {
  nlohmann::json bounds = nlohmann::json::array();
  for (const auto& b : r.bounds)
    bounds.push_back({{"name", b.name}, {"value", b.value}, {"hypothesis", b.hypothesis}});
  nlohmann::json out = {{"bounds", bounds},
                        {"best_lower_bound", r.best_lower_bound},
                        {"best_bound_name", r.best_bound_name},
                        {"explicit_length", r.explicit_length},
                        {"explicit_algorithm", r.explicit_algorithm},
                        {"explicit_verified", r.explicit_verified},
                        {"rank_exact", nullptr},
                        {"notes", r.notes}};
  if (r.rank_exact) out["rank_exact"] = *r.rank_exact;
  if (r.explicit_verified) out["interval"] = {r.best_lower_bound, r.explicit_length};
  return out;
}

}  // namespace qalg
