// The qalg Python module (issue 10): exact graph algebras and tables, rank, costs, lowering.
// Bad input raises qalg.InputError (a ValueError) with the one-line message the qalg command
// prints; the gpu module's std::invalid_argument arrives as ValueError too.
#include "py_convert.hpp"
#include "qalg/algebra/errors.hpp"

PYBIND11_MODULE(qalg, m) {
  namespace py = pybind11;
  m.doc() = "qalg: graph algebras Q_G (J² = 0), their bilinear rank, cost models and kernel plans";
  py::register_exception<qalg::InputError>(m, "InputError", PyExc_ValueError);
  qalg::python::bind_algebra(m);
  qalg::python::bind_rank(m);
  qalg::python::bind_costs(m);
  qalg::python::bind_lowering(m);
}
