// Bilinear rank from Python (SPEC §3): the rank report (bounds, best verified algorithm),
// explicit algorithms as qalg-algorithm dicts, exact verification of a given algorithm.
#include <fmt/core.h>

#include "py_convert.hpp"
#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/report.hpp"
#include "qalg/rank/algorithm_io.hpp"
#include "qalg/rank/algorithms.hpp"
#include "qalg/rank/rank_report.hpp"

namespace qalg::python {
namespace {

// A qalg-algorithm dict, or the path of a qalg-algorithm JSON file.
BilinearAlgorithm to_algorithm(py::handle value, const std::string& what) {
  if (py::isinstance<py::str>(value)) return read_algorithm_file(py::str(value));
  if (py::isinstance<py::dict>(value)) return algorithm_from_json(to_json(value), what);
  throw InputError(fmt::format("{}: expected a qalg-algorithm dict or a file path", what));
}

py::object algorithm_dict(const BilinearAlgorithm& a) { return to_python(algorithm_to_json(a)); }

// The verdict of verify_algorithm; a field or dimension that does not match is bad input.
py::dict verify(const Algebra& a, py::handle algorithm) {
  BilinearAlgorithm alg = to_algorithm(algorithm, "algorithm");
  require_compatible(alg, a.table, "algorithm");
  VerificationResult v = verify_algorithm(alg, a.table);
  py::dict out;
  out["verified"] = v.verified;
  out["length"] = alg.length();
  out["failure"] = v.failure;
  if (v.mismatch) {
    const auto& n = a.table.basis_names();
    py::dict m;
    m["i"] = n[v.mismatch->i];
    m["j"] = n[v.mismatch->j];
    m["k"] = n[v.mismatch->k];
    m["algorithm_value"] = to_fraction(v.mismatch->algorithm_value);
    m["table_value"] = to_fraction(v.mismatch->table_value);
    out["mismatch"] = m;
  } else {
    out["mismatch"] = py::none();
  }
  return out;
}

py::object rank_report(const Algebra& a, py::handle algorithm) {
  std::optional<BilinearAlgorithm> extra;
  if (!algorithm.is_none()) {
    extra = to_algorithm(algorithm, "algorithm");
    require_compatible(*extra, a.table, "algorithm");
  }
  AlgebraReport report = inspect_algebra(a.table);
  return to_python(to_json(compute_rank_report(a.table, report, extra)));
}

}  // namespace

void bind_rank(py::module_& m) {
  m.def("rank_report", &rank_report, py::arg("algebra"), py::arg("algorithm") = py::none(),
        "Every applicable lower bound on R(A), the shortest verified algorithm and the exact rank when "
        "they meet (the 'rank' object of `qalg rank --json`). `algorithm` (dict or file) is verified "
        "and used when shorter.");
  m.def("bounds", [](const Algebra& a) { return rank_report(a, py::none())["bounds"]; },
        py::arg("algebra"), "The applicable lower bounds: [{name, value, hypothesis}, ...].");
  m.def("canonical_algorithm", [](const Algebra& a) { return algorithm_dict(canonical_graph_algorithm(a.table)); },
        py::arg("algebra"), "The canonical algorithm of Q_G, length |V| + 2|E| (SPEC §3), read off the quiver.");
  m.def("product_algorithm", [](const Algebra& a) { return algorithm_dict(product_algorithm(a.table)); },
        py::arg("algebra"), "One product per nonzero pair b_i b_j; works for any table.");
  m.def("best_algorithm", [](const Algebra& a) {
          KnownAlgorithm k = best_known_algorithm(a.table, std::nullopt);
          if (!k.verified) throw InputError("best_algorithm: no algorithm qalg knows verifies for this table");
          return algorithm_dict(k.algorithm);
        }, py::arg("algebra"), "The shortest algorithm qalg knows for the table, verified exactly.");
  m.def("tensor_product_algorithm", [](py::handle x, py::handle y) {
          return algorithm_dict(tensor_product_algorithm(to_algorithm(x, "a"), to_algorithm(y, "b")));
        }, py::arg("a"), py::arg("b"), "An algorithm for A ⊗ B of length r_A · r_B.");
  m.def("verify_algorithm", &verify, py::arg("algebra"), py::arg("algorithm"),
        "Exact check that Σ α⊗β⊗γ equals the table: {verified, length, failure, mismatch}.");
  m.def("read_algorithm", [](const std::string& path) { return algorithm_dict(read_algorithm_file(path)); },
        py::arg("path"));
  m.def("write_algorithm", [](py::handle algorithm, const std::string& path) {
          write_algorithm_file(to_algorithm(algorithm, "algorithm"), path);
        }, py::arg("algorithm"), py::arg("path"), "Writes a qalg-algorithm JSON file atomically.");
}

}  // namespace qalg::python
