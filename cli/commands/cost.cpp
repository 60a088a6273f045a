// qalg cost: arithmetic of row-typed projections for one algebra and shape (SPEC §4), every count
// summed over the table's block support. Exit 0; 2 on bad input (e.g. widths that do not add up).
#include <iostream>
#include <sstream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "algebra_args.hpp"
#include "command_registry.hpp"
#include "qalg/algebra/errors.hpp"
#include "qalg/rank/block_support.hpp"
#include "qalg/rank/cost_model.hpp"

namespace qalg::cli {
namespace {

struct CostOptions {
  AlgebraArgs algebra;
  std::string shape, widths, output_widths, schedule = "cyclic";
  bool json = false;
};

std::vector<uint64_t> parse_list(const std::string& text, const std::string& option) {
  std::vector<uint64_t> out;
  if (text.empty()) return out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t used = 0;
    uint64_t v = 0;
    try {
      if (item.empty() || item[0] == '-') throw std::invalid_argument(item);
      v = std::stoull(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size())
      throw InputError(fmt::format("{}: '{}' is not a non-negative integer (in '{}')", option, item,
                                   text));
    out.push_back(v);
  }
  return out;
}

double approx(const Rational& r) { return fmpq_get_d(r.get()); }

int run_cost(const CostOptions& o) {
  std::vector<uint64_t> shape = parse_list(o.shape, "--shape");
  if (shape.size() != 3 || shape[0] == 0 || shape[1] == 0 || shape[2] == 0)
    throw InputError(fmt::format("--shape: expected M,K,N (three positive integers), got '{}'",
                                 o.shape));
  const uint64_t M = shape[0], K = shape[1], N = shape[2];
  StructureTensor t = o.algebra.build();
  BlockSupport s = block_support(t);
  GroupWidths w = group_widths(s.q, K, N, parse_list(o.widths, "--widths"),
                               parse_list(o.output_widths, "--output-widths"));
  std::vector<uint64_t> rows;
  if (o.schedule == "cyclic") {
    rows = cyclic_type_rows(M, s.q);
  } else if (o.schedule.rfind("intervals:", 0) == 0) {
    auto L = parse_list(o.schedule.substr(10), "--schedule intervals:L");
    if (L.size() != 1) throw InputError("--schedule: expected intervals:L with one length L");
    rows = interval_type_rows(M, s.q, L[0]);
  } else {
    throw InputError(fmt::format("--schedule: '{}' is not 'cyclic' or 'intervals:L'", o.schedule));
  }
  ProjectionCost c = projection_cost(s, w, rows);
  Rational rho = equal_width_fraction(s);
  AttentionCeilings att = attention_ceilings(s);
  // Square block products apply when the projection is an n×n by n×n product with n = q·b.
  bool square = M == K && K == N && K % s.q == 0;
  uint64_t b = K / s.q;

  if (o.json) {
    nlohmann::json types = nlohmann::json::array();
    for (uint32_t i = 0; i < s.q; ++i)
      types.push_back({{"type", i}, {"rows", c.type_rows[i]}, {"macs_per_row", c.type_macs[i]},
                       {"block_products", s.block_products_of_type(i)}});
    nlohmann::json out = {
        {"algebra", o.algebra.describe()}, {"q", s.q}, {"shape", {M, K, N}},
        {"widths", w.in}, {"output_widths", w.out}, {"schedule", o.schedule},
        {"block_products", s.block_products()}, {"dense_block_products", uint64_t{s.q} * s.q * s.q},
        {"rho_equal_widths", rho.str()}, {"types", types},
        {"forward_macs", c.forward}, {"dense_macs", c.dense}, {"fraction", c.fraction.str()},
        {"training_macs", c.training}, {"dense_training_macs", c.dense_training},
        {"attention", {{"score_fraction", att.score_fraction.str()},
                       {"forward_ceiling", att.forward.str()},
                       {"training_ceiling", att.training.str()}}}};
    if (square)
      out["square_products"] = {{"n", K}, {"b", b}, {"macs", square_product_macs(s, b)},
                                {"dense_macs", K * K * K}};
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  fmt::print("cost of {}: q = {} groups, shape M={} K={} N={}, {} types\n", o.algebra.describe(),
             s.q, M, K, N, o.schedule);
  fmt::print("block support: {} of {} block products per full table (ρ = {} ≈ {:.4f} at equal "
             "widths)\n", s.block_products(), uint64_t{s.q} * s.q * s.q, rho.str(), approx(rho));
  fmt::print("  type       rows   MACs/row (decode)   block products\n");
  for (uint32_t i = 0; i < s.q; ++i)
    fmt::print("  {:>4} {:>10} {:>19} {:>16}\n", i, c.type_rows[i], c.type_macs[i],
               s.block_products_of_type(i));
  fmt::print("forward MACs:  {} of dense {} (fraction {} ≈ {:.4f})\n", c.forward, c.dense,
             c.fraction.str(), approx(c.fraction));
  fmt::print("training MACs: {} of dense {} (forward + dX + dW = 3 × forward)\n", c.training,
             c.dense_training);
  fmt::print("attention scores (balanced types, dense P·V): fraction {}, forward ceiling {} ≈ "
             "{:.3f}×, training ceiling {} ≈ {:.3f}×\n", att.score_fraction.str(),
             att.forward.str(), approx(att.forward), att.training.str(), approx(att.training));
  if (square)
    fmt::print("square products n = {} = {}·{}: {} MACs against dense {}\n", K, s.q, b,
               square_product_macs(s, b), K * K * K);
  return 0;
}

const RegisterCommand kRegisterCost{Command{
    "cost", "MAC counts of row-typed projections for an algebra and a shape M,K,N",
    [](CLI::App& sub) -> std::function<int()> {
      auto o = std::make_shared<CostOptions>();
      o->algebra.add_to(sub);
      sub.add_option("--shape", o->shape, "M,K,N: rows, input features, output features")
          ->required();
      sub.add_option("--widths", o->widths, "input group widths s_0,...,s_{q-1} (sum K)");
      sub.add_option("--output-widths", o->output_widths,
                     "output group widths r_0,...,r_{q-1} (sum N); default equal");
      sub.add_option("--schedule", o->schedule, "token types: cyclic (default) or intervals:L");
      sub.add_flag("--json", o->json, "machine-readable output");
      return [o] { return run_cost(*o); };
    }}};

}  // namespace
}  // namespace qalg::cli
