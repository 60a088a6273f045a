#pragma once
// Fault injection (issue 5): single-entry perturbations of a graph algebra's table, and the
// checkers that must notice them. SPEC §1 says every property is checked from the table, so a
// table that differs from Q_G in one constant must fail at least one check; `qalg check --mutate`
// counts which checker catches which kind of fault.
#include <rapidcheck.h>

#include <string>
#include <vector>

#include "qalg/algebra/quiver.hpp"
#include "qalg/algebra/structure_tensor.hpp"

namespace qalg::verify {

enum class FaultKind {
  ChangedConstant,  // some c_ij^k replaced by a different field element
  ArrowProduct,     // an arrow·arrow product a·b made nonzero (J^2 = 0 broken)
  DroppedUnitTerm,  // e_v e_v = e_v, e_{s(a)} a = a or a e_{t(a)} = a removed
};

const std::vector<FaultKind>& all_fault_kinds();
std::string fault_kind_name(FaultKind k);  // "changed-constant", "arrow-product", "dropped-unit-term"

struct Fault {
  FaultKind kind = FaultKind::ChangedConstant;
  uint32_t i = 0, j = 0, k = 0;
  Rational old_value, new_value;
  // e.g. "c[e_1, a1 -> a1] 1 -> 0" with the table's basis names.
  std::string describe(const StructureTensor& t) const;
};

// The table with c_ij^k replaced by fault.new_value. Keeps the graph-basis hint and slots, so the
// graph route is attempted and has to notice the fault itself.
StructureTensor apply_fault(const StructureTensor& t, const Fault& fault);

// A fault of the given kind for a graph algebra's table (needs its graph-basis hint; an
// ArrowProduct fault needs at least one arrow).
rc::Gen<Fault> gen_fault(const StructureTensor& graph_table, FaultKind kind);

// The checkers of SPEC §1, each run on the table alone; `caught` is true when it rejects the table.
struct CheckerVerdict {
  std::string checker;  // "associativity", "unit", "graph-structure"
  bool caught = false;
  std::string evidence;  // the witness or failed condition, when caught
};
// Runs every checker (requires the graph-basis hint: it says what Q_G's unit and J should be).
std::vector<CheckerVerdict> run_checkers(const StructureTensor& t);
const std::vector<std::string>& checker_names();

}  // namespace qalg::verify
