// make_certificate: every check of SPEC §1–3 on one table, with the evidence a checker needs.
#include <fmt/core.h>

#include "certificate_evidence.hpp"
#include "qalg/algebra/associativity.hpp"
#include "qalg/algebra/general_structure.hpp"
#include "qalg/algebra/graph_structure.hpp"
#include "qalg/algebra/report.hpp"
#include "qalg/algebra/table_io.hpp"
#include "qalg/algebra/unit.hpp"
#include "qalg/rank/algorithm_io.hpp"
#include "qalg/rank/rank_report.hpp"
#include "qalg/verify/certificate.hpp"
#include "qalg/verify/sparse_ops.hpp"

namespace qalg::verify {
namespace {

using nlohmann::json;

json vectors_json(const std::vector<SparseVector>& vs) {
  json out = json::array();
  for (const auto& v : vs) out.push_back(sparse_to_json(v));
  return out;
}

// rad A with the route that found it: span(arrows) when the graph route's checks hold, else the
// general route's radical.
std::vector<SparseVector> radical_basis(const StructureTensor& t, const UnitResult& unit, std::string& method) {
  if (const auto& g = t.graph_basis()) {
    const GraphStructure s = check_graph_structure(t, unit);
    if (s.radical_is_ideal && s.radical_squared_zero && s.quotient_split) {
      method = "span of the arrows (graph route)";
      std::vector<SparseVector> out;
      for (uint32_t a = uint32_t(g->vertex_count); a < t.dim(); ++a) out.push_back(basis_vector(a));
      return out;
    }
  }
  GeneralStructure s = analyze_general_structure(t);
  method = "general route: " + s.method;
  return s.radical_basis;
}

}  // namespace

Certificate make_certificate(const StructureTensor& t, const std::string& algebra) {
  Certificate cert;
  json& j = cert.json;
  j["format"] = "qalg-certificate";
  j["version"] = 1;
  j["algebra"] = algebra;
  j["table_hash"] = table_hash(t);
  j["field"] = t.field().name();
  j["dim"] = t.dim();
  j["nnz"] = t.nnz();
  j["table"] = table_to_json(t);

  const AssociativityResult assoc = check_associativity(t);
  if (assoc.associative) {
    j["associativity"] = {{"holds", true}};
  } else {
    const auto& w = *assoc.witness;
    j["associativity"] = {{"holds", false},
                          {"witness", {{"i", w.i}, {"j", w.j}, {"l", w.l}, {"coordinate", w.coordinate},
                                       {"left", w.left.str()}, {"right", w.right.str()}}}};
    cert.failed.push_back("associativity");
  }

  const UnitResult unit = find_unit(t);
  if (unit.unit) {
    j["unit"] = {{"holds", true}, {"element", sparse_to_json(*unit.unit)}};
    if (const auto& g = t.graph_basis()) {
      SparseVector vertex_sum;
      for (uint32_t v = 0; v < g->vertex_count; ++v) vertex_sum.emplace_back(v, Rational(1));
      j["unit"]["is_vertex_sum"] = *unit.unit == vertex_sum;
    }
  } else {
    j["unit"] = {{"holds", false}, {"reason", unit.reason}};
    cert.failed.push_back("unit");
  }

  // Radical, idempotents and t need an associative table with a unit (SPEC §1–2).
  AlgebraReport report = inspect_algebra(t);
  if (assoc.associative && unit.unit) {
    std::string method;
    const std::vector<SparseVector> rad = radical_basis(t, unit, method);
    j["radical"] = {{"dim", rad.size()}, {"basis", vectors_json(rad)},
                    {"nilpotency_index", nilpotency_index(t, rad)}, {"method", method}};
    const std::vector<SparseVector> idem = basis_idempotents(t);
    if (split_quotient_failure(t, idem, *unit.unit, rad).empty()) {
      j["idempotents"] = {{"elements", vectors_json(idem)}, {"spans_quotient", true}};
      j["t"] = {{"value", idem.size()}, {"evidence", "idempotents"}};
    } else if (report.t) {
      j["t"] = {{"value", *report.t}, {"evidence", "general route"}};
    }
  }

  const RankReport rank = compute_rank_report(t, report);
  json bounds = json::array();
  for (const auto& b : rank.bounds) bounds.push_back({{"name", b.name}, {"value", b.value}, {"hypothesis", b.hypothesis}});
  j["bounds"] = bounds;
  j["best_lower_bound"] = rank.best_lower_bound;
  const KnownAlgorithm best = best_known_algorithm(t, std::nullopt);
  if (best.verified) {
    j["algorithm"] = algorithm_to_json(best.algorithm);
    j["algorithm_length"] = best.algorithm.length();
  } else {
    cert.failed.push_back("algorithm");
  }
  j["rank_exact"] = rank.rank_exact ? json(*rank.rank_exact) : json(nullptr);
  cert.all_checks_hold = cert.failed.empty() && j.contains("t");
  if (!j.contains("t") && cert.failed.empty()) cert.failed.push_back("t");
  return cert;
}

}  // namespace qalg::verify
