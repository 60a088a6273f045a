// Lowering to a KernelPlan from Python (SPEC §4): the plan as the qalg-plan dict that
// `qalg lower --out` writes, and the plan-side MAC counts (gpu/plan_costs.hpp), which are
// computed from the plan alone and so cross-check the cost models of rank/.
#include <fmt/core.h>
#include <pybind11/stl.h>

#include "py_convert.hpp"
#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/table_io.hpp"
#include "qalg/gpu/lowering.hpp"
#include "qalg/gpu/plan_costs.hpp"

namespace qalg::python {
namespace {

// Widths as an int (all groups), a list of ints, or the --widths text ("64x2,32,32").
std::vector<uint32_t> widths_of(py::handle value, uint32_t q, const std::string& what) {
  if (py::isinstance<py::str>(value)) return gpu::parse_widths(py::str(value), q, what);
  if (py::isinstance<py::int_>(value)) return gpu::parse_widths(std::string(py::str(value)), q, what);
  std::string text;
  for (uint64_t w : to_u64_list(value, what)) text += fmt::format("{}{}", text.empty() ? "" : ",", w);
  return gpu::parse_widths(text, q, what);
}

// The exact table as the gpu module reads it: through the table file format, whose reader
// also computes the same table hash as table_hash() for the plan.
gpu::TableData table_data(const StructureTensor& t) {
  return gpu::table_data_from_json(table_to_json(t), "algebra");
}

gpu::KernelPlan plan_of(py::handle plan) { return gpu::plan_from_json(to_json(plan), "plan"); }

py::object lower(const Algebra& a, py::handle widths, py::handle output_widths, const std::string& out) {
  gpu::TableData t = table_data(a.table);
  gpu::check_slot_compatible(t);
  const uint32_t q = *t.slot_grid;
  std::vector<uint32_t> s = widths_of(widths, q, "widths");
  std::vector<uint32_t> r = output_widths.is_none() ? s : widths_of(output_widths, q, "output_widths");
  nlohmann::json plan = gpu::plan_to_json(gpu::lower_table(t, s, r));
  if (!out.empty()) write_text_atomically(plan.dump() + "\n", out);
  return to_python(plan);
}

}  // namespace

void bind_lowering(py::module_& m) {
  m.def("lower", &lower, py::arg("algebra"), py::arg("widths"), py::arg("output_widths") = py::none(),
        py::arg("out") = "",
        "The KernelPlan of a slot-compatible table as a qalg-plan dict; written to `out` when given. "
        "Widths: an int, a list of q ints, or text such as '64x2,32,32'.");
  m.def("check_slot_compatible", [](const Algebra& a) { gpu::check_slot_compatible(table_data(a.table)); },
        py::arg("algebra"), "Raises ValueError naming the failed condition when the table is not slot-compatible.");
  m.def("read_plan", [](const std::string& path) { return to_python(gpu::plan_to_json(gpu::read_plan_file(path))); },
        py::arg("path"));
  m.def("plan_macs_per_row", [](py::handle plan) {
          gpu::KernelPlan p = plan_of(plan);
          std::vector<uint64_t> macs;
          for (uint32_t i = 0; i < p.q; ++i) macs.push_back(p.macs_per_row(i));
          return macs;
        }, py::arg("plan"), "C_i for each row type i, read from the plan.");
  m.def("plan_density", [](py::handle plan) { return gpu::balanced_density(plan_of(plan)); }, py::arg("plan"),
        "Σ_i C_i / (q K N) from the plan (ρ_q at equal widths), as a float.");
  m.def("plan_forward_macs", [](py::handle plan, const std::vector<uint32_t>& row_types) {
          gpu::KernelPlan p = plan_of(plan);
          for (size_t r = 0; r < row_types.size(); ++r)
            if (row_types[r] >= p.q)
              throw InputError(fmt::format("row_types[{}] = {} is not below q = {}", r, row_types[r], p.q));
          return gpu::forward_macs(p, row_types);
        }, py::arg("plan"), py::arg("row_types"), "Σ over rows of C_τ(p) for explicit row types.");
  m.def("plan_square_product_macs", [](py::handle plan) { return gpu::square_product_macs(plan_of(plan)); },
        py::arg("plan"), "Σ_a s_a C_a: MACs of a square block product with the plan's widths.");
}

}  // namespace qalg::python
