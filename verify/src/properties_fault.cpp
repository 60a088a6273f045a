// Fault injection as properties: for each fault kind, a random Q_G gets one injected fault and the
// structural checkers of SPEC §1 (associativity, unit, graph structure) must catch it. Every
// checker's verdict is tallied ("<kind>/<checker>"), which `qalg check --mutate` reports.
#include <rapidcheck.h>

#include "qalg/verify/catalogue.hpp"
#include "qalg/verify/fault.hpp"
#include "qalg/verify/generators.hpp"

namespace qalg::verify {
namespace {

void fault_is_caught(FaultKind kind, const RunConfig& c) {
  const GraphCase g = *gen_graph_case(QuiverShape{.max_vertices = c.max_size, .max_arrows = 2 * c.max_size});
  RC_PRE(kind != FaultKind::ArrowProduct || g.quiver.arrow_count() > 0);
  const Fault fault = *gen_fault(g.table, kind);
  const StructureTensor bad = apply_fault(g.table, fault);
  record_case(bad);
  RC_LOG() << fault.describe(g.table) << "\n";
  const std::string k = fault_kind_name(kind);
  bool structural = false, any = false;
  for (const auto& v : run_checkers(bad)) {
    if (!v.caught) continue;
    tally(k + "/" + v.checker);
    any = true;
    if (v.checker != "canonical-algorithm") structural = true;
  }
  tally(k + "/injected");
  if (any) tally(k + "/caught");
  RC_ASSERT(structural);
}

}  // namespace

std::vector<Property> fault_properties() {
  std::vector<Property> out;
  for (FaultKind kind : all_fault_kinds())
    out.push_back({"fault-" + fault_kind_name(kind), "SPEC §1 (fault injection)",
                   "one injected " + fault_kind_name(kind) + " fault in Q_G's table is caught by a structural check",
                   [kind](const RunConfig& c) { fault_is_caught(kind, c); }});
  return out;
}

}  // namespace qalg::verify
