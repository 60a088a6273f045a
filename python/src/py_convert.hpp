#pragma once
// Conversions between qalg's exact values and Python objects, shared by the binding files.
// Rationals cross as fractions.Fraction (exact both ways), JSON documents as the dicts and lists
// Python's json module makes, so a dict from the module equals json.loads of the qalg command's
// --json output for the same value.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>

#include "qalg/algebra/structure_tensor.hpp"

namespace qalg::python {

namespace py = pybind11;

// An algebra as the module hands it around: the exact table plus how it was built, in the
// words of the qalg command's AlgebraArgs::describe() ("complete:2 ⊗2 over Q").
struct Algebra {
  StructureTensor table;
  std::string spec;   // "complete:2", "edges", "table.json ⊗ path:3", ...
  std::string field;  // as given, e.g. "Q", "GF(3)"
  // (the table's field by its canonical name: "GF(03)" given reads GF(3))
  std::string description() const { return spec + " over " + table.field().name(); }
};

py::object to_python(const nlohmann::json& j);       // json.loads(j.dump())
nlohmann::json to_json(py::handle value);            // json.dumps(value), parsed
py::object to_fraction(const Rational& r);          // fractions.Fraction
// An int, a Fraction or a "p/q" string, reduced in `field`; floats are refused (not exact).
// Throws InputError naming `what`.
Rational to_rational(py::handle value, const Field& field, const std::string& what);

// An element of the algebra: {basis name or index: coefficient} or a list of dim coefficients.
SparseVector to_element(const StructureTensor& t, py::handle value, const std::string& what);
py::dict from_element(const StructureTensor& t, const SparseVector& v);  // {name: Fraction}

// Optional list of non-negative integers (None or missing means empty).
std::vector<uint64_t> to_u64_list(py::handle value, const std::string& what);

void bind_algebra(py::module_& m);
void bind_rank(py::module_& m);
void bind_costs(py::module_& m);
void bind_lowering(py::module_& m);

}  // namespace qalg::python
