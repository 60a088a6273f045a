// inspect_algebra: every verdict of SPEC §1–2 computed from the table, with its evidence.
#include "qalg/algebra/report.hpp"

#include <fmt/core.h>

#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/general_structure.hpp"
#include "qalg/algebra/graph_structure.hpp"
#include "qalg/algebra/unit.hpp"

namespace qalg {

AlgebraReport inspect_algebra(const StructureTensor& t) {
  AlgebraReport r;
  r.field = t.field().name();
  r.dim = t.dim();
  r.nnz = t.nnz();
  if (const auto& g = t.graph_basis()) {
    r.vertices = g->vertex_count;
    r.arrows = g->arrow_count;
  }
  r.associativity = check_associativity(t);
  UnitResult u = find_unit(t);
  r.unit = u.unit;
  r.unit_failure = u.reason;
  if (t.graph_basis()) {
    const size_t nv = t.graph_basis()->vertex_count;
    bool vertex_sum = r.unit.has_value() && r.unit->size() == nv;
    if (vertex_sum)
      for (size_t v = 0; v < nv; ++v)
        vertex_sum = vertex_sum && (*r.unit)[v].first == v && (*r.unit)[v].second.is_one();
    r.unit_is_vertex_sum = vertex_sum;

    GraphStructure gs = check_graph_structure(t, u);
    if (r.associativity.associative && gs.t) {
      r.route = "graph";
      r.radical_dim = gs.radical_dim;
      r.radical_squared_zero = true;
      r.nilpotency_index = *gs.radical_dim > 0 ? 2 : 1;
      r.quotient_dim = nv;
      r.t = gs.t;
      r.notes.push_back("J = span(arrows) is a two-sided ideal with J² = 0 and A/J ≅ F^|V| "
                        "(orthogonal idempotents), so J = rad A and t(A) = |V|");
      return r;
    }
    if (!gs.failure.empty()) r.notes.push_back("graph route: " + gs.failure);
  }
  if (!r.associativity.associative) {
    r.route = "none";
    r.notes.push_back("not associative: radical and t(A) are not defined here");
    return r;
  }
  r.route = "general";
  GeneralStructure s = analyze_general_structure(t);
  r.radical_dim = s.radical_basis.size();
  r.radical_squared_zero = s.radical_power_dims.size() < 2 || s.radical_power_dims[1] == 0;
  r.nilpotency_index = s.nilpotency_index;
  r.quotient_dim = s.quotient_dim;
  r.t = s.t;
  r.notes.push_back("radical by " + s.method);
  for (const auto& c : s.certificates) r.notes.push_back("certified: " + c);
  return r;
}

nlohmann::json sparse_vector_json(const StructureTensor& t, const SparseVector& v) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [i, c] : v) out[t.basis_names()[i]] = c.str();
  return out;
}

nlohmann::json to_json(const StructureTensor& t, const AlgebraReport& r) {
  using nlohmann::json;
  auto opt = [](const auto& o) -> json { return o ? json(*o) : json(nullptr); };
  json j;
  j["field"] = r.field;
  j["dim"] = r.dim;
  j["nnz"] = r.nnz;
  j["vertices"] = opt(r.vertices);
  j["arrows"] = opt(r.arrows);
  j["associative"] = r.associativity.associative;
  if (const auto& w = r.associativity.witness) {
    const auto& n = t.basis_names();
    j["associativity_witness"] = {{"triple", {n[w->i], n[w->j], n[w->l]}},
                                  {"coordinate", n[w->coordinate]},
                                  {"left", w->left.str()},
                                  {"right", w->right.str()}};
  }
  j["unit"] = r.unit ? sparse_vector_json(t, *r.unit) : json(nullptr);
  if (!r.unit) j["unit_failure"] = r.unit_failure;
  j["unit_is_vertex_sum"] = opt(r.unit_is_vertex_sum);
  j["route"] = r.route;
  j["radical_dim"] = opt(r.radical_dim);
  j["radical_squared_zero"] = opt(r.radical_squared_zero);
  j["nilpotency_index"] = opt(r.nilpotency_index);
  j["quotient_dim"] = opt(r.quotient_dim);
  j["t"] = opt(r.t);
  j["notes"] = r.notes;
  return j;
}

}  // namespace qalg
