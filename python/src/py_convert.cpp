// Conversions between exact qalg values and Python objects (py_convert.hpp).
#include "py_convert.hpp"

#include <optional>

#include <fmt/core.h>

#include "qalg/algebra/errors.hpp"

namespace qalg::python {

py::object to_python(const nlohmann::json& j) {
  return py::module_::import("json").attr("loads")(j.dump());
}

nlohmann::json to_json(py::handle value) {
  // allow_nan=False: json.dumps writes NaN and Infinity otherwise, which are not JSON (nlohmann's
  // parse error reached Python as a RuntimeError); a value json cannot write is the caller's too.
  std::string text;
  try {
    text = py::str(py::module_::import("json").attr("dumps")(value, py::arg("allow_nan") = false));
  } catch (const py::error_already_set& e) {
    if (!e.matches(PyExc_ValueError) && !e.matches(PyExc_TypeError)) throw;
    throw InputError(fmt::format("not a JSON document of exact values ({}): NaN and infinities have no place in a "
                                 "table, algorithm or plan",
                                 e.what()));
  }
  return nlohmann::json::parse(text);
}

py::object to_fraction(const Rational& r) {
  return py::module_::import("fractions").attr("Fraction")(r.str());
}

Rational to_rational(py::handle value, const Field& field, const std::string& what) {
  if (py::isinstance<py::bool_>(value) || py::isinstance<py::float_>(value))
    throw InputError(fmt::format("{}: coefficient {} is not exact: give an int, a Fraction or a "
                                 "'p/q' string", what, std::string(py::repr(value))));
  std::string text = py::str(value);
  Rational r;
  if (!Rational::parse(text, r))
    throw InputError(fmt::format("{}: '{}' is not a rational number", what, text));
  try {
    field.reduce(r);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", what, e.what()));
  }
  return r;
}

namespace {

// A Python int (not a bool) that fits in 64 bits unsigned, else nullopt. Why not cast<long long>:
// an int beyond 64 bits made pybind11 raise RuntimeError "Unable to cast".
std::optional<uint64_t> as_u64(py::handle h) {
  if (!py::isinstance<py::int_>(h) || py::isinstance<py::bool_>(h)) return std::nullopt;
  const unsigned long long v = PyLong_AsUnsignedLongLong(h.ptr());
  if (PyErr_Occurred()) {  // negative, or 2^64 and beyond
    PyErr_Clear();
    return std::nullopt;
  }
  return uint64_t(v);
}

uint32_t basis_index(const StructureTensor& t, py::handle key, const std::string& what) {
  if (py::isinstance<py::str>(key)) {
    std::string name = py::str(key);
    const auto& names = t.basis_names();
    for (size_t b = 0; b < names.size(); ++b)
      if (names[b] == name) return uint32_t(b);
    throw InputError(fmt::format("{}: '{}' is not a basis element", what, name));
  }
  if (py::isinstance<py::int_>(key) && !py::isinstance<py::bool_>(key)) {
    const std::optional<uint64_t> b = as_u64(key);
    if (!b || *b >= t.dim())
      throw InputError(fmt::format("{}: index {} is outside the basis 0..{}", what, std::string(py::repr(key)), t.dim() - 1));
    return uint32_t(*b);
  }
  throw InputError(fmt::format("{}: key {} is neither a basis name nor an index", what,
                               std::string(py::repr(key))));
}

}  // namespace

SparseVector to_element(const StructureTensor& t, py::handle value, const std::string& what) {
  std::vector<Rational> dense(t.dim());
  if (py::isinstance<py::dict>(value)) {
    for (auto [key, c] : py::reinterpret_borrow<py::dict>(value)) {
      uint32_t b = basis_index(t, key, what);
      dense[b] = t.field().add(dense[b], to_rational(c, t.field(), what));
    }
  } else if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    py::sequence seq = py::reinterpret_borrow<py::sequence>(value);
    if (seq.size() != t.dim())
      throw InputError(fmt::format("{}: {} coordinates given, the algebra has dimension {}", what,
                                   seq.size(), t.dim()));
    for (size_t b = 0; b < seq.size(); ++b) dense[b] = to_rational(seq[b], t.field(), what);
  } else {
    throw InputError(fmt::format("{}: expected a dict {{basis name: coefficient}} or a list of {} "
                                 "coordinates", what, t.dim()));
  }
  SparseVector v;
  for (size_t b = 0; b < dense.size(); ++b)
    if (!dense[b].is_zero()) v.emplace_back(uint32_t(b), dense[b]);
  return v;
}

py::dict from_element(const StructureTensor& t, const SparseVector& v) {
  py::dict out;
  for (const auto& [b, c] : v) out[py::str(t.basis_names()[b])] = to_fraction(c);
  return out;
}

std::vector<uint64_t> to_u64_list(py::handle value, const std::string& what) {
  std::vector<uint64_t> out;
  if (value.is_none()) return out;
  for (py::handle item : py::reinterpret_borrow<py::iterable>(value)) {
    const std::optional<uint64_t> v = as_u64(item);
    if (!v)
      throw InputError(fmt::format("{}: {} is not an integer in 0 .. 2^64 - 1", what, std::string(py::repr(item))));
    out.push_back(*v);
  }
  return out;
}

}  // namespace qalg::python
