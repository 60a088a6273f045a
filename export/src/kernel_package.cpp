// qalg export --widths ... --out DIR: write a kernel package (kernel_package.hpp).
#include "qalg/export/kernel_package.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <fmt/core.h>

#include "package_parts.hpp"
#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/table_io.hpp"
#include "qalg/gpu/lowering.hpp"

namespace qalg::exporter {
namespace fs = std::filesystem;
using detail::PackageFiles;

namespace {

// The directory to create, absolute, without a trailing separator ("newdir/" named its parent
// "newdir" in the messages and in the temporary sibling's name).
fs::path out_path(const std::string& out_dir) {
  fs::path out = fs::absolute(fs::path(out_dir)).lexically_normal();
  if (!out.has_filename()) out = out.parent_path();
  return out;
}

void check_options(const KernelExportOptions& o) {
  if (const std::string problem = detail::package_name_problem(o.name); !problem.empty())
    throw InputError("--name '" + o.name + "': " + problem);
  if (o.dtype != "bf16" && o.dtype != "fp16" && o.dtype != "fp32")
    throw InputError("--dtype '" + o.dtype + "': expected bf16, fp16 or fp32");
  if (o.out_dir.empty()) throw InputError("--out: give the directory to create");
  const fs::path out(o.out_dir);
  if (fs::exists(out)) throw InputError(o.out_dir + ": already exists (an export never overwrites; choose a new directory)");
  const fs::path parent = out_path(o.out_dir).parent_path();
  if (!fs::is_directory(parent)) throw InputError(o.out_dir + ": parent directory " + parent.string() + " does not exist");
}

// The refusal message names the failed check and its evidence from the certificate.
ExportRefused refusal(const verify::Certificate& cert) {
  const std::string check = cert.failed.empty() ? "t" : cert.failed.front();
  std::string evidence;
  if (cert.json.contains(check)) {
    const auto& c = cert.json[check];
    if (c.contains("witness")) evidence = " (witness " + c["witness"].dump() + ")";
    else if (c.contains("reason")) evidence = " (" + c["reason"].get<std::string>() + ")";
  }
  std::string all;
  for (const auto& f : cert.failed) all += (all.empty() ? "" : ", ") + f;
  return ExportRefused(check, fmt::format("export refused: the table fails check '{}'{}; failed checks: {}",
                                          check, evidence, all.empty() ? check : all));
}

void write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream f(path, std::ios::binary);
  f << text;
  f.close();
  if (!f) throw InputError(path.string() + ": cannot write");
}

// Deletes the temporary directory unless the export completed.
struct TempDir {
  fs::path path;
  bool keep = false;
  ~TempDir() {
    std::error_code ec;
    if (!keep) fs::remove_all(path, ec);
  }
};

}  // namespace

std::vector<uint32_t> widths_for(const StructureTensor& t, const std::string& text, const std::string& what) {
  if (!t.slots()) throw InputError(what + ": the table has no slot layout, so it has no groups (SPEC §4)");
  return gpu::parse_widths(text, t.slot_grid(), what);
}

KernelExport write_kernel_package(const StructureTensor& t, const KernelExportOptions& o) {
  check_options(o);
  // Lowering first (cheap; a table the kernels cannot take is bad input, as in `qalg lower`),
  // then every certificate check (a failure refuses the export).
  const nlohmann::json table_json = table_to_json(t);
  const gpu::TableData table = gpu::table_data_from_json(table_json, o.algebra);
  gpu::KernelPlan plan = gpu::lower_table(table, o.input_widths, o.output_widths);
  verify::Certificate cert = verify::make_certificate(t, o.algebra);
  if (!cert.all_checks_hold) throw refusal(cert);

  PackageFiles files = detail::embedded_package_files(o.name);
  const std::string runtime_sha256 = detail::runtime_sha256(files);
  files["plan.json"] = gpu::plan_to_json(plan).dump(2) + "\n";
  files["table.json"] = table_json.dump() + "\n";
  files[detail::plan_header_path(o.name)] = detail::plan_header(plan, table, o.algebra, o.dtype, o.name);
  files[detail::kPackageCmakePath] = detail::package_cmake(o.name, runtime_sha256);

  const fs::path out = out_path(o.out_dir);
  TempDir tmp{out.parent_path() / fmt::format(".{}.partial-{}", out.filename().string(), getpid())};
  nlohmann::json hashes = nlohmann::json::array();
  try {  // (a parent that cannot be written to threw filesystem_error: exit 3 "internal error")
    fs::remove_all(tmp.path);
    fs::create_directories(tmp.path);
    for (const auto& [path, text] : files) {
      write_file(tmp.path / path, text);
      hashes.push_back({{"path", path}, {"sha256", detail::sha256_hex(text)}});
    }
  } catch (const fs::filesystem_error& e) {
    throw InputError(o.out_dir + ": cannot write the package in " + out.parent_path().string() + ": " + e.code().message());
  }

  // Plan-vs-table check on the files as written: read both back, lower the table again.
  const gpu::KernelPlan written = gpu::read_plan_file((tmp.path / "plan.json").string());
  const gpu::TableData written_table = gpu::read_table_data((tmp.path / "table.json").string());
  std::string difference = detail::plan_table_difference(written, written_table);
  if (difference.empty() && written_table.hash != cert.json["table_hash"].get<std::string>())
    difference = "table.json hashes to " + written_table.hash + ", the certificate says " +
                 cert.json["table_hash"].get<std::string>();
  if (!difference.empty())
    throw ExportRefused("plan-vs-table", "export refused: check 'plan-vs-table' failed: " + difference);

  cert.json["kernel_export"] = {
      {"format", "qalg-kernel-export"},
      {"version", 1},
      {"dtype", o.dtype},
      {"name", o.name},
      {"runtime_sha256", runtime_sha256},
      {"q", plan.q},
      {"K", plan.K()},
      {"N", plan.N()},
      {"input_widths", plan.input_widths},
      {"output_widths", plan.output_widths},
      {"plan_sha256", detail::sha256_hex(files["plan.json"])},
      {"plan_matches_table",
       {{"holds", true},
        {"method", "plan.json and table.json read back from the package; the table lowered again "
                   "with the plan's widths (SPEC §4) equals plan.json"}}},
      {"files", hashes},
      {"conformance",
       {{"run", false},
        {"reason", "qalg export runs without a GPU; the package's conformance test "
                   "(" + o.name + "_conformance) compares every kernel with a dense reference built "
                   "from the table and writes conformance.json"}}}};
  write_file(tmp.path / "certificate.json", cert.json.dump(2) + "\n");

  std::error_code ec;
  fs::rename(tmp.path, out, ec);
  if (ec) throw InputError(o.out_dir + ": cannot create: " + ec.message());
  tmp.keep = true;

  KernelExport result{out.string(), std::move(plan), {}};
  for (const auto& [path, text] : files) result.files.push_back(path);
  result.files.push_back("certificate.json");
  std::sort(result.files.begin(), result.files.end());
  return result;
}

}  // namespace qalg::exporter
