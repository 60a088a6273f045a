// SHA-256, package paths, and the plan-vs-table check (package_parts.hpp).
#include "package_parts.hpp"

#include <openssl/evp.h>

#include <stdexcept>

#include <fmt/core.h>

#include "qalg/gpu/lowering.hpp"

namespace qalg::exporter::detail {

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &len, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 failed (OpenSSL EVP_Digest)");
  std::string hex;
  for (unsigned int i = 0; i < len; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

std::string package_path(std::string_view repo_path) {
  constexpr std::pair<std::string_view, std::string_view> kRules[] = {
      {"gpu/include/", "include/"},
      {"gpu/cuda/", "src/gpu/cuda/"},
      {"gpu/src/", "src/gpu/src/"},
      {"export/templates/", ""},
      {"results/gpu/", ""},  // calibration.csv
  };
  for (auto [from, to] : kRules)
    if (repo_path.substr(0, from.size()) == from)
      return std::string(to) + std::string(repo_path.substr(from.size()));
  throw std::logic_error("embedded file outside the package rules: " + std::string(repo_path));
}

std::string plan_table_difference(const gpu::KernelPlan& plan, const gpu::TableData& table) {
  gpu::KernelPlan fresh;
  try {
    fresh = gpu::lower_table(table, plan.input_widths, plan.output_widths);
  } catch (const std::invalid_argument& e) {
    return std::string("the table does not lower: ") + e.what();
  }
  const nlohmann::json a = gpu::plan_to_json(plan), b = gpu::plan_to_json(fresh);
  if (a == b) return "";
  for (auto it = b.begin(); it != b.end(); ++it)
    if (!a.contains(it.key()) || a[it.key()] != it.value())
      return "plan field '" + it.key() + "' differs from a fresh lowering of the table";
  return "plan has fields a fresh lowering does not";
}

}  // namespace qalg::exporter::detail
