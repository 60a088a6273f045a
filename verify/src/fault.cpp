// Fault injection: single-entry perturbations of Q_G's table and the checkers that catch them.
#include "qalg/verify/fault.hpp"

#include <fmt/core.h>

#include "qalg/algebra/associativity.hpp"
#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/graph_structure.hpp"
#include "qalg/algebra/unit.hpp"
#include "qalg/rank/algorithms.hpp"
#include "qalg/verify/generators.hpp"

namespace qalg::verify {

const std::vector<FaultKind>& all_fault_kinds() {
  static const std::vector<FaultKind> kinds{FaultKind::ChangedConstant, FaultKind::ArrowProduct,
                                            FaultKind::DroppedUnitTerm};
  return kinds;
}

std::string fault_kind_name(FaultKind k) {
  switch (k) {
    case FaultKind::ChangedConstant: return "changed-constant";
    case FaultKind::ArrowProduct: return "arrow-product";
    case FaultKind::DroppedUnitTerm: return "dropped-unit-term";
  }
  return "?";
}

std::string Fault::describe(const StructureTensor& t) const {
  const auto& n = t.basis_names();
  return fmt::format("{}: c[{}·{} → {}] {} → {}", fault_kind_name(kind), n.at(i), n.at(j), n.at(k),
                     old_value.str(), new_value.str());
}

StructureTensor apply_fault(const StructureTensor& t, const Fault& fault) {
  StructureTensor out(t.field(), t.basis_names());
  for (const auto& e : t.entries())
    if (!(e.i == fault.i && e.j == fault.j && e.k == fault.k)) out.add(e.i, e.j, e.k, e.c);
  out.add(fault.i, fault.j, fault.k, fault.new_value);
  out.finalize();
  if (t.graph_basis()) out.set_graph_basis(*t.graph_basis());
  if (t.slots()) out.set_slots(*t.slots(), t.slot_grid());
  return out;
}

namespace {

Fault make_fault(const StructureTensor& t, FaultKind kind, uint32_t i, uint32_t j, uint32_t k,
                 const Rational& value) {
  Fault f;
  f.kind = kind;
  f.i = i, f.j = j, f.k = k;
  f.old_value = t.coefficient(i, j, k);
  f.new_value = value;
  return f;
}

// A nonzero small field element (the value an arrow·arrow product is given).
rc::Gen<Rational> gen_nonzero(const Field& f) {
  return rc::gen::suchThat(gen_scalar(f), [](const Rational& r) { return !r.is_zero(); });
}

}  // namespace

rc::Gen<Fault> gen_fault(const StructureTensor& t, FaultKind kind) {
  if (!t.graph_basis()) throw InputError("fault injection needs a table built from a quiver");
  const uint32_t d = uint32_t(t.dim()), nv = uint32_t(t.graph_basis()->vertex_count);
  switch (kind) {
    case FaultKind::ChangedConstant:
      return rc::gen::map(
          rc::gen::suchThat(
              rc::gen::tuple(rc::gen::inRange<uint32_t>(0, d), rc::gen::inRange<uint32_t>(0, d),
                             rc::gen::inRange<uint32_t>(0, d), gen_scalar(t.field())),
              [t](const auto& c) { return std::get<3>(c) != t.coefficient(std::get<0>(c), std::get<1>(c), std::get<2>(c)); }),
          [t](const auto& c) {
            return make_fault(t, FaultKind::ChangedConstant, std::get<0>(c), std::get<1>(c), std::get<2>(c), std::get<3>(c));
          });
    case FaultKind::ArrowProduct:
      if (nv == d) throw InputError("an arrow-product fault needs a quiver with at least one arrow");
      return rc::gen::map(
          rc::gen::tuple(rc::gen::inRange<uint32_t>(nv, d), rc::gen::inRange<uint32_t>(nv, d),
                         rc::gen::inRange<uint32_t>(0, d), gen_nonzero(t.field())),
          [t](const auto& c) {
            return make_fault(t, FaultKind::ArrowProduct, std::get<0>(c), std::get<1>(c), std::get<2>(c), std::get<3>(c));
          });
    case FaultKind::DroppedUnitTerm: {
      // The unit terms of SPEC §1 are exactly Q_G's nonzero entries (all equal to 1).
      std::vector<TensorEntry> unit_terms(t.entries().begin(), t.entries().end());
      return rc::gen::map(rc::gen::elementOf(unit_terms), [t](const TensorEntry& e) {
        return make_fault(t, FaultKind::DroppedUnitTerm, e.i, e.j, e.k, Rational(0));
      });
    }
  }
  throw InputError("unknown fault kind");
}

const std::vector<std::string>& checker_names() {
  static const std::vector<std::string> names{"associativity", "unit", "graph-structure",
                                              "canonical-algorithm"};
  return names;
}

std::vector<CheckerVerdict> run_checkers(const StructureTensor& t) {
  if (!t.graph_basis()) throw InputError("the checkers of Q_G need a table built from a quiver");
  std::vector<CheckerVerdict> out;
  const auto& names = t.basis_names();

  AssociativityResult assoc = check_associativity(t);
  CheckerVerdict a{"associativity", !assoc.associative, ""};
  if (assoc.witness) {
    const auto& w = *assoc.witness;
    a.evidence = fmt::format("({}·{})·{} ≠ {}·({}·{}) at {}: {} vs {}", names[w.i], names[w.j], names[w.l],
                             names[w.i], names[w.j], names[w.l], names[w.coordinate], w.left.str(), w.right.str());
  }
  out.push_back(a);

  // Q_G's unit is Σ e_v (SPEC §1); the checker solves for the unit and compares.
  UnitResult unit = find_unit(t);
  CheckerVerdict u{"unit", false, ""};
  const size_t nv = t.graph_basis()->vertex_count;
  if (!unit.unit) {
    u.caught = true;
    u.evidence = "no unit: " + unit.reason;
  } else {
    bool vertex_sum = unit.unit->size() == nv;
    for (size_t v = 0; vertex_sum && v < nv; ++v)
      vertex_sum = (*unit.unit)[v].first == v && (*unit.unit)[v].second.is_one();
    u.caught = !vertex_sum;
    if (u.caught) u.evidence = "the unit is not Σ e_v";
  }
  out.push_back(u);

  CheckerVerdict g{"graph-structure", false, ""};
  GraphStructure gs = check_graph_structure(t, unit);
  g.caught = !(gs.radical_is_ideal && gs.radical_squared_zero && gs.quotient_split);
  g.evidence = gs.failure;
  out.push_back(g);

  // The canonical algorithm is read off the graph description, not the table's entries, so
  // verifying it compares the table with the definition of Q_G entry by entry (SPEC §3).
  CheckerVerdict c{"canonical-algorithm", false, ""};
  VerificationResult vr = verify_algorithm(canonical_graph_algorithm(t), t);
  c.caught = !vr.verified;
  c.evidence = vr.failure;
  out.push_back(c);
  return out;
}

}  // namespace qalg::verify
