// Shared algebra options: resolve GRAPH / --table-file, --tensor and --power into one table.
#include "algebra_args.hpp"

#include <fmt/core.h>

#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/graph_algebra.hpp"
#include "qalg/algebra/quiver_input.hpp"
#include "qalg/algebra/table_io.hpp"
#include "qalg/algebra/tensor_product.hpp"

namespace qalg::cli {

void AlgebraArgs::add_to(CLI::App& app) {
  app.add_option("GRAPH", graph,
                 "quiver: complete:q, path:n, cycle:n, star:n, random:n,p,seed, a DOT file or an edge list");
  app.add_option("--table-file", table_file, "structure table (qalg-table JSON) instead of GRAPH");
  app.add_option("--field", field, "coefficient field: Q (default) or GF(p)");
  app.add_option("--power", power, "k-th tensor power of the algebra (default 1)");
  app.add_option("--tensor", tensor, "tensor with a second algebra (GRAPH or table .json)");
}

static StructureTensor load_one(const std::string& spec, const Field& field, bool is_table) {
  if (is_table) {
    StructureTensor t = read_table_file(spec);
    if (!(t.field() == field) && !(field.is_rationals()))
      throw InputError(fmt::format("{}: table is over {}, but --field {} was given", spec,
                                   t.field().name(), field.name()));
    return t;
  }
  return graph_algebra(read_quiver(spec), field);
}

StructureTensor AlgebraArgs::build() const {
  if (graph.empty() == table_file.empty())
    throw InputError("give exactly one of GRAPH and --table-file");
  if (power < 1) throw InputError("--power must be at least 1");
  Field f = Field::parse(field);
  StructureTensor a = table_file.empty() ? load_one(graph, f, false) : load_one(table_file, f, true);
  if (power > 1) a = tensor_power(a, power);
  if (!tensor.empty()) {
    bool is_table = tensor.size() > 5 && tensor.substr(tensor.size() - 5) == ".json";
    StructureTensor b = load_one(tensor, a.field(), is_table);
    if (!(b.field() == a.field()))
      throw InputError(fmt::format("--tensor {}: field {} differs from {}", tensor, b.field().name(),
                                   a.field().name()));
    a = tensor_product(a, b);
  }
  return a;
}

std::string AlgebraArgs::describe() const {
  std::string s = table_file.empty() ? graph : table_file;
  if (power > 1) s += fmt::format(" ⊗{}", power);
  if (!tensor.empty()) s += " ⊗ " + tensor;
  return s + " over " + field;
}

}  // namespace qalg::cli
