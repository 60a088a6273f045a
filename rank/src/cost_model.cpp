// Cost models summed over the block support (SPEC §4).
#include "qalg/rank/cost_model.hpp"

#include <cmath>

#include <fmt/core.h>

#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/resource_guard.hpp"

namespace qalg {
namespace {

uint64_t sum(const std::vector<uint64_t>& v) {
  uint64_t s = 0;
  for (uint64_t x : v) s = checked_add(s, x, "group widths");
  return s;
}

std::vector<uint64_t> widths_for(const std::vector<uint64_t>& given, uint32_t q, uint64_t total,
                                 const char* option, const char* letter) {
  if (given.empty()) {
    if (total == 0) throw InputError(fmt::format("{}: {} = 0: every group needs a positive width", option, letter));
    if (total % q != 0)
      throw InputError(fmt::format("{}: {} = {} is not divisible by q = {}; give {} explicitly",
                                   option, letter, total, q, option));
    return std::vector<uint64_t>(q, total / q);
  }
  if (given.size() != q)
    throw InputError(fmt::format("{}: {} widths given, the table has q = {} groups", option,
                                 given.size(), q));
  for (size_t n = 0; n < given.size(); ++n)
    if (given[n] == 0) throw InputError(fmt::format("{}: width {} is zero", option, n));
  if (sum(given) != total)
    throw InputError(fmt::format("{}: widths add up to {}, but {} = {}", option, sum(given),
                                 letter, total));
  return given;
}

}  // namespace

Rational ratio(uint64_t a, uint64_t b) {
  Rational r;
  fmpq_set_ui(r.get(), a, b);
  return r;
}

uint64_t GroupWidths::K() const { return sum(in); }
uint64_t GroupWidths::N() const { return sum(out); }

GroupWidths group_widths(uint32_t q, uint64_t K, uint64_t N, const std::vector<uint64_t>& in,
                         const std::vector<uint64_t>& out) {
  if (q == 0) throw InputError("cost model: the table has no groups");
  return GroupWidths{widths_for(in, q, K, "--widths", "K"),
                     widths_for(out, q, N, "--output-widths", "N")};
}

uint64_t type_macs(const BlockSupport& s, const GroupWidths& w, uint32_t i) {
  uint64_t macs = 0;
  for (uint32_t j = 0; j < s.q; ++j)
    for (const auto& term : s.B(i, j))
      macs = checked_add(macs, checked_mul(w.in[term.k], w.out[j], "MACs"), "MACs");
  return macs;
}

std::vector<uint64_t> cyclic_type_rows(uint64_t M, uint32_t q) {
  std::vector<uint64_t> rows(q, M / q);
  for (uint64_t i = 0; i < M % q; ++i) ++rows[i];
  return rows;
}

std::vector<uint64_t> interval_type_rows(uint64_t M, uint32_t q, uint64_t L) {
  if (L == 0) throw InputError("interval schedule: the interval length L must be positive");
  uint64_t period = checked_mul(q, L, "schedule period");
  std::vector<uint64_t> rows(q, (M / period) * L);
  uint64_t rest = M % period;  // the last, partial period fills types 0, 1, ... in order
  for (uint32_t i = 0; i < q && rest > 0; ++i) {
    uint64_t take = std::min(rest, L);
    rows[i] += take;
    rest -= take;
  }
  return rows;
}

ProjectionCost projection_cost(const BlockSupport& s, const GroupWidths& w,
                               const std::vector<uint64_t>& type_rows) {
  ProjectionCost c;
  c.type_rows = type_rows;
  uint64_t M = 0;
  for (uint32_t i = 0; i < s.q; ++i) {
    c.type_macs.push_back(type_macs(s, w, i));
    c.forward = checked_add(c.forward, checked_mul(type_rows[i], c.type_macs[i], "MACs"), "MACs");
    M = checked_add(M, type_rows[i], "rows");
  }
  c.dense = checked_mul(checked_mul(M, w.K(), "MACs"), w.N(), "MACs");
  // dX = dY · T_i(W)ᵀ and dW = Σ x_kᵀ dy_j run over the same (i, k, j) support as the forward.
  c.training = checked_mul(3, c.forward, "MACs");
  c.dense_training = checked_mul(3, c.dense, "MACs");
  c.fraction = c.dense ? ratio(c.forward, c.dense) : Rational(0);
  return c;
}

Rational equal_width_fraction(const BlockSupport& s) {
  return ratio(s.block_products(), uint64_t{s.q} * s.q * s.q);
}

Rational type_block_fraction(const BlockSupport& s, uint32_t i) {
  return ratio(s.block_products_of_type(i), uint64_t{s.q} * s.q);
}

uint64_t square_product_macs(const BlockSupport& s, uint64_t b) {
  uint64_t b3 = checked_mul(checked_mul(b, b, "block size"), b, "block size");
  return checked_mul(s.block_products(), b3, "square-product MACs");
}

FfnCost gated_ffn_training(const BlockSupport& s, uint64_t B, uint64_t D, uint64_t F) {
  GroupWidths up = group_widths(s.q, D, F, {}, {});
  GroupWidths down = group_widths(s.q, F, D, {}, {});
  std::vector<uint64_t> rows = cyclic_type_rows(B, s.q);
  ProjectionCost u = projection_cost(s, up, rows), d = projection_cost(s, down, rows);
  FfnCost c;
  c.training = checked_add(checked_mul(2, u.training, "MACs"), d.training, "MACs");
  c.dense_training = checked_add(checked_mul(2, u.dense_training, "MACs"), d.dense_training, "MACs");
  return c;
}

Rational decode_projection_fraction(const BlockSupport& s, uint64_t D, uint64_t Hq, uint64_t Hkv,
                                    uint64_t F, uint64_t g) {
  GroupWidths up = group_widths(s.q, D, F, {}, {});
  GroupWidths down = group_widths(s.q, F, D, {}, {});
  uint64_t attention = checked_mul(2 * D, checked_add(Hq, Hkv, "widths"), "MACs");
  // One token per type: the sum over types is q times the per-token average.
  uint64_t ffn_alg = 0;
  for (uint32_t i = 0; i < s.q; ++i)
    ffn_alg = checked_add(ffn_alg, checked_add(checked_mul(g, type_macs(s, up, i), "MACs"),
                                               type_macs(s, down, i), "MACs"), "MACs");
  uint64_t alg = checked_add(checked_mul(s.q, attention, "MACs"), ffn_alg, "MACs");
  uint64_t dense = checked_mul(s.q, checked_add(attention, checked_mul((g + 1) * D, F, "MACs"), "MACs"), "MACs");
  return ratio(alg, dense);
}

AttentionCeilings attention_ceilings(const BlockSupport& s) {
  AttentionCeilings a;
  a.score_fraction = equal_width_fraction(s);
  Rational one(1);
  // Dense: Q·Kᵀ and P·V (2 units). Algebraic: ρ + 1.
  a.forward = Rational(2);
  fmpq_div(a.forward.get(), a.forward.get(), (one + a.score_fraction).get());
  // Training with recomputation: dense 7 units (QKᵀ, its recomputation, dQ, dK; PV, dP, dV);
  // the four score contractions scale by ρ.
  Rational denominator = Rational(3) + Rational(4) * a.score_fraction;
  a.training = Rational(7);
  fmpq_div(a.training.get(), a.training.get(), denominator.get());
  return a;
}

double crossover_margin(double rho, double eta, double delta) {
  if (!(eta > 0) || !std::isfinite(eta)) throw InputError(fmt::format("crossover: η = {} must be positive and finite", eta));
  if (!(rho >= 0) || !std::isfinite(rho)) throw InputError(fmt::format("crossover: ρ = {} must be finite and at least 0", rho));
  if (!std::isfinite(delta)) throw InputError(fmt::format("crossover: δ = {} must be finite", delta));
  return 1.0 - (rho / eta + delta);
}
bool crossover_wins(double rho, double eta, double delta) {
  return crossover_margin(rho, eta, delta) > 0;
}

}  // namespace qalg
