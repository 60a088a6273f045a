// One quiver, every law of the sweep (quiver_laws.hpp).
#include "qalg/sweep/quiver_laws.hpp"

#include <algorithm>
#include <functional>

#include <fmt/core.h>
#include <fmt/ranges.h>

#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/graph_algebra.hpp"
#include "qalg/algebra/report.hpp"
#include "qalg/algebra/table_io.hpp"
#include "qalg/gpu/dense_reference.hpp"
#include "qalg/gpu/lowering.hpp"
#include "qalg/gpu/plan_executor.hpp"
#include "qalg/rank/rank_report.hpp"

namespace qalg::sweep {
namespace {

// Everything a law may need, computed at most once per quiver.
struct QuiverCase {
  const Quiver& q;
  StructureTensor table;
  std::optional<AlgebraReport> report_cache;
  const AlgebraReport& report() {
    if (!report_cache) report_cache = inspect_algebra(table);
    return *report_cache;
  }
};

using Check = std::function<LawOutcome(QuiverCase&)>;

LawOutcome fail(std::string why) { return {false, std::move(why)}; }
LawOutcome holds() { return {}; }

LawOutcome associative(QuiverCase& c) {
  const auto r = check_associativity(c.table);
  if (r.associative) return holds();
  const auto& w = *r.witness;
  return fail(fmt::format("(b{} b{}) b{} != b{} (b{} b{})", w.i, w.j, w.l, w.i, w.j, w.l));
}

// SPEC §1: the unit exists and equals the sum of the vertex idempotents.
LawOutcome unit(QuiverCase& c) {
  const auto& r = c.report();
  if (!r.unit) return fail("no unit: " + r.unit_failure);
  if (r.unit_is_vertex_sum != true) return fail("unit is not the sum of the e_v");
  return holds();
}

// SPEC §1: J = span(arrows) is the radical, J^2 = 0, A/J has dimension |V|.
LawOutcome radical(QuiverCase& c) {
  const auto& r = c.report();
  const size_t v = c.q.vertex_count(), e = c.q.arrow_count();
  if (r.radical_dim != e) return fail(fmt::format("radical dimension {} != |E| = {}", r.radical_dim ? int(*r.radical_dim) : -1, e));
  if (r.radical_squared_zero != true) return fail("radical squared is not zero");
  if (r.quotient_dim != v) return fail(fmt::format("dim A/J {} != |V| = {}", r.quotient_dim ? int(*r.quotient_dim) : -1, v));
  return holds();
}

LawOutcome maximal_ideals(QuiverCase& c) {
  const auto& r = c.report();
  if (r.t != c.q.vertex_count())
    return fail(fmt::format("t(A) = {} != |V| = {}", r.t ? int(*r.t) : -1, c.q.vertex_count()));
  return holds();
}

// SPEC §3: R(Q_G) = |V| + 2|E|, met by the Alder–Strassen bound and the canonical algorithm.
LawOutcome rank_formula(QuiverCase& c) {
  const RankReport rr = compute_rank_report(c.table, c.report());
  const size_t want = c.q.vertex_count() + 2 * c.q.arrow_count();
  if (rr.rank_exact != want)
    return fail(fmt::format("rank {} (bound {}, explicit {}) != |V| + 2|E| = {}",
                            rr.rank_exact ? int(*rr.rank_exact) : -1, rr.best_lower_bound, rr.explicit_length, want));
  return holds();
}

// Deterministic small integers (exact in double, so the comparison is exact; SPEC §4).
gpu::RowMatrix<double> integer_matrix(Eigen::Index rows, Eigen::Index cols, uint32_t salt) {
  gpu::RowMatrix<double> m(rows, cols);
  uint32_t x = 2463534242u ^ salt;
  for (Eigen::Index r = 0; r < rows; ++r)
    for (Eigen::Index k = 0; k < cols; ++k) {
      x ^= x << 13, x ^= x >> 17, x ^= x << 5;  // xorshift32
      m(r, k) = double(int(x % 7) - 3);
    }
  return m;
}

// SPEC §4: the plan executor (reads the plan) equals the dense reference (reads the table) on
// widths 1,2,1,2,... / 2,1,2,1,... and rows of every type, forward and both backward passes.
LawOutcome lowering(QuiverCase& c) {
  if (c.q.has_loops() || c.q.has_parallel_arrows()) return {true, std::nullopt};
  const gpu::TableData td = gpu::table_data_from_json(table_to_json(c.table), "sweep table");
  const uint32_t q = *td.slot_grid;
  std::vector<uint32_t> in(q), out(q), types;
  for (uint32_t i = 0; i < q; ++i) in[i] = 1 + i % 2, out[i] = 2 - i % 2;
  for (uint32_t i = 0; i < 2 * q; ++i) types.push_back(i % q);
  const gpu::KernelPlan plan = gpu::lower_table(td, in, out);
  const gpu::DenseReference ref(td, in, out);
  const auto M = Eigen::Index(types.size());
  const auto X = integer_matrix(M, Eigen::Index(plan.K()), 1), W = integer_matrix(Eigen::Index(plan.K()), Eigen::Index(plan.N()), 2);
  const auto dY = integer_matrix(M, Eigen::Index(plan.N()), 3);
  if (gpu::plan_forward(plan, X, W, types) != ref.forward(X, W, types)) return fail("forward: executor != dense reference");
  if (gpu::plan_backward_input(plan, dY, W, types) != ref.backward_input(dY, W, types)) return fail("dX: executor != dense reference");
  if (gpu::plan_backward_weight(plan, X, dY, types) != ref.backward_weight(X, dY, types)) return fail("dW: executor != dense reference");
  return holds();
}

struct LawEntry {
  QuiverLaw law;
  Check check;
};

const std::vector<LawEntry>& entries() {
  static const std::vector<LawEntry> all = {
      {{"associative", "SPEC §1", "Q_G is associative"}, associative},
      {{"unit", "SPEC §1", "the unit exists and equals the sum of the e_v"}, unit},
      {{"radical", "SPEC §1", "rad Q_G = span(arrows), rad^2 = 0, dim A/rad = |V|"}, radical},
      {{"t", "SPEC §1", "t(Q_G) = |V|"}, maximal_ideals},
      {{"rank-formula", "SPEC §3", "R(Q_G) = |V| + 2|E| (Alder–Strassen bound = canonical algorithm)"}, rank_formula},
      {{"lowering", "SPEC §4", "plan executor = dense reference (loopless, no parallel arrows)"}, lowering},
  };
  return all;
}

}  // namespace

const std::vector<QuiverLaw>& quiver_laws() {
  static const std::vector<QuiverLaw> laws = [] {
    std::vector<QuiverLaw> out;
    for (const auto& e : entries()) out.push_back(e.law);
    return out;
  }();
  return laws;
}

std::vector<std::string> select_laws(const std::vector<std::string>& names) {
  std::vector<std::string> known;
  for (const auto& l : quiver_laws()) known.push_back(l.name);
  if (names.empty()) return known;
  for (const auto& n : names)
    if (std::find(known.begin(), known.end(), n) == known.end())
      throw InputError(fmt::format("--property {}: unknown (known: {})", n, fmt::join(known, ", ")));
  return names;
}

std::vector<LawOutcome> check_quiver_laws(const Quiver& q, const std::vector<std::string>& names) {
  QuiverCase c{q, graph_algebra(q, Field::rationals()), std::nullopt};
  std::vector<LawOutcome> out;
  for (const auto& n : names) {
    const auto it = std::find_if(entries().begin(), entries().end(), [&](const LawEntry& e) { return e.law.name == n; });
    if (it == entries().end()) throw InputError("unknown sweep law " + n);
    out.push_back(it->check(c));
  }
  return out;
}

}  // namespace qalg::sweep
