#pragma once
// Arithmetic cost models of row-typed projections (SPEC §4), every count summed over the block
// support of the table (block_support.hpp). The paper's closed formulas (ρ_q = (2q−1)/q²,
// C_i = D_diag + s_i(N − r_i), 6^L, 59/80, 2/(1+ρ), ...) are the test oracles, not the code.
#include <cstdint>
#include <string>
#include <vector>

#include "qalg/rank/block_support.hpp"

namespace qalg {

// Exact rational a / b (b > 0).
Rational ratio(uint64_t a, uint64_t b);

// Input group widths s_0..s_{q−1} (sum K) and output widths r_0..r_{q−1} (sum N).
struct GroupWidths {
  std::vector<uint64_t> in, out;
  uint64_t K() const;
  uint64_t N() const;
};
// Empty lists mean equal widths K/q, N/q. Throws InputError naming --widths / --output-widths
// when a list has the wrong length, a zero width, or does not add up (or q does not divide).
GroupWidths group_widths(uint32_t q, uint64_t K, uint64_t N, const std::vector<uint64_t>& in,
                         const std::vector<uint64_t>& out);

// MACs of one type-i row: Σ_j Σ_{k ∈ B(i,j)} s_k r_j (decode cost of a type-i token).
uint64_t type_macs(const BlockSupport& s, const GroupWidths& w, uint32_t i);

// Rows per type for M rows: cyclic τ(p) = p mod q, or consecutive intervals of length L,
// τ(p) = ⌊(p mod qL) / L⌋ (SPEC §4).
std::vector<uint64_t> cyclic_type_rows(uint64_t M, uint32_t q);
std::vector<uint64_t> interval_type_rows(uint64_t M, uint32_t q, uint64_t L);

struct ProjectionCost {
  std::vector<uint64_t> type_rows, type_macs;  // per type i
  uint64_t forward = 0, dense = 0;             // Σ_i M_i C_i and M K N
  uint64_t training = 0, dense_training = 0;   // forward + dX + dW: 3 × forward (same support)
  Rational fraction;                           // forward / dense
};
ProjectionCost projection_cost(const BlockSupport& s, const GroupWidths& w,
                               const std::vector<uint64_t>& type_rows);

// ρ: the fraction of dense MACs with equal widths and balanced types, Σ_{i,j}|B(i,j)| / q³.
Rational equal_width_fraction(const BlockSupport& s);
// Block products of a type-i row against the q² of a dense row.
Rational type_block_fraction(const BlockSupport& s, uint32_t i);

// Square block products, n = q·b: Σ_{i,j}|B(i,j)| products of b×b blocks, b³ MACs each.
uint64_t square_product_macs(const BlockSupport& s, uint64_t b);

// Gated FFN (two D×F weights, one F×D) trained on B rows, cyclic types: 3 × forward of the
// three projections; dense 9BDF.
struct FfnCost {
  uint64_t training = 0, dense_training = 0;
};
FfnCost gated_ffn_training(const BlockSupport& s, uint64_t B, uint64_t D, uint64_t F);

// Per-token decode projection MACs of a layer with dense attention projections (Q, K, V, O:
// D×Hq, D×Hkv, D×Hkv, Hq×D) and algebraic FFN projections (g weights D×F, one F×D), averaged over
// the q token types, as a fraction of the all-dense count.
Rational decode_projection_fraction(const BlockSupport& s, uint64_t D, uint64_t Hq, uint64_t Hkv,
                                    uint64_t F, uint64_t g);

// Structured attention scores (paper App. G) with balanced types: a query of type i and a key of
// type j contract the groups B(i, j), so the score fraction is Σ|B(i,j)| / q³. Dense P·V kept:
// forward ceiling 2 / (1 + ρ); training with score recomputation 7 / (3 + 4ρ).
struct AttentionCeilings {
  Rational score_fraction, forward, training;
};
AttentionCeilings attention_ceilings(const BlockSupport& s);

// Compute-bound crossover (SPEC §4): the algebraic kernel wins when ρ/η + δ < 1, η its achieved
// rate over the dense kernel's, δ its overhead over dense time.
double crossover_margin(double rho, double eta, double delta);  // 1 − (ρ/η + δ)
bool crossover_wins(double rho, double eta, double delta);

}  // namespace qalg
