// Random walks in the flip graph: flips, reductions and plus transitions (flip_walk.hpp). Every
// move keeps Σ α ⊗ β ⊗ γ unchanged; the tests check this against the exact verifier.
#include "qalg/rank/search/flip_walk.hpp"

#include <algorithm>
#include <functional>

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
  // A term with a zero factor adds nothing to the sum; the index holds nonzero factors only.
  std::erase_if(s_.terms, [](const Term& t) {
    return t.f[0].is_zero() || t.f[1].is_zero() || t.f[2].is_zero();
  });
  s_.terms.reserve(s_.terms.size() + 64);  // room for plus transitions without reallocating
  index_.build(s_.terms);
  dispatch(s_.mode, [&](auto m) { reduce_all_impl<decltype(m)::value>(); });
}

bool FlipWalk::flip() {
  return dispatch(s_.mode, [&](auto m) { return flip_impl<decltype(m)::value>(); });
}

bool FlipWalk::plus_transition() {
  return dispatch(s_.mode, [&](auto m) { return plus_impl<decltype(m)::value>(); });
}

void FlipWalk::set_factor(uint32_t t, int p, const Factor& f) {
  index_.change(t, p, f);  // ±f stays in its class: then only the stored signs change
  s_.terms[t].f[p] = f;
}

void FlipWalk::kill(uint32_t t) {
  for (int p = 0; p < 3; ++p) index_.erase(t, p);
  s_.terms[t].f = {};
  dead_.push_back(t);
}

// Removes the killed terms by moving the last live term into each hole (highest hole first,
// so the term moved is never itself a hole).
void FlipWalk::compact() {
  std::sort(dead_.begin(), dead_.end(), std::greater<>());
  for (uint32_t d : dead_) {
    const auto last = static_cast<uint32_t>(s_.terms.size() - 1);
    if (d != last) {
      s_.terms[d] = s_.terms[last];
      index_.renumber(last, d);
    }
    s_.terms.pop_back();
  }
  dead_.clear();
}

template <Mode M>
bool FlipWalk::flip_impl() {
  const size_t active = index_.active_count();
  if (active == 0) return false;  // no two terms share a parallel factor
  // A slot uniformly among those with a partner, then a partner uniformly in its class.
  const size_t attempts = M == Mode::Z3 ? 8 * s_.terms.size() + 16 : 1;
  for (size_t attempt = 0; attempt < attempts; ++attempt) {
    const size_t k = rng_.below(index_.active_count());
    const uint32_t i = index_.active_term(k);
    const int p = index_.active_position(k);
    const auto members = index_.members(index_.class_of(i, p));
    uint32_t j = members[rng_.below(members.size() - 1)];
    if (j == i) j = members.back();
    if (apply_flip<M>(i, j, p, parallel_sign(s_.terms[i].f[p], s_.terms[j].f[p]))) return true;
  }
  // Z3 only: every sampled flip left {−1, 0, 1}. List them all and try them in random order.
  candidates_.clear();
  for (size_t k = 0; k < index_.active_count(); ++k) {
    const uint32_t i = index_.active_term(k);
    const int p = index_.active_position(k);
    for (uint32_t j : index_.members(index_.class_of(i, p)))
      if (j != i) candidates_.push_back({i, j, static_cast<uint32_t>(p)});
  }
  std::shuffle(candidates_.begin(), candidates_.end(), rng_);
  for (auto [i, j, p] : candidates_)
    if (apply_flip<M>(i, j, int(p), parallel_sign(s_.terms[i].f[p], s_.terms[j].f[p]))) return true;
  return false;
}

template <Mode M>
bool FlipWalk::apply_flip(size_t i, size_t j, int p, int s) {
  // α_i = s α_j at position p; q receives the addition, rr the subtraction. The four choices of
  // (q, λ) are tried from a random one on, so that a Z3 flip refused for leaving the range
  // does not cost another sample.
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
    ++flips_;
    const auto ti = static_cast<uint32_t>(i), tj = static_cast<uint32_t>(j);
    if (nq->is_zero()) {
      kill(ti);
      ++reductions_;
    } else {
      set_factor(ti, q, *nq);
    }
    if (nr->is_zero()) {
      kill(tj);
      ++reductions_;
    } else {
      set_factor(tj, rr, *nr);
    }
    // Only position q of i and rr of j changed: a new reduction must involve one of them.
    if (alive(ti)) settle<M>(ti, q);
    if (alive(tj)) settle<M>(tj, rr);
    if (!dead_.empty()) compact();
    return true;
  }
  return false;
}

// Merges `idx` with a term that is parallel to it in `pos` and one other position, following
// the chain of merges the first one enables. The partners at `pos` are the class of idx there;
// "parallel at o" is "same class at o".
template <Mode M>
void FlipWalk::settle(uint32_t idx, int pos) {
  for (;;) {
    if (!alive(idx)) return;
    const auto members = index_.members(index_.class_of(idx, pos));
    if (members.size() < 2) return;
    bool merged = false;
    for (uint32_t t : members) {
      if (t == idx) continue;
      for (int step = 1; step <= 2; ++step) {
        const int o = (pos + step) % 3;
        if (index_.class_of(t, o) != index_.class_of(idx, o)) continue;
        const int z = 3 - pos - o;
        const Term& ti = s_.terms[idx];
        const Term& tt = s_.terms[t];
        const int s1 = parallel_sign(tt.f[pos], ti.f[pos]);
        const int s2 = parallel_sign(tt.f[o], ti.f[o]);
        // tt = ti.f[pos] ⊗ ti.f[o] ⊗ (s1 s2 tt.f[z]) up to the order of positions.
        const auto nz = add_scaled<M>(ti.f[z], tt.f[z], s1 * s2);
        if (!nz) continue;
        kill(t);  // changes `members`: leave both loops now
        ++reductions_;
        if (nz->is_zero()) {
          kill(idx);
          ++reductions_;
          return;
        }
        set_factor(idx, z, *nz);
        pos = z;
        merged = true;
        break;
      }
      if (merged) break;
    }
    if (!merged) return;
  }
}

template <Mode M>
void FlipWalk::reduce_all_impl() {
  for (uint32_t idx = 0; idx < s_.terms.size(); ++idx)
    for (int pos = 0; pos < 3; ++pos) settle<M>(idx, pos);
  compact();
}

template <Mode M>
bool FlipWalk::plus_impl() {
  const size_t r = s_.terms.size();
  if (r < 2) return false;
  for (size_t attempt = 0; attempt < 8 * r + 16; ++attempt) {
    const auto i = static_cast<uint32_t>(rng_.below(r)), j = static_cast<uint32_t>(rng_.below(r));
    if (i == j) continue;
    if (index_.class_of(i, 0) == index_.class_of(j, 0) ||
        index_.class_of(i, 1) == index_.class_of(j, 1) ||
        index_.class_of(i, 2) == index_.class_of(j, 2))
      continue;
    const Term ti = s_.terms[i];
    Term tj = s_.terms[j];
    const int pa = static_cast<int>(rng_.below(3));
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
    const auto added = static_cast<uint32_t>(r);
    index_.reserve_terms(r + 1);
    s_.terms.push_back(third);
    for (int p = 0; p < 3; ++p) {
      set_factor(i, p, first.f[p]);
      set_factor(j, p, second.f[p]);
      index_.insert(added, p, third.f[p]);
    }
    for (uint32_t t : {i, j, added})
      for (int pos = 0; pos < 3; ++pos) settle<M>(t, pos);
    if (!dead_.empty()) compact();
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
