// Certification of search results: lift, verify exactly, check against the lower bound.
#include "qalg/rank/search/certify.hpp"

#include <fmt/core.h>

#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/report.hpp"
#include "qalg/rank/rank_report.hpp"
#include "qalg/rank/search/flip_search.hpp"
#include "qalg/rank/search/lifting.hpp"

namespace qalg::search {

size_t proven_lower_bound(const StructureTensor& table) {
  return compute_rank_report(table, inspect_algebra(table)).best_lower_bound;
}

namespace {

void require_above_bound(const BilinearAlgorithm& alg, size_t bound, const std::string& field) {
  if (alg.length() < bound)
    throw SearchBugError(fmt::format("an algorithm of length {} verifies over {}, below the proven "
                                     "lower bound {}: a bug in the search or in the bound",
                                     alg.length(), field, bound));
}

std::optional<CertifiedAlgorithm> over_prime_field(const Scheme& s, const StructureTensor& table,
                                                   size_t bound, const std::string& description) {
  const Field& f = table.field();
  BilinearAlgorithm alg = scheme_to_algorithm(
      s, f, fmt::format("flip-graph search ({}), length {}, {}: valid over {} only", mode_name(s.mode),
                        s.length(), description, f.name()));
  if (!verify_algorithm(alg, table).verified) return std::nullopt;
  require_above_bound(alg, bound, f.name());
  return CertifiedAlgorithm{std::move(alg), "over " + f.name() + " only (not lifted to Q)",
                            "the scheme's entries read in " + f.name(), false};
}

}  // namespace

std::optional<CertifiedAlgorithm> certify_best(const std::vector<Scheme>& schemes,
                                               const StructureTensor& table, size_t lower_bound,
                                               const std::string& description, std::string& note) {
  if (schemes.empty()) {
    note = "no scheme to certify";
    return std::nullopt;
  }
  if (table.field().is_rationals()) {
    std::string failures;
    for (const Scheme& s : schemes) {
      LiftResult lift = lift_to_rationals(s, table);
      if (!lift.algorithm) {
        failures = lift.failure;
        continue;
      }
      BilinearAlgorithm alg = std::move(*lift.algorithm);
      require_above_bound(alg, lower_bound, "Q");
      std::string validity = validity_statement(lift.excluded_characteristics);
      alg.name = fmt::format("flip-graph search ({}), length {}, {}; {}; {}", mode_name(s.mode),
                             alg.length(), description, lift.method, validity);
      return CertifiedAlgorithm{std::move(alg), validity, lift.method, true};
    }
    note = fmt::format("none of the {} schemes lifted to Q (last failure: {})", schemes.size(),
                       failures);
    if (schemes.front().mode == Mode::Z3) return std::nullopt;
    const StructureTensor modp =
        table_over(table, Field::prime(mode_characteristic(schemes.front().mode)));
    return over_prime_field(schemes.front(), modp, proven_lower_bound(modp), description);
  }
  if (table.field().characteristic() != mode_characteristic(schemes.front().mode))
    throw InputError(fmt::format("the table is over {}, but the search ran in mode {}",
                                 table.field().name(), mode_name(schemes.front().mode)));
  auto out = over_prime_field(schemes.front(), table, lower_bound, description);
  if (!out) note = "the scheme does not verify over " + table.field().name();
  return out;
}

}  // namespace qalg::search
