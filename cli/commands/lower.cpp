// qalg lower: lower a slot-compatible table to a KernelPlan (SPEC §4) and write it as JSON.
//   qalg lower GRAPH|--table-file F --widths W [--output-widths W2] [--json] --out plan.json
// Prints q, K, N, the sizes |B(i, j)|, MACs per row type and ρ. Exit 2 on bad input (bad widths,
// a table that is not slot-compatible, a table over GF(p)); the plan is written atomically.
#include <algorithm>
#include <iostream>
#include <map>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "algebra_args.hpp"
#include "command_registry.hpp"
#include "qalg/algebra/associativity.hpp"
#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/table_io.hpp"
#include "qalg/gpu/fraction.hpp"
#include "qalg/gpu/lowering.hpp"
#include "qalg/gpu/plan_costs.hpp"

namespace qalg::cli {
namespace {

struct LowerOptions {
  AlgebraArgs algebra;
  std::string widths, output_widths, out;
  bool json = false;
};

// The exact table as the gpu module sees it: int64 fractions (overflow is an input error).
gpu::TableData to_table_data(const StructureTensor& t) {
  gpu::TableData d;
  d.field = t.field().name();
  d.dim = uint32_t(t.dim());
  d.basis = t.basis_names();
  d.entries.reserve(t.nnz());
  for (const TensorEntry& e : t.entries()) {
    gpu::Fraction c;
    try {
      c = gpu::parse_fraction(e.c.str());
    } catch (const std::invalid_argument& err) {
      throw std::invalid_argument(fmt::format("c_{{{},{}}}^{}: {}", t.basis_names()[e.i],
                                              t.basis_names()[e.j], t.basis_names()[e.k], err.what()));
    }
    d.entries.push_back({e.i, e.j, e.k, c.num, c.den});
  }
  if (t.slots()) {
    d.slot_grid = t.slot_grid();
    for (const Slot& s : *t.slots()) d.slots.emplace_back(s.row, s.col);
  }
  d.hash = table_hash(t);
  return d;
}

// Widths in the --widths syntax, runs compressed: "64x2,32".
std::string join(const std::vector<uint32_t>& v) {
  std::string s;
  for (size_t a = 0, b = 0; a < v.size(); a = b) {
    while (b < v.size() && v[b] == v[a]) ++b;
    s += (s.empty() ? "" : ",") + std::to_string(v[a]) + (b - a > 1 ? "x" + std::to_string(b - a) : "");
  }
  return s;
}

int run_lower(const LowerOptions& o) {
  const StructureTensor algebra = o.algebra.build();
  // A kernel plan is for an algebra: a non-associative table is refused (as `export` refuses it),
  // with the triple that shows it, before anything is written.
  if (const AssociativityResult a = check_associativity(algebra); !a.associative) {
    const AssociativityWitness& w = *a.witness;
    const auto& b = algebra.basis_names();
    throw InputError(fmt::format("the table is not associative: ({0}·{1})·{2} and {0}·({1}·{2}) differ on {3} ({4} against "
                                 "{5}); lower takes the table of an associative algebra",
                                 b[w.i], b[w.j], b[w.l], b[w.coordinate], w.left.str(), w.right.str()));
  }
  gpu::TableData table = to_table_data(algebra);
  gpu::check_slot_compatible(table);  // names the failing condition before widths are read
  const uint32_t q = *table.slot_grid;
  std::vector<uint32_t> s = gpu::parse_widths(o.widths, q, "--widths");
  std::vector<uint32_t> r =
      gpu::parse_widths(o.output_widths.empty() ? o.widths : o.output_widths, q,
                        o.output_widths.empty() ? "--widths" : "--output-widths");
  gpu::KernelPlan plan = gpu::lower_table(table, s, r);
  write_text_atomically(gpu::plan_to_json(plan).dump() + "\n", o.out);

  std::map<size_t, uint64_t> term_histogram;  // |B(i, j)| -> number of (i, j)
  for (const auto& terms : plan.terms) ++term_histogram[terms.size()];
  std::vector<uint64_t> macs;
  for (uint32_t i = 0; i < q; ++i) macs.push_back(plan.macs_per_row(i));
  const double rho = gpu::balanced_density(plan);

  if (o.json) {
    nlohmann::json hist = nlohmann::json::object();
    for (auto [size, count] : term_histogram) hist[std::to_string(size)] = count;
    nlohmann::json j = {{"algebra", o.algebra.describe()}, {"table_hash", plan.table_hash},
                        {"q", q}, {"K", plan.K()}, {"N", plan.N()},
                        {"input_widths", s}, {"output_widths", r},
                        {"B_size_histogram", hist}, {"macs_per_row", macs},
                        {"density", rho}, {"plan", o.out}};
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  fmt::print("lowered {} (table {})\n", o.algebra.describe(), plan.table_hash.substr(0, 16));
  fmt::print("q = {} groups; K = {} (s = {}); N = {} (r = {})\n", q, plan.K(), join(s), plan.N(), join(r));
  std::string hist;
  for (auto [size, count] : term_histogram) hist += fmt::format("  |B| = {}: {}", size, count);
  fmt::print("B(i, j) sizes over the {} pairs (i, j):{}\n", uint64_t(q) * q, hist);
  if (q <= 8) {
    fmt::print("|B(i, j)| (row i = type, column j = output group):\n");
    for (uint32_t i = 0; i < q; ++i) {
      std::string row;
      for (uint32_t j = 0; j < q; ++j) row += fmt::format(" {:>2}", plan.B(i, j).size());
      fmt::print("  {:>3}:{}\n", i, row);
    }
  }
  if (q <= 16) {
    for (uint32_t i = 0; i < q; ++i) fmt::print("  type {:>3}: {} MACs per row\n", i, macs[i]);
  } else {
    auto [lo, hi] = std::minmax_element(macs.begin(), macs.end());
    fmt::print("  MACs per row: {} to {} over the {} types\n", *lo, *hi, q);
  }
  fmt::print("ρ = Σ_i C_i / (q·K·N) = {:.6f} of dense ({} MACs per row)\n", rho, plan.K() * plan.N());
  fmt::print("wrote {}\n", o.out);
  return 0;
}

const RegisterCommand kRegisterLower{Command{
    "lower", "lower a slot-compatible table to a GPU kernel plan (JSON)",
    [](CLI::App& sub) -> std::function<int()> {
      auto o = std::make_shared<LowerOptions>();
      o->algebra.add_to(sub);
      sub.add_option("--widths", o->widths,
                     "input group widths: '64,32,...' (one per group), '64x4', or one number for all")
          ->required();
      sub.add_option("--output-widths", o->output_widths, "output group widths (default: --widths)");
      sub.add_flag("--json", o->json, "print the plan summary as JSON");
      sub.add_option("--out", o->out, "plan file to write (qalg-plan JSON)")->required();
      return [o] { return run_lower(*o); };
    }}};

}  // namespace
}  // namespace qalg::cli
