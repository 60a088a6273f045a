// The per-position factor index of the flip-graph walk (factor_index.hpp): open-addressing
// tables from a normalized factor to its class of parallel factors, kept up to date slot by slot.
#include "qalg/rank/search/factor_index.hpp"

#include <algorithm>
#include <bit>

namespace qalg::search {

void FactorIndex::reserve_terms(size_t n) {
  if (4 * n <= class_.size()) return;
  const size_t slots = 4 * std::max<size_t>(n, 2 * class_.size() / 4);  // grow geometrically
  class_.resize(slots, kNone);
  member_at_.resize(slots, kNone);
  active_at_.resize(slots, kNone);
  active_.reserve(slots);
  classes_.reserve(slots);
  // Load ≤ 1/4 while every slot of every term has its own class: probes stay short.
  const size_t want = std::bit_ceil(std::max<size_t>(64, 4 * (slots / 4)));
  if (table_[0].size() < want) rehash(want);
}

void FactorIndex::build(const std::vector<Term>& terms) {
  class_.clear();
  member_at_.clear();
  active_at_.clear();
  classes_.clear();
  free_classes_.clear();
  active_.clear();
  for (auto& t : table_) t.clear();
  used_ = {};
  reserve_terms(std::max<size_t>(terms.size() + 16, 16));
  for (uint32_t t = 0; t < terms.size(); ++t)
    for (int p = 0; p < 3; ++p) insert(t, p, terms[t].f[p]);
}

void FactorIndex::rehash(size_t capacity) {
  shift_ = 64 - static_cast<unsigned>(std::countr_zero(capacity));
  for (int p = 0; p < 3; ++p) {
    std::vector<uint32_t> old(capacity, 0);
    old.swap(table_[p]);
    for (uint32_t e : old) {
      if (!e) continue;
      uint64_t h = home(classes_[e - 1].key);
      while (table_[p][h]) h = (h + 1) & (capacity - 1);
      table_[p][h] = e;
    }
  }
}

uint32_t FactorIndex::find(int p, const Factor& f) const {
  uint32_t cls;
  probe(p, parallel_key(f), cls);
  return cls;
}

uint32_t FactorIndex::new_class(int p, const Factor& key, uint64_t at) {
  uint32_t cls;
  if (!free_classes_.empty()) {
    cls = free_classes_.back();
    free_classes_.pop_back();
    classes_[cls].members.clear();  // keeps its capacity: no allocation on reuse
  } else {
    cls = static_cast<uint32_t>(classes_.size());
    classes_.emplace_back();
  }
  classes_[cls].key = key;
  table_[p][at] = cls + 1;
  ++used_[p];
  return cls;
}

void FactorIndex::unlink(int p, uint32_t cls) {
  auto& table = table_[p];
  const uint64_t mask = table.size() - 1;
  uint64_t i = home(classes_[cls].key);
  while (table[i] != cls + 1) i = (i + 1) & mask;
  --used_[p];
  // Backward-shift deletion: later entries of the probe run move up, so no tombstones pile up
  // over a walk of millions of flips.
  for (uint64_t j = i;;) {
    table[i] = 0;
    for (;;) {
      j = (j + 1) & mask;
      if (!table[j]) return;
      const uint64_t k = home(classes_[table[j] - 1].key);
      // The entry at j may fill the hole at i unless its home lies cyclically in (i, j].
      const bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
      if (!stays) break;
    }
    table[i] = table[j];
    i = j;
  }
}

void FactorIndex::drop_class(int p, uint32_t cls) {
  unlink(p, cls);
  free_classes_.push_back(cls);
}

void FactorIndex::insert(uint32_t t, int p, const Factor& f) {
  if (2 * (used_[p] + 1) > table_[p].size()) rehash(2 * table_[p].size());
  const Factor key = parallel_key(f);
  uint32_t cls;
  const uint64_t at = probe(p, key, cls);
  join(t, p, cls != kNone ? cls : new_class(p, key, at));
}

void FactorIndex::erase(uint32_t t, int p) {
  const uint32_t s = slot(t, p);
  const uint32_t cls = class_[s];
  auto& members = classes_[cls].members;
  const uint32_t at = member_at_[s], last = members.back();
  members[at] = last;
  member_at_[slot(last, p)] = at;
  members.pop_back();
  class_[s] = member_at_[s] = kNone;
  deactivate(s);
  if (members.size() == 1) deactivate(slot(members[0], p));  // its last partner left
  if (members.empty()) drop_class(p, cls);
}

void FactorIndex::renumber(uint32_t from, uint32_t to) {
  for (int p = 0; p < 3; ++p) {
    const uint32_t a = slot(from, p), b = slot(to, p);
    const uint32_t cls = class_[a];
    if (cls == kNone) continue;
    classes_[cls].members[member_at_[a]] = to;
    class_[b] = cls;
    member_at_[b] = member_at_[a];
    if (active_at_[a] != kNone) {
      active_at_[b] = active_at_[a];
      active_[active_at_[b]] = b;
    }
    class_[a] = member_at_[a] = active_at_[a] = kNone;
  }
}

FactorIndex::Snapshot FactorIndex::snapshot() const {
  Snapshot out;
  for (int p = 0; p < 3; ++p) {
    for (uint32_t e : table_[p]) {
      if (!e) continue;
      const Class& c = classes_[e - 1];
      std::vector<uint64_t> row{c.key.pos, c.key.neg};
      std::vector<uint64_t> members(c.members.begin(), c.members.end());
      std::sort(members.begin(), members.end());
      row.insert(row.end(), members.begin(), members.end());
      out[p].push_back(std::move(row));
    }
    std::sort(out[p].begin(), out[p].end());
  }
  std::vector<uint64_t> active(active_.begin(), active_.end());
  std::sort(active.begin(), active.end());
  out[3].push_back(std::move(active));
  return out;
}

}  // namespace qalg::search
