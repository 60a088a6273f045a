// Cost models of row-typed projections from Python (SPEC §4): block support, ρ, per-type and
// schedule MAC counts, square products, gated FFN, decode fraction, attention ceilings,
// crossover. Every count comes from rank/cost_model.hpp; ratios come back as exact Fractions.
#include <charconv>

#include <fmt/core.h>
#include <pybind11/stl.h>

#include "py_convert.hpp"
#include "qalg/algebra/errors.hpp"
#include "qalg/rank/block_support.hpp"
#include "qalg/rank/cost_model.hpp"

namespace qalg::python {
namespace {

// "cyclic" (τ(p) = p mod q) or "intervals:L" (the paper's consecutive intervals).
std::vector<uint64_t> type_rows(const std::string& schedule, uint64_t M, uint32_t q) {
  if (schedule == "cyclic") return cyclic_type_rows(M, q);
  if (schedule.rfind("intervals:", 0) == 0) {
    const std::string L = schedule.substr(10);
    uint64_t length = 0;
    const auto [end, ec] = std::from_chars(L.data(), L.data() + L.size(), length);
    if (ec == std::errc() && end == L.data() + L.size() && length > 0) return interval_type_rows(M, q, length);
  }
  throw InputError(fmt::format("schedule: '{}' is not 'cyclic' or 'intervals:L' with L ≥ 1", schedule));
}

py::dict block_support_dict(const Algebra& a) {
  BlockSupport s = block_support(a.table);
  py::list B;
  for (uint32_t i = 0; i < s.q; ++i) {
    py::list row;
    for (uint32_t j = 0; j < s.q; ++j) {
      py::list cell;
      for (const BlockTerm& term : s.B(i, j)) cell.append(py::make_tuple(term.k, to_fraction(term.coefficient)));
      row.append(cell);
    }
    B.append(row);
  }
  py::dict out;
  out["q"] = s.q;
  out["B"] = B;  // B[i][j] = [(k, c), ...]: y_j += c · x_k W_kj for a type-i row
  out["block_products"] = s.block_products();
  std::vector<size_t> per_type;
  for (uint32_t i = 0; i < s.q; ++i) per_type.push_back(s.block_products_of_type(i));
  out["block_products_of_type"] = per_type;
  return out;
}

py::dict projection_cost_dict(const Algebra& a, uint64_t M, uint64_t K, uint64_t N, py::handle widths,
                              py::handle output_widths, const std::string& schedule) {
  // (M = 0 has no dense product to be a fraction of: the library's fraction 0 read as "0 % of dense";
  // the qalg command refuses it in --shape too)
  if (M == 0) throw InputError("projection_cost: M = 0 rows: there is no dense product to compare with");
  BlockSupport s = block_support(a.table);
  GroupWidths w = group_widths(s.q, K, N, to_u64_list(widths, "widths"),
                               to_u64_list(output_widths, "output_widths"));
  ProjectionCost c = projection_cost(s, w, type_rows(schedule, M, s.q));
  py::dict out;
  out["q"] = s.q;
  out["widths"] = w.in;
  out["output_widths"] = w.out;
  out["type_rows"] = c.type_rows;
  out["type_macs"] = c.type_macs;
  out["forward_macs"] = c.forward;
  out["dense_macs"] = c.dense;
  out["training_macs"] = c.training;
  out["dense_training_macs"] = c.dense_training;
  out["fraction"] = to_fraction(c.fraction);
  return out;
}

}  // namespace

void bind_costs(py::module_& m) {
  m.def("block_support", &block_support_dict, py::arg("algebra"),
        "The row action of a slot-compatible table: {q, B, block_products, block_products_of_type}.");
  m.def("rho", [](const Algebra& a) { return to_fraction(equal_width_fraction(block_support(a.table))); },
        py::arg("algebra"), "ρ: fraction of dense MACs at equal widths and balanced types, Σ|B(i,j)| / q³.");
  m.def("type_block_fraction", [](const Algebra& a, uint32_t i) {
          BlockSupport s = block_support(a.table);
          if (i >= s.q) throw InputError(fmt::format("type_block_fraction: type {} is not below q = {}", i, s.q));
          return to_fraction(type_block_fraction(s, i));
        }, py::arg("algebra"), py::arg("i"), "Block products of a type-i row over the q² of a dense row.");
  m.def("projection_cost", &projection_cost_dict, py::arg("algebra"), py::arg("M"), py::arg("K"), py::arg("N"),
        py::arg("widths") = py::none(), py::arg("output_widths") = py::none(), py::arg("schedule") = "cyclic",
        "MACs of an M×K by K×N row-typed projection: per type, forward, training, fraction of dense.");
  m.def("square_product_macs", [](const Algebra& a, uint64_t b) { return square_product_macs(block_support(a.table), b); },
        py::arg("algebra"), py::arg("b"), "MACs of a square block-algebra product with blocks b×b (n = q·b).");
  m.def("gated_ffn_training", [](const Algebra& a, uint64_t B, uint64_t D, uint64_t F) {
          FfnCost c = gated_ffn_training(block_support(a.table), B, D, F);
          py::dict out;
          out["training_macs"] = c.training;
          out["dense_training_macs"] = c.dense_training;
          return out;
        }, py::arg("algebra"), py::arg("B"), py::arg("D"), py::arg("F"),
        "Training MACs of a gated FFN (widths D, F) on B rows against dense 9BDF.");
  m.def("decode_projection_fraction", [](const Algebra& a, uint64_t D, uint64_t Hq, uint64_t Hkv, uint64_t F, uint64_t g) {
          return to_fraction(decode_projection_fraction(block_support(a.table), D, Hq, Hkv, F, g));
        }, py::arg("algebra"), py::arg("D"), py::arg("Hq"), py::arg("Hkv"), py::arg("F"), py::arg("g"),
        "Per-token projection MACs with dense attention projections and algebraic FFN, over all-dense.");
  m.def("attention_ceilings", [](const Algebra& a) {
          AttentionCeilings c = attention_ceilings(block_support(a.table));
          py::dict out;
          out["score_fraction"] = to_fraction(c.score_fraction);
          out["forward"] = to_fraction(c.forward);
          out["training"] = to_fraction(c.training);
          return out;
        }, py::arg("algebra"), "Structured attention scores: score fraction ρ, ceilings 2/(1+ρ) and 7/(3+4ρ).");
  m.def("crossover_margin", &crossover_margin, py::arg("rho"), py::arg("eta"), py::arg("delta"),
        "1 − (ρ/η + δ): positive when the algebraic kernel beats dense (compute-bound model).");
  m.def("crossover_wins", &crossover_wins, py::arg("rho"), py::arg("eta"), py::arg("delta"));
}

}  // namespace qalg::python
