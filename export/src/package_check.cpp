// Re-check of an export directory from its own files (kernel_package.hpp verify_kernel_package).
#include <filesystem>
#include <fstream>
#include <sstream>

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

  const std::string header = read_text(root / "include/qalg_kernels/plan_data.hpp");
  const bool header_ok = header == detail::plan_header(plan, table, cert.value("algebra", ""), ke.value("dtype", ""));
  claim("export:plan_data.hpp", header_ok,
        header_ok ? "regenerated from plan.json and table.json" : "differs from plan.json / table.json");

  size_t bad = 0, count = 0;
  std::string first_bad;
  for (const auto& f : ke.value("files", nlohmann::json::array())) {
    const std::string path = f.at("path").get<std::string>();
    ++count;
    std::ifstream probe(root / path);
    if (!probe || detail::sha256_hex(read_text(root / path)) != f.at("sha256").get<std::string>()) {
      if (bad++ == 0) first_bad = path;
    }
  }
  claim("export:files", bad == 0 && count > 0,
        bad == 0 ? std::to_string(count) + " files match their SHA-256"
                 : std::to_string(bad) + " of " + std::to_string(count) + " files differ or are missing, first " + first_bad);
  return v;
}

}  // namespace qalg::exporter
