// qalg inspect: the structure report of one algebra (SPEC §1–3), readable or --json.
#include <iostream>

#include <fmt/core.h>

#include "algebra_args.hpp"
#include "command_registry.hpp"
#include "qalg/algebra/report.hpp"
#include "qalg/algebra/table_io.hpp"
#include "qalg/rank/rank_report.hpp"

namespace qalg::cli {

namespace {

std::string yes_no(bool b) { return b ? "yes" : "no"; }
template <class T>
std::string or_dash(const std::optional<T>& v) { return v ? fmt::format("{}", *v) : "—"; }

void print_table(const StructureTensor& t) {
  const auto& n = t.basis_names();
  std::cout << "\nmultiplication table (nonzero products b_i·b_j):\n";
  for (uint32_t i = 0; i < t.dim(); ++i) {
    auto row = t.row(i);
    for (size_t p = 0; p < row.size();) {
      uint32_t j = row[p].j;
      std::string rhs;
      for (; p < row.size() && row[p].j == j; ++p)
        rhs += (rhs.empty() ? "" : " + ") + (row[p].c.is_one() ? "" : row[p].c.str() + "·") + n[row[p].k];
      std::cout << fmt::format("  {} · {} = {}\n", n[i], n[j], rhs);
    }
  }
}

int run_inspect(const AlgebraArgs& args, bool json, bool table) {
  StructureTensor t = args.build();
  AlgebraReport a = inspect_algebra(t);
  RankReport r = compute_rank_report(t, a);
  if (json) {
    nlohmann::json j = inspect_json(t, a, r, args.describe(), table);
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  const auto& n = t.basis_names();
  std::cout << fmt::format("algebra        {}\n", args.describe());
  std::cout << fmt::format("field          {}\n", a.field);
  if (a.vertices) std::cout << fmt::format("quiver         {} vertices, {} arrows\n", *a.vertices, *a.arrows);
  std::cout << fmt::format("dim            {}\nnnz            {}\n", a.dim, a.nnz);
  std::cout << fmt::format("associative    {}", yes_no(a.associativity.associative));
  if (const auto& w = a.associativity.witness)
    std::cout << fmt::format("  (witness: ({}·{})·{} and {}·({}·{}) differ on {}: {} vs {})", n[w->i], n[w->j], n[w->l],
                             n[w->i], n[w->j], n[w->l], n[w->coordinate], w->left.str(), w->right.str());
  std::cout << "\n";
  if (a.unit) {
    std::string u;
    if (a.unit_is_vertex_sum && *a.unit_is_vertex_sum) u = "Σ e_v";
    else
      for (const auto& [b, c] : *a.unit) u += (u.empty() ? "" : " + ") + (c.is_one() ? "" : c.str() + "·") + n[b];
    std::cout << fmt::format("unit           {}\n", u);
  } else {
    std::cout << fmt::format("unit           none ({})\n", a.unit_failure);
  }
  std::cout << fmt::format("radical        dim {}, J² = 0: {}, nilpotency index {}  [{} route]\n", or_dash(a.radical_dim),
                           a.radical_squared_zero ? yes_no(*a.radical_squared_zero) : "—", or_dash(a.nilpotency_index),
                           a.route);
  std::cout << fmt::format("A / rad A      dim {}\n", or_dash(a.quotient_dim));
  std::cout << fmt::format("t(A)           {}\n", or_dash(a.t));
  for (const auto& b : r.bounds) std::cout << fmt::format("bound          {} ≥ {}  ({})\n", b.name, b.value, b.hypothesis);
  std::cout << fmt::format("algorithm      length {} ({}, {})\n", r.explicit_length, r.explicit_algorithm,
                           r.explicit_verified ? "verified exactly" : "NOT verified");
  if (r.rank_exact) std::cout << fmt::format("rank           R(A) = {} exactly (bound meets algorithm)\n", *r.rank_exact);
  else std::cout << fmt::format("rank           R(A) in [{}, {}]\n", r.best_lower_bound, r.explicit_length);
  for (const auto& note : a.notes) std::cout << "note           " << note << "\n";
  for (const auto& note : r.notes) std::cout << "note           " << note << "\n";
  if (table) print_table(t);
  return 0;
}

// A name of its own (not `reg`): the unity build compiles the command files as one source.
const RegisterCommand kRegisterInspect{Command{
    "inspect", "structure report: associativity, unit, radical, t(A), rank bounds",
    [](CLI::App& sub) -> std::function<int()> {
      auto args = std::make_shared<AlgebraArgs>();
      auto json = std::make_shared<bool>(false);
      auto table = std::make_shared<bool>(false);
      args->add_to(sub);
      sub.add_flag("--json", *json, "one JSON object instead of the readable report");
      sub.add_flag("--table", *table, "also print the multiplication table");
      return [args, json, table] { return run_inspect(*args, *json, *table); };
    }}};

}  // namespace

}  // namespace qalg::cli
