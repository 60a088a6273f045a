// qalg export: hand a table to other systems. --gap OUT.g writes a GAP script binding A with
// AlgebraByStructureConstants; --pari OUT.gp writes mt and A = algtableinit(mt, p) (issue 3).
// Kernel exports (issue 8) add their own options here; --gap / --pari select the table exports.
#include <optional>

#include <fmt/core.h>

#include "algebra_args.hpp"
#include "command_registry.hpp"
#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/exports.hpp"
#include "qalg/algebra/table_io.hpp"
#include "qalg/export/kernel_package.hpp"

namespace qalg::cli {
namespace {

struct ExportOptions {
  AlgebraArgs algebra;
  std::string gap;   // --gap OUT.g
  std::string pari;  // --pari OUT.gp
  // Kernel package (issue 8, export/kernel_package.hpp): --widths W [--output-widths W2]
  // [--dtype bf16|fp16|fp32] [--name ID] --out DIR.
  std::string widths, output_widths, dtype = "bf16", out;
  std::optional<std::string> name;  // --name: set only when given (--verify and --gap refuse it)
  std::string verify;  // --verify DIR: re-check an exported package (verify_kernel_package)
};

// qalg export --verify DIR: every claim of the package's certificate and of the package itself
// (its files, their hashes, the plan against its table, the shape). Exit 0 valid, 1 a claim fails,
// 2 a file missing or malformed.
int run_package_verify(const ExportOptions& o) {
  if (!o.algebra.graph.empty() || !o.algebra.table_file.empty() || !o.out.empty() || !o.gap.empty() || !o.pari.empty() ||
      !o.widths.empty() || o.name)
    throw InputError("--verify takes only the package directory (no GRAPH, --table-file, --out, --widths, --name, --gap or --pari)");
  const verify::CertificateVerdict v = exporter::verify_kernel_package(o.verify);
  for (const auto& c : v.checks) fmt::print("  {:<4} {:<22} {}\n", c.ok ? "ok" : "FAIL", c.claim, c.detail);
  if (v.valid) fmt::print("package {} is valid: every claim re-checked from its own files\n", o.verify);
  else fmt::print(stderr, "qalg: package {} rejected: {}\n", o.verify, v.first_failure());
  return v.valid ? 0 : 1;
}

// Exit 2 when a certificate check refuses the table (a non-associative table, one without a unit,
// ...: not an algebra a kernel may be exported for, so bad input like any other) or for other bad
// input (thrown to main).
int run_kernel_export(const ExportOptions& o) {
  if (!o.gap.empty() || !o.pari.empty()) throw InputError("export: --out DIR (kernel package) cannot be combined with --gap/--pari");
  if (o.widths.empty()) throw InputError("export --out: give --widths (input group widths)");
  StructureTensor t = o.algebra.build();
  exporter::KernelExportOptions k;
  k.algebra = o.algebra.describe();
  k.input_widths = exporter::widths_for(t, o.widths, "--widths");
  k.output_widths = o.output_widths.empty() ? k.input_widths : exporter::widths_for(t, o.output_widths, "--output-widths");
  k.dtype = o.dtype;
  if (o.name) k.name = *o.name;
  k.out_dir = o.out;
  try {
    const exporter::KernelExport e = exporter::write_kernel_package(t, k);
    fmt::print("wrote {}: kernel package for {} (q = {}, K = {}, N = {}, {} files; certificate.json, plan.json)\n",
               e.dir, k.algebra, e.plan.q, e.plan.K(), e.plan.N(), e.files.size());
    return 0;
  } catch (const exporter::ExportRefused& e) {
    fmt::print(stderr, "qalg: error: {}\n", e.what());
    return 2;
  }
}

int run_export(const ExportOptions& o) {
  if (!o.verify.empty()) return run_package_verify(o);
  if (!o.out.empty()) return run_kernel_export(o);
  if (!o.widths.empty() || !o.output_widths.empty() || o.name)
    throw InputError("export: --widths/--output-widths/--name need --out DIR");
  if (o.gap.empty() && o.pari.empty())
    throw InputError("export: give --gap OUT.g and/or --pari OUT.gp, or --widths W --out DIR");
  StructureTensor t = o.algebra.build();
  std::string title = o.algebra.describe();
  // Build every script before writing any, so a refused export leaves no file behind.
  std::string gap = o.gap.empty() ? "" : gap_script(t, title);
  std::string pari = o.pari.empty() ? "" : pari_script(t, title);
  // Both files or neither (and not both to one path): write_texts_atomically.
  std::vector<std::pair<std::string, std::string>> files;
  if (!o.gap.empty()) files.emplace_back(gap, o.gap);
  if (!o.pari.empty()) files.emplace_back(pari, o.pari);
  write_texts_atomically(files);
  if (!o.gap.empty()) fmt::print("wrote {}: GAP script binding A ({}, dim {})\n", o.gap, title, t.dim());
  if (!o.pari.empty()) fmt::print("wrote {}: PARI/GP algtableinit input ({}, dim {})\n", o.pari, title, t.dim());
  return 0;
}

const RegisterCommand kRegisterExport{Command{
    "export", "export an algebra for GAP (--gap) or PARI/GP (--pari), or a verified kernel package (--widths --out)",
    [](CLI::App& sub) -> std::function<int()> {
      auto o = std::make_shared<ExportOptions>();
      o->algebra.add_to(sub);
      sub.add_option("--gap", o->gap, "write a GAP script binding the algebra to A");
      sub.add_option("--pari", o->pari, "write PARI/GP input: mt and A = algtableinit(mt, p)");
      sub.add_option("--widths", o->widths, "kernel package: input group widths ('64', '64x4', '32,64,...')");
      sub.add_option("--output-widths", o->output_widths, "kernel package: output group widths (default: --widths)");
      sub.add_option("--dtype", o->dtype, "kernel package: default dtype bf16 | fp16 | fp32");
      sub.add_option("--name", o->name,
                     "kernel package: its name (CMake package and target qalg::NAME, C++ namespace, include/NAME/; "
                     "default qalg_kernels), so that several packages can be used in one project");
      sub.add_option("--out", o->out, "kernel package: directory to create (CUDA sources, CMake package, PyTorch op, certificate)");
      sub.add_option("--verify", o->verify, "re-check an exported kernel package: its certificate, files, plan and shape");
      return [o] { return run_export(*o); };
    }}};

}  // namespace
}  // namespace qalg::cli
