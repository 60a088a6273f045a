// Random walks in the flip graph: flips, reductions and plus transitions (flip_walk.hpp). Every
// move keeps Σ α ⊗ β ⊗ γ unchanged; the tests check this against the exact verifier.
#include "qalg/rank/search/flip_walk.hpp"

#include <algorithm>
#include <tuple>

namespace qalg::search {

namespace {
template <class F>
decltype(auto) dispatch(Mode m, F&& f) {
  switch (m) {
    case Mode::GF2: return f(std::integral_constant<Mode, Mode::GF2>{});
    case Mode::GF3: return f(std::integral_constant<Mode, Mode::GF3>{});
    default: return f(std::integral_constant<Mode, Mode::Z3>{});
  }
}
}  // namespace

FlipWalk::FlipWalk(Scheme start, uint64_t seed) : s_(std::move(start)), rng_(seed) {
  matches_.reserve(s_.terms.size());
  dispatch(s_.mode, [&](auto m) { reduce_all_impl<decltype(m)::value>(); });
}

bool FlipWalk::flip() {
  return dispatch(s_.mode, [&](auto m) { return flip_impl<decltype(m)::value>(); });
}

bool FlipWalk::plus_transition() {
  return dispatch(s_.mode, [&](auto m) { return plus_impl<decltype(m)::value>(); });
}

void FlipWalk::compact() {
  std::erase_if(s_.terms, [](const Term& t) { return t.f[0].is_zero(); });
}

template <Mode M>
bool FlipWalk::flip_impl() {
  const size_t r = s_.terms.size();
  if (r < 2) return false;
  // Rejection sampling: a random (term, position), then a random partner parallel there.
  for (size_t attempt = 0; attempt < 8 * r + 16; ++attempt) {
    const size_t i = next() % r;
    const int p = static_cast<int>(next() % 3);
    const Factor& fi = s_.terms[i].f[p];
    matches_.clear();
    for (size_t t = 0; t < r; ++t)
      if (t != i && parallel_sign(s_.terms[t].f[p], fi)) matches_.push_back(uint32_t(t));
    if (matches_.empty()) continue;
    const size_t j = matches_[next() % matches_.size()];
    if (apply_flip<M>(i, j, p, parallel_sign(fi, s_.terms[j].f[p]))) return true;
  }
  // Flips are rare here: list them all and try them in random order.
  std::vector<std::tuple<size_t, size_t, int>> all;
  for (size_t i = 0; i < r; ++i)
    for (size_t j = 0; j < r; ++j)
      for (int p = 0; p < 3; ++p)
        if (i != j && parallel_sign(s_.terms[i].f[p], s_.terms[j].f[p])) all.emplace_back(i, j, p);
  std::shuffle(all.begin(), all.end(), rng_);
  for (auto [i, j, p] : all)
    if (apply_flip<M>(i, j, p, parallel_sign(s_.terms[i].f[p], s_.terms[j].f[p]))) return true;
  return false;
}

template <Mode M>
bool FlipWalk::apply_flip(size_t i, size_t j, int p, int s) {
  // α_i = s α_j at position p; q receives the addition, rr the subtraction. The four choices of
  // (q, λ) are tried from a random one on, so that a Z3 flip refused for leaving the range
  // does not cost another scan for a partner.
  const unsigned first = static_cast<unsigned>(next());
  const unsigned choices = M == Mode::GF2 ? 2 : 4;
  for (unsigned c = 0; c < choices; ++c) {
    const unsigned pick = (first + c) % choices;
    const int q = (p + 1 + static_cast<int>(pick & 1)) % 3;
    const int rr = 3 - p - q;
    const int lam = (pick & 2) ? -1 : 1;
    const auto nq = add_scaled<M>(s_.terms[i].f[q], s_.terms[j].f[q], lam * s);
    if (!nq) continue;
    const auto nr = add_scaled<M>(s_.terms[j].f[rr], s_.terms[i].f[rr], -lam);
    if (!nr) continue;
    s_.terms[i].f[q] = *nq;
    s_.terms[j].f[rr] = *nr;
    ++flips_;
    bool dirty = false;
    if (nq->is_zero()) { kill(i); ++reductions_; dirty = true; }
    if (nr->is_zero()) { kill(j); ++reductions_; dirty = true; }
    const size_t before = reductions_;
    if (alive(i)) settle<M>(i, q);
    if (alive(j)) settle<M>(j, rr);
    if (dirty || reductions_ != before) compact();
    return true;
  }
  return false;
}

// Merges `idx` with every term that is parallel to it in `pos` and one other position,
// following the chain of merges the first one enables.
template <Mode M>
void FlipWalk::settle(size_t idx, int pos) {
  const size_t n = s_.terms.size();
  for (;;) {
    if (!alive(idx)) return;
    bool merged = false;
    // One scan: a partner must be parallel at `pos` and at one of the two other positions.
    for (size_t t = 0; t < n && !merged; ++t) {
      if (t == idx || !alive(t)) continue;
      const Term& ti = s_.terms[idx];
      const Term& tt = s_.terms[t];
      const int s1 = parallel_sign(tt.f[pos], ti.f[pos]);
      if (!s1) continue;
      for (int step = 1; step <= 2; ++step) {
        const int o = (pos + step) % 3;
        const int z = 3 - pos - o;
        const int s2 = parallel_sign(tt.f[o], ti.f[o]);
        if (!s2) continue;
        // tt = ti.f[pos] ⊗ ti.f[o] ⊗ (s1 s2 tt.f[z]) up to the order of positions.
        const auto nz = add_scaled<M>(ti.f[z], tt.f[z], s1 * s2);
        if (!nz) continue;
        kill(t);
        ++reductions_;
        if (nz->is_zero()) {
          kill(idx);
          ++reductions_;
          return;
        }
        s_.terms[idx].f[z] = *nz;
        pos = z;
        merged = true;
        break;
      }
    }
    if (!merged) return;
  }
}

template <Mode M>
void FlipWalk::reduce_all_impl() {
  for (size_t idx = 0; idx < s_.terms.size(); ++idx)
    for (int pos = 0; pos < 3; ++pos) settle<M>(idx, pos);
  compact();
}

template <Mode M>
bool FlipWalk::plus_impl() {
  const size_t r = s_.terms.size();
  if (r < 2) return false;
  for (size_t attempt = 0; attempt < 8 * r + 16; ++attempt) {
    const size_t i = next() % r, j = next() % r;
    if (i == j) continue;
    Term ti = s_.terms[i], tj = s_.terms[j];
    if (parallel_sign(ti.f[0], tj.f[0]) || parallel_sign(ti.f[1], tj.f[1]) ||
        parallel_sign(ti.f[2], tj.f[2]))
      continue;
    const int pa = static_cast<int>(next() % 3);
    const int pb = (pa + 1 + static_cast<int>(next() & 1)) % 3;
    const int pc = 3 - pa - pb;
    if (M != Mode::GF2 && (next() & 1)) {  // the same term written as (−a') ⊗ b' ⊗ (−c')
      tj.f[pa] = tj.f[pa].negated();
      tj.f[pc] = tj.f[pc].negated();
    }
    const auto a_minus = add_scaled<M>(ti.f[pa], tj.f[pa], -1);
    const auto b_minus = add_scaled<M>(ti.f[pb], tj.f[pb], -1);
    const auto c_plus = add_scaled<M>(ti.f[pc], tj.f[pc], 1);
    if (!a_minus || !b_minus || !c_plus || a_minus->is_zero() || b_minus->is_zero() ||
        c_plus->is_zero())
      continue;
    Term first = ti, second = tj, third = tj;
    first.f[pa] = *a_minus;                               // (a − a') ⊗ b ⊗ c
    second.f[pb] = *b_minus;                              // a' ⊗ (b − b') ⊗ c
    second.f[pc] = ti.f[pc];
    third.f[pc] = *c_plus;                                // a' ⊗ b' ⊗ (c + c')
    s_.terms[i] = first;
    s_.terms[j] = second;
    s_.terms.push_back(third);
    const size_t before = reductions_;
    for (size_t t : {i, j, r})
      for (int pos = 0; pos < 3; ++pos) settle<M>(t, pos);
    if (reductions_ != before) compact();
    return true;
  }
  return false;
}

WalkResult run_walk(const Scheme& start, size_t level, const WalkLimits& limits, uint64_t seed,
                    const std::atomic<bool>& stop, std::atomic<uint64_t>& flip_counter) {
  FlipWalk w(start, seed);
  uint64_t since = 0, reported = 0;
  size_t best = w.length();
  while (w.length() >= level && w.flips() < limits.max_flips &&
         !stop.load(std::memory_order_relaxed)) {
    if (!w.flip()) {
      // No flip left: only a plus transition can move on.
      if (w.length() >= level + limits.max_excess || !w.plus_transition()) break;
      continue;
    }
    if (w.length() < best) {
      best = w.length();
      since = 0;
    } else if (++since > limits.plateau && w.length() < level + limits.max_excess) {
      w.plus_transition();
      best = w.length();
      since = 0;
    }
    if (w.flips() - reported >= 4096) {
      flip_counter.fetch_add(w.flips() - reported, std::memory_order_relaxed);
      reported = w.flips();
    }
  }
  flip_counter.fetch_add(w.flips() - reported, std::memory_order_relaxed);
  return WalkResult{w.length() < level, w.scheme(), w.flips()};
}

}  // namespace qalg::search
