#pragma once
// Pieces of a kernel package shared by the writer (kernel_package.cpp) and the checker
// (package_check.cpp). Internal to the export module.
#include <map>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "qalg/gpu/kernel_plan.hpp"
#include "qalg/gpu/table_data.hpp"

namespace qalg::exporter::detail {

// Every file of the package except the certificate, by package path.
using PackageFiles = std::map<std::string, std::string>;

std::string sha256_hex(std::string_view bytes);

// ---- the package name (`qalg export --name`, package_name.cpp) ----
// The templates are written for this name: a package exported without --name holds them unchanged.
inline constexpr std::string_view kDefaultPackageName = "qalg_kernels";
inline constexpr size_t kMaxPackageName = 64;
// Empty when `name` may name a package (a C identifier of lower-case letters, digits and '_' that
// is no C++ keyword and no name the package already uses), else why not.
std::string package_name_problem(const std::string& name);
// Whether a template's text is renamed (C++, Python, README) or reads the name itself (CMake).
bool renames_content(std::string_view template_path);
// `text` with every qalg_kernels (not qalg_kernels_runtime: the runtime is shared) renamed `name`.
std::string with_name(std::string_view text, const std::string& name);

// Where an embedded repository file goes in the package: gpu/include/X -> include/X,
// gpu/cuda/X -> src/gpu/cuda/X, gpu/src/X -> src/gpu/src/X, export/templates/X -> X (renamed:
// include/qalg_kernels/ -> include/ID/, ...), results/gpu/calibration.csv -> calibration.csv.
std::string package_path(std::string_view repo_path, const std::string& name);
// The embedded files of a package called `name`, by package path, with the name in their text.
PackageFiles embedded_package_files(const std::string& name);

// ---- generated files ----
// include/ID/plan_data.hpp: the plan's terms and widths and the table's slots and entries as
// constexpr arrays in namespace ID::generated (the kernels read the former, the dense reference
// the latter).
std::string plan_header_path(const std::string& name);
std::string plan_header(const gpu::KernelPlan& plan, const gpu::TableData& table,
                        const std::string& algebra, const std::string& dtype, const std::string& name);

// The kernel runtime: the gpu module's sources and headers (include/qalg/, src/gpu/), identical in
// every package one qalg version exports; CMake builds it once per project (qalg_kernels_runtime).
bool is_runtime_file(std::string_view package_path);
// SHA-256 of the lines "<SHA-256 of the file>  <path>\n" of the runtime files in path order
// (`find include/qalg src/gpu -type f | LC_ALL=C sort | xargs sha256sum | sha256sum`).
std::string runtime_sha256(const PackageFiles& files);
// cmake/qalg_package.cmake: the name and the runtime's SHA-256, read by CMakeLists.txt.
inline constexpr const char* kPackageCmakePath = "cmake/qalg_package.cmake";
std::string package_cmake(const std::string& name, const std::string& runtime_sha256);

// The plan-vs-table check: lower `table` again with the plan's widths and compare the JSON
// forms. Empty when they agree, else what differs.
std::string plan_table_difference(const gpu::KernelPlan& plan, const gpu::TableData& table);

}  // namespace qalg::exporter::detail
