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

std::string sha256_hex(std::string_view bytes);

// Where an embedded repository file goes in the package: gpu/include/X -> include/X,
// gpu/cuda/X -> src/gpu/cuda/X, gpu/src/X -> src/gpu/src/X, export/templates/X -> X,
// results/gpu/calibration.csv -> calibration.csv.
std::string package_path(std::string_view repo_path);

// include/qalg_kernels/plan_data.hpp: the plan's terms and widths and the table's slots and
// entries as constexpr arrays (the kernels read the former, the dense reference the latter).
std::string plan_header(const gpu::KernelPlan& plan, const gpu::TableData& table,
                        const std::string& algebra, const std::string& dtype);

// The plan-vs-table check: lower `table` again with the plan's widths and compare the JSON
// forms. Empty when they agree, else what differs.
std::string plan_table_difference(const gpu::KernelPlan& plan, const gpu::TableData& table);

// Every file of the package except the certificate, by package path.
using PackageFiles = std::map<std::string, std::string>;

}  // namespace qalg::exporter::detail
