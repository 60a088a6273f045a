// qalg.Algebra: building an exact table (quiver, edge list, DOT, table file or dict; powers and
// tensor products) and reading it back: basis, entries, products, inspect (SPEC §1–2).
#include <fmt/core.h>
#include <pybind11/stl.h>

#include "py_convert.hpp"
#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/general_structure.hpp"
#include "qalg/algebra/graph_algebra.hpp"
#include "qalg/algebra/quiver_input.hpp"
#include "qalg/algebra/report.hpp"
#include "qalg/algebra/table_io.hpp"
#include "qalg/algebra/tensor_product.hpp"
#include "qalg/rank/rank_report.hpp"

namespace qalg::python {
namespace {

// Tables larger than this are not expanded into a dim × dim Python table (entries() is sparse).
constexpr size_t kMaxDenseTableDim = 256;

Algebra from_quiver(const Quiver& q, const std::string& spec, const std::string& field) {
  return Algebra{graph_algebra(q, Field::parse(field)), spec, field};
}

// An edge list as the qalg command reads it ("source target [name]" lines, lone vertices first),
// so arrow names and basis order are the same as for an edge-list file.
Algebra from_edges(const py::sequence& edges, const std::vector<std::string>& vertices,
                   const std::string& field) {
  auto word = [](py::handle h, const std::string& what) {
    // (str only, as for vertices: str() of anything made None and NaN vertex names)
    if (!py::isinstance<py::str>(h))
      throw InputError(fmt::format("{}: name {} is not a str", what, std::string(py::repr(h))));
    std::string s = py::str(h);
    if (s.empty() || s.find_first_of(" \t\r\n#") != std::string::npos)
      throw InputError(fmt::format("{}: name '{}' must be non-empty, without spaces or '#'", what, s));
    return s;
  };
  std::string text;
  for (size_t v = 0; v < vertices.size(); ++v)
    text += word(py::str(vertices[v]), fmt::format("vertices[{}]", v)) + "\n";
  for (size_t e = 0; e < edges.size(); ++e) {
    std::string what = fmt::format("edges[{}]", e);
    py::sequence edge = py::reinterpret_borrow<py::sequence>(edges[e]);
    if (py::isinstance<py::str>(edges[e]) || edge.size() < 2 || edge.size() > 3)
      throw InputError(fmt::format("{}: expected (source, target) or (source, target, name)", what));
    for (size_t w = 0; w < edge.size(); ++w) {
      if (w) text += ' ';
      text += word(edge[w], what);
    }
    text += '\n';
  }
  return from_quiver(parse_edge_list(text, "edges"), "edges", field);
}

Algebra from_table_file(const std::string& path, const std::optional<std::string>& field) {
  StructureTensor t = read_table_file(path);
  if (field && !(Field::parse(*field) == t.field()))
    throw InputError(fmt::format("{}: table is over {}, but field {} was given", path,
                                 t.field().name(), *field));
  std::string field_text = field.value_or(t.field().name());
  return Algebra{std::move(t), path, field_text};
}

Algebra power(const Algebra& a, unsigned k) {
  if (k < 1) throw InputError("power: k must be at least 1");
  if (k == 1) return a;
  return Algebra{tensor_power(a.table, k), fmt::format("{} ⊗{}", a.spec, k), a.field};
}

Algebra tensor(const Algebra& a, const Algebra& b) {
  if (!(a.table.field() == b.table.field()))
    throw InputError(fmt::format("tensor: field {} differs from {}", b.table.field().name(),
                                 a.table.field().name()));
  return Algebra{tensor_product(a.table, b.table), a.spec + " ⊗ " + b.spec, a.field};
}

// The same object as `qalg inspect --json` (both call inspect_json of rank_report.hpp).
nlohmann::json inspect_report(const Algebra& a, bool with_table) {
  AlgebraReport report = inspect_algebra(a.table);
  RankReport rank = compute_rank_report(a.table, report);
  return inspect_json(a.table, report, rank, a.description(), with_table);
}

// Radical, its powers, the semisimple quotient and its centre from the table (SPEC §2).
py::dict structure(const Algebra& a) {
  GeneralStructure s = analyze_general_structure(a.table);
  py::list radical, idempotents;
  for (const auto& v : s.radical_basis) radical.append(from_element(a.table, v));
  py::dict out;
  out["radical_basis"] = radical;
  out["radical_power_dims"] = s.radical_power_dims;
  out["nilpotency_index"] = s.nilpotency_index;
  out["quotient_dim"] = s.quotient_dim;
  out["centre_dim"] = s.centre_dim;
  out["t"] = s.t;
  out["component_dims"] = s.component_dims;
  out["method"] = s.method;
  out["certificates"] = s.certificates;
  if (s.quotient) {
    for (const auto& v : s.central_idempotents) idempotents.append(from_element(*s.quotient, v));
    out["quotient_basis"] = s.quotient->basis_names();
  }
  out["central_idempotents"] = idempotents;
  return out;
}

py::list entries(const StructureTensor& t) {
  py::list out;
  for (const TensorEntry& e : t.entries()) out.append(py::make_tuple(e.i, e.j, e.k, to_fraction(e.c)));
  return out;
}

// table[i][j] = b_i b_j as {name: coefficient}; empty dict for a zero product.
py::list multiplication_table(const StructureTensor& t) {
  if (t.dim() > kMaxDenseTableDim)
    throw InputError(fmt::format("multiplication_table: dim {} > {}; use entries() for large tables",
                                 t.dim(), kMaxDenseTableDim));
  py::list rows;
  for (uint32_t i = 0; i < t.dim(); ++i) {
    py::list row;
    for (uint32_t j = 0; j < t.dim(); ++j) {
      py::dict cell;
      for (const TensorEntry& e : t.product(i, j)) cell[py::str(t.basis_names()[e.k])] = to_fraction(e.c);
      row.append(cell);
    }
    rows.append(row);
  }
  return rows;
}

}  // namespace

void bind_algebra(py::module_& m) {
  py::class_<Algebra>(m, "Algebra",
                      "A finite-dimensional algebra given by exact structure constants over Q or GF(p).")
      .def_static("quiver", [](const std::string& spec, const std::string& field) {
            return from_quiver(read_quiver(spec), spec, field);
          }, py::arg("spec"), py::arg("field") = "Q",
          "Q_G for a quiver: complete:q, path:n, cycle:n, star:n, random:n,p,seed, or a DOT / edge-list file.")
      .def_static("from_edges", &from_edges, py::arg("edges"), py::arg("vertices") = std::vector<std::string>{},
                  py::arg("field") = "Q",
                  "Q_G for arrows [(source, target[, name]), ...]; `vertices` fixes the first vertices' order "
                  "and adds isolated ones.")
      .def_static("from_dot", [](const std::string& text, const std::string& field) {
            return from_quiver(parse_dot(text, "dot"), "dot", field);
          }, py::arg("text"), py::arg("field") = "Q", "Q_G for a quiver written in DOT.")
      .def_static("from_table_file", &from_table_file, py::arg("path"), py::arg("field") = py::none(),
                  "An algebra from a qalg-table JSON file.")
      .def_static("from_table", [](py::handle table) {
            StructureTensor t = table_from_json(to_json(table), "table");
            std::string field = t.field().name();
            return Algebra{std::move(t), "table", field};
          }, py::arg("table"), "An algebra from a qalg-table dict (the format of table()).")
      .def("power", &power, py::arg("k"), "The k-th tensor power A^{⊗k}.")
      .def("tensor", &tensor, py::arg("other"), "The tensor product A ⊗ B (basis pairs, SPEC §2).")
      .def_property_readonly("dim", [](const Algebra& a) { return a.table.dim(); })
      .def_property_readonly("nnz", [](const Algebra& a) { return a.table.nnz(); })
      .def_property_readonly("field", [](const Algebra& a) { return a.table.field().name(); })
      .def_property_readonly("basis", [](const Algebra& a) { return a.table.basis_names(); })
      .def_property_readonly("description", &Algebra::description)
      .def_property_readonly("slot_grid", [](const Algebra& a) -> std::optional<uint32_t> {
            if (!a.table.slots()) return std::nullopt;
            return a.table.slot_grid();
          }, "q when every basis element has a cell of a q×q grid (SPEC §4), else None.")
      .def("entries", [](const Algebra& a) { return entries(a.table); },
           "The nonzero structure constants as (i, j, k, c_ij^k), sorted, c a Fraction.")
      .def("coefficient", [](const Algebra& a, uint32_t i, uint32_t j, uint32_t k) {
            if (i >= a.table.dim() || j >= a.table.dim() || k >= a.table.dim())
              throw InputError(fmt::format("coefficient: index out of range 0..{}", a.table.dim() - 1));
            return to_fraction(a.table.coefficient(i, j, k));
          }, py::arg("i"), py::arg("j"), py::arg("k"))
      .def("multiply", [](const Algebra& a, py::handle x, py::handle y) {
            return from_element(a.table, sparse_product(a.table, to_element(a.table, x, "x"),
                                                        to_element(a.table, y, "y")));
          }, py::arg("x"), py::arg("y"), "x·y for elements given as {basis name: coefficient} or coordinate lists.")
      .def("multiplication_table", [](const Algebra& a) { return multiplication_table(a.table); },
           "table[i][j] = b_i·b_j as {basis name: coefficient} (dim ≤ 256).")
      .def("inspect", [](const Algebra& a, bool table) { return to_python(inspect_report(a, table)); },
           py::arg("table") = false, "The report of `qalg inspect --json` as a dict (same fields).")
      .def("structure", &structure,
           "Radical basis, radical powers, nilpotency index, quotient, centre and t(A) from the table.")
      .def("radical", [](const Algebra& a) { return structure(a)["radical_basis"]; },
           "A basis of the Jacobson radical, each element as {basis name: coefficient}.")
      .def("table", [](const Algebra& a) { return to_python(table_to_json(a.table)); },
           "The qalg-table dict (the table file format).")
      .def("table_hash", [](const Algebra& a) { return table_hash(a.table); })
      .def("write_table", [](const Algebra& a, const std::string& path) { write_table_file(a.table, path); },
           py::arg("path"), "Writes the qalg-table JSON file atomically.")
      .def("__repr__", [](const Algebra& a) {
            return fmt::format("<qalg.Algebra {}: dim {}, nnz {}>", a.description(), a.table.dim(), a.table.nnz());
          });
}

}  // namespace qalg::python
