// SPEC §4 properties: the cost identities of the rank module's cost models against the paper's
// closed formulas, and "plan executor = dense reference" for random slot-compatible tables.
#include <rapidcheck.h>

#include <numeric>

#include "qalg/gpu/dense_reference.hpp"
#include "qalg/gpu/lowering.hpp"
#include "qalg/gpu/plan_executor.hpp"
#include "qalg/rank/block_support.hpp"
#include "qalg/rank/cost_model.hpp"
#include "qalg/verify/catalogue.hpp"
#include "qalg/verify/lowering_generators.hpp"

namespace qalg::verify {
namespace {

std::vector<uint64_t> to_u64(const std::vector<uint32_t>& v) { return {v.begin(), v.end()}; }

struct CompleteCase {
  uint32_t q = 0;
  BlockSupport support;
};
CompleteCase complete_case(const RunConfig& c) {
  const uint32_t q = *rc::gen::inRange<uint32_t>(1, uint32_t(std::max<size_t>(c.max_size, 1)) + 1);
  const StructureTensor t = graph_algebra(quiver_family("complete:" + std::to_string(q)), Field::rationals());
  record_case(t);
  return {q, block_support(t)};
}

void type_macs_formula(const RunConfig& c) {
  const CompleteCase k = complete_case(c);
  const auto in = to_u64(*gen_widths(k.q, 8)), out = to_u64(*gen_widths(k.q, 8));
  const GroupWidths w = group_widths(k.q, std::accumulate(in.begin(), in.end(), uint64_t(0)),
                                     std::accumulate(out.begin(), out.end(), uint64_t(0)), in, out);
  uint64_t d_diag = 0;
  for (uint32_t j = 0; j < k.q; ++j) d_diag += in[j] * out[j];
  for (uint32_t i = 0; i < k.q; ++i)  // C_i = D_diag + s_i (N − r_i)
    RC_ASSERT(type_macs(k.support, w, i) == d_diag + in[i] * (w.N() - out[i]));
}

void equal_width_fractions(const RunConfig& c) {
  const CompleteCase k = complete_case(c);
  RC_ASSERT(equal_width_fraction(k.support) == ratio(2 * k.q - 1, uint64_t(k.q) * k.q));  // ρ_q
  const uint64_t b = *rc::gen::inRange<uint64_t>(1, 9);
  const uint64_t q = k.q;  // (2q² − q) b³ MACs for the square product, n = q b
  RC_ASSERT(square_product_macs(k.support, b) == (2 * q * q - q) * b * b * b);
  // Q_2^{⊗L}: ρ = (3/4)^L and 6^L block products.
  const unsigned L = *rc::gen::inRange<unsigned>(1, 4);
  const StructureTensor p = tensor_power(graph_algebra(quiver_family("complete:2"), Field::rationals()), L);
  const BlockSupport s = block_support(p);
  uint64_t three = 1, four = 1, six = 1;
  for (unsigned l = 0; l < L; ++l) three *= 3, four *= 4, six *= 6;
  RC_ASSERT(equal_width_fraction(s) == ratio(three, four));
  RC_ASSERT(s.block_products() == six);
  RC_ASSERT(s.block_products() == p.nnz());
}

void ffn_and_attention(const RunConfig& c) {
  const CompleteCase k = complete_case(c);
  const uint64_t q = k.q;
  const uint64_t b = *rc::gen::inRange<uint64_t>(1, 5), d = *rc::gen::inRange<uint64_t>(1, 5),
                 f = *rc::gen::inRange<uint64_t>(1, 5);
  const uint64_t B = q * b, D = q * d, F = q * f;  // balanced types and equal widths
  // Gated FFN training: dense 9BDF, algebraic 9ρ_q BDF = 9 (2q−1) q b d f.
  const FfnCost ffn = gated_ffn_training(k.support, B, D, F);
  RC_ASSERT(ffn.dense_training == 9 * B * D * F);
  RC_ASSERT(ffn.training == 9 * (2 * q - 1) * q * b * d * f);
  // Attention ceilings with ρ = (2q−1)/q²: 2/(1+ρ) = 2q²/(q²+2q−1), 7/(3+4ρ) = 7q²/(3q²+8q−4).
  const AttentionCeilings a = attention_ceilings(k.support);
  RC_ASSERT(a.score_fraction == ratio(2 * q - 1, q * q));
  RC_ASSERT(a.forward == ratio(2 * q * q, q * q + 2 * q - 1));
  RC_ASSERT(a.training == ratio(7 * q * q, 3 * q * q + 8 * q - 4));
}

void projection_costs(const RunConfig& c) {
  const StructureTensor t = *gen_slot_compatible_table(std::min<size_t>(c.max_size, 4));
  record_case(t);
  const BlockSupport s = block_support(t);
  const auto in = to_u64(*gen_widths(s.q, 8)), out = to_u64(*gen_widths(s.q, 8));
  const uint64_t K = std::accumulate(in.begin(), in.end(), uint64_t(0));
  const uint64_t N = std::accumulate(out.begin(), out.end(), uint64_t(0));
  const GroupWidths w = group_widths(s.q, K, N, in, out);
  const uint64_t M = *rc::gen::inRange<uint64_t>(0, 64), L = *rc::gen::inRange<uint64_t>(1, 8);
  // Row counts per type, counted position by position from τ (SPEC §4).
  std::vector<uint64_t> cyclic(s.q, 0), intervals(s.q, 0);
  for (uint64_t p = 0; p < M; ++p) ++cyclic[p % s.q], ++intervals[(p % (s.q * L)) / L];
  RC_ASSERT(cyclic_type_rows(M, s.q) == cyclic);
  RC_ASSERT(interval_type_rows(M, s.q, L) == intervals);
  const ProjectionCost pc = projection_cost(s, w, cyclic);
  uint64_t forward = 0;
  for (uint32_t i = 0; i < s.q; ++i) forward += cyclic[i] * type_macs(s, w, i);
  RC_ASSERT(pc.forward == forward);
  RC_ASSERT(pc.dense == M * K * N);
  RC_ASSERT(pc.training == 3 * pc.forward);  // dX and dW use the forward's support
  if (M > 0) RC_ASSERT(pc.fraction == ratio(pc.forward, pc.dense));
}

gpu::RowMatrix<double> small_integer_matrix(Eigen::Index rows, Eigen::Index cols) {
  const auto v = *rc::gen::container<std::vector<int>>(size_t(rows * cols), rc::gen::inRange(-3, 4));
  gpu::RowMatrix<double> m(rows, cols);
  for (Eigen::Index r = 0; r < rows; ++r)
    for (Eigen::Index col = 0; col < cols; ++col) m(r, col) = v[size_t(r * cols + col)];
  return m;
}

void executor_matches_reference(const RunConfig& c) {
  const StructureTensor t = *gen_slot_compatible_table(std::min<size_t>(c.max_size, 4));
  record_case(t);
  const gpu::TableData td = to_table_data(t);
  const uint32_t q = *td.slot_grid;
  const std::vector<uint32_t> in = *gen_widths(q, 3), out = *gen_widths(q, 3);
  const gpu::KernelPlan plan = gpu::lower_table(td, in, out);
  const gpu::DenseReference ref(td, in, out);
  const uint64_t M = *rc::gen::inRange<uint64_t>(1, 3 * q + 2);
  const std::vector<uint32_t> types = (*gen_type_schedule(q, M)).row_types(M);
  // Small integers keep every sum exact in double, so the comparison is exact (CUTLASS's habit).
  const auto X = small_integer_matrix(Eigen::Index(M), Eigen::Index(plan.K()));
  const auto W = small_integer_matrix(Eigen::Index(plan.K()), Eigen::Index(plan.N()));
  const auto dY = small_integer_matrix(Eigen::Index(M), Eigen::Index(plan.N()));
  uint64_t macs = 0;
  RC_ASSERT(gpu::plan_forward(plan, X, W, types, &macs) == ref.forward(X, W, types));
  RC_ASSERT(gpu::plan_backward_input(plan, dY, W, types) == ref.backward_input(dY, W, types));
  RC_ASSERT(gpu::plan_backward_weight(plan, X, dY, types) == ref.backward_weight(X, dY, types));
  // The executor's MAC count agrees with the rank module's cost model (a separate derivation).
  const BlockSupport s = block_support(t);
  const GroupWidths w = group_widths(q, plan.K(), plan.N(), to_u64(in), to_u64(out));
  uint64_t expected = 0;
  for (uint32_t ty : types) expected += type_macs(s, w, ty);
  RC_ASSERT(macs == expected);
}

}  // namespace

std::vector<Property> lowering_properties() {
  return {
      {"cost-type-macs", "SPEC §4", "Q_q with any widths: C_i = D_diag + s_i (N − r_i)", type_macs_formula},
      {"cost-fractions", "SPEC §4", "ρ_q = (2q−1)/q², Q_2^{⊗L}: (3/4)^L and 6^L blocks, square product (2q²−q) b³", equal_width_fractions},
      {"cost-ffn-attention", "SPEC §4", "gated FFN training 9BDF → 9ρBDF; attention ceilings 2/(1+ρ) and 7/(3+4ρ)", ffn_and_attention},
      {"cost-projection", "SPEC §4", "forward = Σ_i M_i C_i over τ's row counts, dense = MKN, training = 3 × forward", projection_costs},
      {"plan-executor", "SPEC §4–5", "plan executor = dense reference (forward, dX, dW) exactly; MACs = the rank cost model", executor_matches_reference},
  };
}

}  // namespace qalg::verify
