// qalg export: hand a table to other systems. --gap OUT.g writes a GAP script binding A with
// AlgebraByStructureConstants; --pari OUT.gp writes mt and A = algtableinit(mt, p) (issue 3).
// Kernel exports (issue 8) add their own options here; --gap / --pari select the table exports.
#include <fmt/core.h>

#include "algebra_args.hpp"
#include "command_registry.hpp"
#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/exports.hpp"
#include "qalg/algebra/table_io.hpp"

namespace qalg::cli {
namespace {

struct ExportOptions {
  AlgebraArgs algebra;
  std::string gap;   // --gap OUT.g
  std::string pari;  // --pari OUT.gp
};

int run_export(const ExportOptions& o) {
  if (o.gap.empty() && o.pari.empty())
    throw InputError("export: give --gap OUT.g and/or --pari OUT.gp");
  StructureTensor t = o.algebra.build();
  std::string title = o.algebra.describe();
  // Build every script before writing any, so a refused export leaves no file behind.
  std::string gap = o.gap.empty() ? "" : gap_script(t, title);
  std::string pari = o.pari.empty() ? "" : pari_script(t, title);
  if (!o.gap.empty()) {
    write_text_atomically(gap, o.gap);
    fmt::print("wrote {}: GAP script binding A ({}, dim {})\n", o.gap, title, t.dim());
  }
  if (!o.pari.empty()) {
    write_text_atomically(pari, o.pari);
    fmt::print("wrote {}: PARI/GP algtableinit input ({}, dim {})\n", o.pari, title, t.dim());
  }
  return 0;
}

const RegisterCommand kRegisterExport{Command{
    "export", "export an algebra for GAP (--gap) or PARI/GP (--pari)",
    [](CLI::App& sub) -> std::function<int()> {
      auto o = std::make_shared<ExportOptions>();
      o->algebra.add_to(sub);
      sub.add_option("--gap", o->gap, "write a GAP script binding the algebra to A");
      sub.add_option("--pari", o->pari, "write PARI/GP input: mt and A = algtableinit(mt, p)");
      return [o] { return run_export(*o); };
    }}};

}  // namespace
}  // namespace qalg::cli
