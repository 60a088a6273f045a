// Re-check of an export directory from its own files (kernel_package.hpp verify_kernel_package).
#include <filesystem>
#include <fstream>
#include <sstream>

#include <set>

#include "package_parts.hpp"
#include "qalg/export/kernel_package.hpp"

namespace qalg::exporter {
namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::invalid_argument(path.string() + ": missing from the export directory");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

nlohmann::json read_json(const fs::path& path) {
  try {
    return nlohmann::json::parse(read_text(path));
  } catch (const nlohmann::json::parse_error& e) {
    throw std::invalid_argument(path.string() + ": not valid JSON: " + e.what());
  }
}

}  // namespace

verify::CertificateVerdict verify_kernel_package(const std::string& dir) {
  const fs::path root(dir);
  const fs::path cert_path = root / "certificate.json";
  const nlohmann::json cert = read_json(cert_path);
  verify::CertificateVerdict v = verify::verify_certificate(cert, cert_path.string());
  auto claim = [&](std::string name, bool ok, std::string detail) {
    v.checks.push_back({std::move(name), ok, std::move(detail)});
    v.valid = v.valid && ok;
  };
  if (!cert.contains("kernel_export") || !cert["kernel_export"].is_object())
    throw std::invalid_argument(cert_path.string() + ": no 'kernel_export' section (not a kernel package certificate)");
  const nlohmann::json& ke = cert["kernel_export"];

  bool checks_hold = cert.value("associativity", nlohmann::json::object()).value("holds", false) &&
                     cert.value("unit", nlohmann::json::object()).value("holds", false) && cert.contains("t");
  claim("export:checks", checks_hold, checks_hold ? "associativity, unit and t recorded as holding"
                                                  : "the certificate records a failed check");

  const nlohmann::json table_json = read_json(root / "table.json");
  claim("export:table", table_json == cert["table"],
        table_json == cert["table"] ? "table.json equals the certificate's table" : "table.json differs from the certificate's table");

  const gpu::KernelPlan plan = gpu::read_plan_file((root / "plan.json").string());
  const gpu::TableData table = gpu::table_data_from_json(table_json, (root / "table.json").string());
  const std::string difference = detail::plan_table_difference(plan, table);
  claim("export:plan-vs-table", difference.empty(),
        difference.empty() ? "plan.json equals a fresh lowering of table.json" : difference);

  // The name chooses the paths below: checked first, so that a name like "../x" reads nothing outside.
  const nlohmann::json name_json = ke.value("name", nlohmann::json(detail::kDefaultPackageName));
  if (!name_json.is_string() || !detail::package_name_problem(name_json.get<std::string>()).empty())
    throw std::invalid_argument(cert_path.string() + ": kernel_export.name " + name_json.dump() + " is not a package name");
  const std::string name = name_json.get<std::string>();

  const std::string header = read_text(root / detail::plan_header_path(name));
  const bool header_ok = header == detail::plan_header(plan, table, cert.value("algebra", ""), ke.value("dtype", ""), name);
  claim("export:plan_data.hpp", header_ok,
        header_ok ? "regenerated from plan.json and table.json" : "differs from plan.json / table.json");

  // The certificate's shape is the plan's (a plan.json swapped in with its header and hashes kept
  // the old K, widths and plan_sha256 in the certificate and still passed until the thirty-eighth session).
  const std::string plan_text = read_text(root / "plan.json");
  const bool shape_ok = ke.value("q", nlohmann::json()) == plan.q && ke.value("K", nlohmann::json()) == plan.K() &&
                        ke.value("N", nlohmann::json()) == plan.N() &&
                        ke.value("input_widths", nlohmann::json()) == nlohmann::json(plan.input_widths) &&
                        ke.value("output_widths", nlohmann::json()) == nlohmann::json(plan.output_widths) &&
                        ke.value("plan_sha256", std::string()) == detail::sha256_hex(plan_text);
  claim("export:shape", shape_ok,
        shape_ok ? "q, K, N, the widths and plan.json's SHA-256 are the certificate's"
                 : "the certificate's q, K, N, widths or plan_sha256 are not plan.json's");

  // Exactly the files this qalg exports, each with its SHA-256, and no other file in the package's
  // folders: the check took the certificate's own list, so a list cut to two entries left every
  // kernel source unchecked, and a header planted in include/ (found before the system's) passed.
  std::set<std::string> expected{"plan.json", "table.json", detail::plan_header_path(name), detail::kPackageCmakePath};
  for (const auto& [path, text] : detail::embedded_package_files(name)) expected.insert(path);

  std::set<std::string> listed;
  size_t bad = 0;
  std::string first_bad;
  for (const auto& f : ke.value("files", nlohmann::json::array())) {
    if (!f.is_object() || !f.contains("path") || !f["path"].is_string() || !f.contains("sha256") || !f["sha256"].is_string())
      throw std::invalid_argument(cert_path.string() + ": kernel_export.files entries must be {\"path\", \"sha256\"}");
    const std::string path = f["path"].get<std::string>();
    listed.insert(path);
    std::ifstream probe(root / path);
    if (!expected.count(path) || !probe || detail::sha256_hex(read_text(root / path)) != f["sha256"].get<std::string>()) {
      if (bad++ == 0) first_bad = path;
    }
  }
  std::vector<std::string> unlisted, unexpected;
  for (const std::string& p : expected)
    if (!listed.count(p)) unlisted.push_back(p);
  std::set<std::string> folders;  // the package's own top-level folders (include, src, cmake, ...)
  for (const std::string& p : expected)
    if (p.find('/') != std::string::npos) folders.insert(p.substr(0, p.find('/')));
  for (const std::string& folder : folders) {
    std::error_code ec;
    for (fs::recursive_directory_iterator it(root / folder, ec), end; !ec && it != end; it.increment(ec))
      if (it->is_regular_file()) {
        const std::string rel = fs::relative(it->path(), root).generic_string();
        if (!expected.count(rel)) unexpected.push_back(rel);
      }
  }
  const bool files_ok = bad == 0 && unlisted.empty() && unexpected.empty() && !listed.empty();
  std::string evidence = std::to_string(listed.size()) + " files match their SHA-256";
  if (bad) evidence = std::to_string(bad) + " of " + std::to_string(listed.size()) + " files differ, are missing or are not this package's, first " + first_bad;
  else if (!unlisted.empty()) evidence = std::to_string(unlisted.size()) + " exported files are not in the certificate's list, first " + unlisted[0];
  else if (!unexpected.empty()) evidence = std::to_string(unexpected.size()) + " files in the package are not its own, first " + unexpected[0];
  claim("export:files", files_ok, evidence);

  // After the files (an edited file is reported as such first): the runtime hash CMake compares
  // between packages is the hash of this package's own runtime files, under the certificate's name
  // (a package whose runtime files were edited with their listed hashes would otherwise share a
  // project with packages it does not match).
  detail::PackageFiles runtime;
  std::string missing;
  for (const std::string& p : expected)
    if (detail::is_runtime_file(p)) {
      if (fs::is_regular_file(root / p)) runtime[p] = read_text(root / p);
      else if (missing.empty()) missing = p;
    }
  const std::string runtime_sha256 = detail::runtime_sha256(runtime);
  const bool runtime_ok = missing.empty() && ke.value("runtime_sha256", std::string()) == runtime_sha256 &&
                          fs::is_regular_file(root / detail::kPackageCmakePath) &&
                          read_text(root / detail::kPackageCmakePath) == detail::package_cmake(name, runtime_sha256);
  claim("export:runtime", runtime_ok,
        runtime_ok        ? "package '" + name + "', runtime SHA-256 " + runtime_sha256 + " (certificate and " +
                                detail::kPackageCmakePath + ")"
        : !missing.empty() ? "runtime file " + missing + " is missing"
                           : std::string(detail::kPackageCmakePath) + " or the certificate's runtime_sha256 is not package '" +
                                 name + "' with its runtime files' SHA-256 " + runtime_sha256);
  return v;
}

}  // namespace qalg::exporter
