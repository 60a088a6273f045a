#pragma once
// Per-position index of a scheme's factors for the flip-graph walk (issue 11). A flip needs two
// terms whose factors at one position are parallel (a = ±b), a reduction two terms parallel at
// two positions. Scanning all r terms for such a partner made every flip O(r); this index keeps,
// for each position, the classes of parallel factors (open addressing from the class's
// normalized factor to the class) and, per class, the terms in it, so that a partner, and the
// check for a reduction after a flip, costs a hash probe and a look at a usually tiny class.
//
// Slot (t, p) is position p of term t, numbered 4t + p. A slot is *active* when its class has
// another member: the walk samples flips uniformly from the active slots, then a partner
// uniformly from the rest of the class — the same distribution as sampling (t, p) uniformly
// and rejecting slots without partner, but without the rejections.
//
// Every update is incremental and allocation-free once the tables have grown to the walk's
// largest length; `build` makes the index of a term list from scratch (used at the start and
// by the tests, which check that the incremental index always equals the rebuilt one).
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "qalg/rank/search/factor.hpp"
#include "qalg/rank/search/scheme.hpp"

namespace qalg::search {

// The representative of the class {f, −f}: the lowest nonzero entry made +1. Over GF(2)
// (neg = 0) this is f itself. Two factors are parallel exactly when their keys are equal.
inline Factor parallel_key(const Factor& f) {
  const uint64_t low = f.support() & (~f.support() + 1);
  return (f.neg & low) ? f.negated() : f;
}

class FactorIndex {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  // Forgets everything and indexes every slot of `terms` (all factors must be nonzero).
  void build(const std::vector<Term>& terms);

  // Room for terms 0 .. n−1 (grows the tables; the only place that allocates).
  void reserve_terms(size_t n);

  // Slot (t, p) joins the class of factor f / leaves its class. A slot is in at most one class.
  void insert(uint32_t t, int p, const Factor& f);
  void erase(uint32_t t, int p);
  // Slot (t, p), in the index, now holds factor f: erase + insert, with a fast path for the
  // common move from a class of its own to a new class.
  void change(uint32_t t, int p, const Factor& f);
  // The slots of term `from` become the slots of term `to` (whose slots must be empty).
  void renumber(uint32_t from, uint32_t to);

  uint32_t class_of(uint32_t t, int p) const { return class_[slot(t, p)]; }
  std::span<const uint32_t> members(uint32_t cls) const { return classes_[cls].members; }
  const Factor& key(uint32_t cls) const { return classes_[cls].key; }
  // The class of factors parallel to f at position p, or kNone.
  uint32_t find(int p, const Factor& f) const;

  size_t active_count() const { return active_.size(); }
  // The k-th active slot as (term, position).
  uint32_t active_term(size_t k) const { return active_[k] >> 2; }
  int active_position(size_t k) const { return static_cast<int>(active_[k] & 3); }

  // A canonical form for comparisons: per position, (key.pos, key.neg, sorted member terms...)
  // for every nonempty class, sorted; then the sorted active slots as a fourth list.
  using Snapshot = std::array<std::vector<std::vector<uint64_t>>, 4>;
  Snapshot snapshot() const;

 private:
  struct Class {
    Factor key;
    std::vector<uint32_t> members;
  };
  static uint32_t slot(uint32_t t, int p) { return (t << 2) | static_cast<uint32_t>(p); }
  uint64_t home(const Factor& key) const {
    return ((key.pos * 0x9e3779b97f4a7c15ULL) ^ (key.neg * 0xc2b2ae3d27d4eb4fULL)) >> shift_;
  }
  void activate(uint32_t s);
  void deactivate(uint32_t s);
  // The table position of `key` at p (cls = its class) or of the empty entry ending its probe
  // run (cls = kNone).
  uint64_t probe(int p, const Factor& key, uint32_t& cls) const;
  void join(uint32_t t, int p, uint32_t cls);
  uint32_t new_class(int p, const Factor& key, uint64_t at);
  void unlink(int p, uint32_t cls);  // removes cls from the table of p
  void drop_class(int p, uint32_t cls);
  void rehash(size_t capacity);

  // Per slot: its class, its place in the class's members, its place in active_ (or kNone).
  std::vector<uint32_t> class_, member_at_, active_at_;
  std::vector<Class> classes_;
  std::vector<uint32_t> free_classes_;
  // Per position, a linear-probing table of class id + 1 (0 = empty) of `capacity` = 2^(64−shift_).
  std::array<std::vector<uint32_t>, 3> table_;
  std::array<size_t, 3> used_{};
  unsigned shift_ = 64;
  std::vector<uint32_t> active_;
};

// The hot path of a flip (each changed factor), inline so the walk's loop can fold it in.
inline uint64_t FactorIndex::probe(int p, const Factor& key, uint32_t& cls) const {
  const uint64_t mask = table_[p].size() - 1;
  for (uint64_t h = home(key);; h = (h + 1) & mask) {
    const uint32_t e = table_[p][h];
    if (!e || classes_[e - 1].key == key) {
      cls = e ? e - 1 : kNone;
      return h;
    }
  }
}

inline void FactorIndex::join(uint32_t t, int p, uint32_t cls) {
  auto& members = classes_[cls].members;
  const uint32_t s = slot(t, p);
  class_[s] = cls;
  member_at_[s] = static_cast<uint32_t>(members.size());
  members.push_back(t);
  if (members.size() == 2) activate(slot(members[0], p));
  if (members.size() >= 2) activate(s);
}

inline void FactorIndex::change(uint32_t t, int p, const Factor& f) {
  const Factor key = parallel_key(f);
  const uint32_t old = class_[slot(t, p)];
  if (classes_[old].key == key) return;
  if (2 * (used_[p] + 1) > table_[p].size()) rehash(2 * table_[p].size());
  uint32_t cls;
  const uint64_t at = probe(p, key, cls);
  if (cls != kNone) {  // joins an existing class
    erase(t, p);
    join(t, p, cls);
  } else if (classes_[old].members.size() == 1) {
    // The usual case: a fresh factor leaves a class of its own. Re-key that class in place
    // (its members and the active slots stay as they are).
    unlink(p, old);
    classes_[old].key = key;
    const uint64_t free_at = probe(p, key, cls);  // the unlink may have moved entries
    table_[p][free_at] = old + 1;
    ++used_[p];
  } else {
    erase(t, p);  // `old` keeps its other members, so the table and `at` are unchanged
    join(t, p, new_class(p, key, at));
  }
}

inline void FactorIndex::activate(uint32_t s) {
  if (active_at_[s] != kNone) return;
  active_at_[s] = static_cast<uint32_t>(active_.size());
  active_.push_back(s);
}

inline void FactorIndex::deactivate(uint32_t s) {
  const uint32_t k = active_at_[s];
  if (k == kNone) return;
  const uint32_t last = active_.back();
  active_[k] = last;
  active_at_[last] = k;
  active_.pop_back();
  active_at_[s] = kNone;
}

}  // namespace qalg::search
