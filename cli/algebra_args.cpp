// Shared algebra options: resolve GRAPH / --table-file, --tensor and --power into one table.
#include "algebra_args.hpp"

#include <cctype>
#include <filesystem>
#include <fstream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

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
  app.add_option("--tensor", tensor, "tensor with a second algebra (GRAPH or a table file)");
}

// field_given: --field was given (a table file over another field is then refused, Q included);
// else a table keeps its own field.
static StructureTensor load_one(const std::string& spec, const Field& field, bool is_table, bool field_given) {
  if (is_table) {
    StructureTensor t = read_table_file(spec);
    if (field_given && !(t.field() == field))
      throw InputError(fmt::format("{}: table is over {}, but --field {} was given", spec,
                                   t.field().name(), field.name()));
    return t;
  }
  return graph_algebra(read_quiver(spec), field);
}

// A --tensor operand is a table file when its text is JSON (the first character that is not white
// space is '{'): by content, not by a ".json" suffix, so that a table named "c2.tbl" or "C2.JSON"
// is not read as an edge list of vertices named '{' and '"format":'.
static bool is_table_text(const std::string& spec) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(spec, ec)) return false;
  std::ifstream in(spec, std::ios::binary);
  char c = 0;
  while (in.get(c))
    if (!std::isspace(static_cast<unsigned char>(c))) return c == '{';
  return false;
}

StructureTensor AlgebraArgs::build() const {
  if (graph.empty() == table_file.empty())
    throw InputError("give exactly one of GRAPH and --table-file");
  if (power < 1) throw InputError("--power must be at least 1");
  Field f = Field::parse(field.empty() ? "Q" : field);
  StructureTensor a = table_file.empty() ? load_one(graph, f, false, !field.empty())
                                         : load_one(table_file, f, true, !field.empty());
  if (power > 1) a = tensor_power(a, power);
  if (!tensor.empty()) {
    StructureTensor b = load_one(tensor, a.field(), is_table_text(tensor), false);
    if (!(b.field() == a.field()))
      throw InputError(fmt::format("--tensor {}: field {} differs from {}", tensor, b.field().name(),
                                   a.field().name()));
    a = tensor_product(a, b);
  }
  built_field_ = a.field().name();
  return a;
}

// Bytes that are not UTF-8 as U+FFFD: the description goes into JSON (reports, certificates,
// packages), and nlohmann refuses to write invalid UTF-8 (a table file named "tab\xffle.json" made
// `qalg export` fail with an internal error, exit 3).
static std::string valid_utf8(const std::string& s) {
  // (nlohmann's own replacement of invalid sequences, read back as a string)
  const std::string quoted = nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return nlohmann::json::parse(quoted).get<std::string>();
}

std::string AlgebraArgs::describe() const { return valid_utf8(describe_raw()); }

std::string AlgebraArgs::describe_raw() const {
  std::string s = table_file.empty() ? graph : table_file;
  if (power > 1) s += fmt::format(" ⊗{}", power);
  if (!tensor.empty()) s += " ⊗ " + tensor;
  return s + " over " + (!built_field_.empty() ? built_field_ : field.empty() ? "Q" : field);
}

}  // namespace qalg::cli
