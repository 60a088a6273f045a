#pragma once
// One random walk in the flip graph of a tensor (Kauers–Moosbauer, arXiv 2212.01175), with the
// plus transition of the adaptive flip graph (Arai–Ichikawa–Hukushima) to leave plateaus.
//
// Flip: terms i, j with α_i = s·α_j (s = ±1) and a scalar λ = ±1 (λ = 1 over GF(2)):
//   α_i ⊗ β_i ⊗ γ_i + α_j ⊗ β_j ⊗ γ_j  =  α_i ⊗ (β_i + λ s β_j) ⊗ γ_i + α_j ⊗ β_j ⊗ (γ_j − λ γ_i),
// and likewise with the three positions permuted. The sum is unchanged, so every scheme the walk
// visits still sums to the target. Reduction: a term whose factor became zero is dropped; two
// terms with two parallel factors are merged into one. Plus transition (length + 1):
//   a⊗b⊗c + a'⊗b'⊗c' = (a − a')⊗b⊗c + a'⊗(b − b')⊗c + a'⊗b'⊗(c + c').
// In Z3 mode a move whose factors would leave {−1, 0, 1} is refused.
//
// Speed (issue 11): partners for flips and reductions come from a per-position factor index
// (factor_index.hpp) updated with every changed factor, random numbers from xoshiro256**
// (random_bits.hpp); dropped terms are swapped with the last one, so the order of the terms
// changes along a walk (a scheme is a set of terms).
#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

#include "qalg/rank/search/factor_index.hpp"
#include "qalg/rank/search/random_bits.hpp"
#include "qalg/rank/search/scheme.hpp"

namespace qalg::search {

class FlipWalk {
 public:
  // Applies every available reduction to `start` first.
  FlipWalk(Scheme start, uint64_t seed);

  // One random flip followed by the reductions it enables. False when no two terms share a
  // parallel factor (or, in Z3 mode, every such flip leaves the range).
  bool flip();
  // One random plus transition; false when no pair of terms admits one.
  bool plus_transition();

  const Scheme& scheme() const { return s_; }
  size_t length() const { return s_.terms.size(); }
  uint64_t flips() const { return flips_; }
  uint64_t reductions() const { return reductions_; }
  // The incremental factor index of scheme().terms (for the tests: it must always equal the
  // index built from scratch).
  const FactorIndex& index() const { return index_; }

 private:
  template <Mode M> bool flip_impl();
  template <Mode M> bool apply_flip(size_t i, size_t j, int p, int s);
  template <Mode M> bool plus_impl();
  template <Mode M> void settle(uint32_t idx, int pos);
  template <Mode M> void reduce_all_impl();
  bool alive(uint32_t t) const { return !s_.terms[t].f[0].is_zero(); }
  // Factor p of term t becomes f (nonzero), in the scheme and in the index.
  void set_factor(uint32_t t, int p, const Factor& f);
  // Term t leaves the index and is zeroed; compact() removes it at the end of the move.
  void kill(uint32_t t);
  void compact();
  uint64_t next() { return rng_(); }

  Scheme s_;
  Xoshiro256 rng_;
  FactorIndex index_;
  uint64_t flips_ = 0;
  uint64_t reductions_ = 0;
  std::vector<uint32_t> dead_;  // killed during the current move
  std::vector<std::array<uint32_t, 3>> candidates_;  // Z3 fallback: every (i, j, p) flip
};

struct WalkLimits {
  uint64_t max_flips = 200'000;    // flips before the walk gives up
  uint64_t plateau = 5'000;        // flips without a reduction before a plus transition
  size_t max_excess = 1;           // plus transitions never take the length above level + this
};

struct WalkResult {
  bool reduced = false;  // the walk found a scheme shorter than `level`
  Scheme scheme;         // that scheme (or the last one visited)
  uint64_t flips = 0;
};

// Walks from `start` until the length drops below `level`, the flip budget is spent or `stop`
// is set. `flip_counter` receives the flips as they are done (for the progress display).
WalkResult run_walk(const Scheme& start, size_t level, const WalkLimits& limits, uint64_t seed,
                    const std::atomic<bool>& stop, std::atomic<uint64_t>& flip_counter);

}  // namespace qalg::search
