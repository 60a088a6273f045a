#pragma once
// KernelPlan (SPEC §4): for each row type i and output group j, the input groups
// B(i, j) = { k : c_{(i,k),(k,j)}^{(i,j)} != 0 } with their coefficients, plus group widths.
// y_j = Σ_{k ∈ B(i,j)} c · x_k W_kj for a row of type i; W is the K×N canonical weight bank
// (row-major), block W_kj = rows of input group k × columns of output group j.
// Plans are made by lower_table (lowering.hpp) and read only by executors and kernels.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace qalg::gpu {

// A plan keeps a term list B(i, j) for each of the q² pairs: q is capped so that an empty plan's
// lists fit (4096² × 24 bytes = 400 MB; complete:1000, 10^6 arrows, has q = 1000). Issue 12.
constexpr uint32_t kMaxPlanGroups = 4096;

struct PlanTerm {
  uint32_t input_group = 0;  // k
  int64_t num = 1, den = 1;  // exact coefficient c_{(i,k),(k,j)}^{(i,j)}
  double coefficient() const { return static_cast<double>(num) / static_cast<double>(den); }
};

struct KernelPlan {
  uint32_t q = 0;
  std::vector<uint32_t> input_widths;   // s_0..s_{q-1}; K = Σ s
  std::vector<uint32_t> output_widths;  // r_0..r_{q-1}; N = Σ r
  std::vector<std::vector<PlanTerm>> terms;  // terms[i*q + j] = B(i, j), sorted by k
  std::vector<uint8_t> block_used;           // block_used[k*q + j]: W_kj appears in some term
  std::string table_hash;
  std::string field;

  uint64_t K() const;
  uint64_t N() const;
  uint64_t input_offset(uint32_t k) const;   // first column of x (row of W) in group k
  uint64_t output_offset(uint32_t j) const;  // first column of y (column of W) in group j
  const std::vector<PlanTerm>& B(uint32_t i, uint32_t j) const { return terms[size_t(i) * q + j]; }
  // MACs of one row of type i: Σ_j Σ_{k∈B(i,j)} s_k r_j (SPEC §4 C_i for complete graphs).
  uint64_t macs_per_row(uint32_t i) const;
};

nlohmann::json plan_to_json(const KernelPlan& p);
KernelPlan plan_from_json(const nlohmann::json& j, const std::string& origin);
// Reads a plan file written by `qalg lower`; std::invalid_argument naming the file on any error.
KernelPlan read_plan_file(const std::string& path);

}  // namespace qalg::gpu
