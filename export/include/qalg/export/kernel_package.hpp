#pragma once
// Kernel packages (issue 8): `qalg export --widths ... --out DIR` turns a checked table into a
// directory another project builds and calls — the CUDA kernels with the plan embedded as
// constexpr data, a small C++ API, a CMake package, a PyTorch extension, plan.json, table.json
// and a certificate (verify/certificate.hpp) extended with the plan-vs-table check.
//
// Refusals: a table that fails a certificate check (associativity, unit, ...) is refused with
// ExportRefused naming the check (the qalg command exits 2); a table the kernels cannot take
// (not slot-compatible, over GF(p), bad widths) is bad input, std::invalid_argument / InputError
// (exit 2, as for `qalg lower`). Nothing is written unless every check passed: the package is
// built in a temporary sibling directory and renamed into place.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "qalg/algebra/structure_tensor.hpp"
#include "qalg/gpu/kernel_plan.hpp"
#include "qalg/verify/certificate.hpp"

namespace qalg::exporter {

// A certificate check failed; `check` is its name as recorded in the certificate.
class ExportRefused : public std::runtime_error {
 public:
  ExportRefused(std::string check, const std::string& message)
      : std::runtime_error(message), check_(std::move(check)) {}
  const std::string& check() const { return check_; }

 private:
  std::string check_;
};

struct KernelExportOptions {
  std::string algebra;                      // description for headers and the certificate
  std::vector<uint32_t> input_widths;       // s_0..s_{q-1}
  std::vector<uint32_t> output_widths;      // r_0..r_{q-1}
  std::string dtype = "bf16";               // the package's default: bf16 | fp16 | fp32
  // --name: the CMake package and target qalg::NAME, the C++ namespace, include/NAME/ (a C
  // identifier of lower-case letters, digits and '_'), so that packages of several shapes can be
  // used in one project; they share one kernel runtime (qalg_kernels_runtime).
  std::string name = "qalg_kernels";
  std::string out_dir;                      // must not exist yet
};

struct KernelExport {
  std::string dir;
  gpu::KernelPlan plan;
  std::vector<std::string> files;  // relative paths, sorted
};

// The widths parser of `qalg lower` with the table's q (SPEC §4), for callers holding text.
std::vector<uint32_t> widths_for(const StructureTensor& t, const std::string& text,
                                 const std::string& what);

KernelExport write_kernel_package(const StructureTensor& t, const KernelExportOptions& o);

// Re-checks an export directory from its own files: the certificate's claims
// (verify_certificate), table.json against the certificate's table, plan.json against a fresh
// lowering of that table, the generated plan header against plan.json and table.json, the
// SHA-256 of every copied source against the certificate (the file names those of the
// certificate's kernel_export.name), and the runtime SHA-256 recorded in the certificate and in
// cmake/qalg_package.cmake against the runtime files. Throws std::invalid_argument when a file is
// missing or malformed (a name that is no package name included).
verify::CertificateVerdict verify_kernel_package(const std::string& dir);

}  // namespace qalg::exporter
