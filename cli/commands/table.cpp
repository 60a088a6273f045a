// qalg table: write an algebra's structure table (qalg-table JSON, algebra/table_io.hpp), e.g.
// to carry it to the GPU machine, where the gpu module reads it without FLINT.
#include <iostream>

#include <fmt/core.h>

#include "algebra_args.hpp"
#include "command_registry.hpp"
#include "qalg/algebra/table_io.hpp"

namespace qalg::cli {
namespace {

struct TableOptions {
  AlgebraArgs algebra;
  std::string out;
};

int run_table(const TableOptions& o) {
  StructureTensor t = o.algebra.build();
  write_table_file(t, o.out);
  std::string slots = t.slots() ? fmt::format("{0}x{0} slot grid", t.slot_grid()) : "no slot layout";
  fmt::print("wrote {}: {}, dim {}, {} nonzero constants, {}, hash {}\n", o.out,
             o.algebra.describe(), t.dim(), t.nnz(), slots, table_hash(t));
  return 0;
}

const RegisterCommand kRegisterTable{Command{
    "table", "write the structure table of an algebra (qalg-table JSON)",
    [](CLI::App& sub) -> std::function<int()> {
      auto o = std::make_shared<TableOptions>();
      o->algebra.add_to(sub);
      sub.add_option("--out", o->out, "table file to write")->required();
      return [o] { return run_table(*o); };
    }}};

}  // namespace
}  // namespace qalg::cli
