// Sparse exact structure tensor: canonical sorted entry list with a row index.
#include "qalg/algebra/structure_tensor.hpp"

#include <algorithm>
#include <tuple>
#include <unordered_set>

#include <fmt/core.h>

#include "qalg/algebra/errors.hpp"

namespace qalg {

StructureTensor::StructureTensor(Field field, std::vector<std::string> basis_names)
    : field_(field), names_(std::move(basis_names)) {
  if (names_.size() >= (size_t(1) << 32) - 1)
    throw ResourceError(fmt::format("dimension {} exceeds 2^32 - 2", names_.size()));
}

void StructureTensor::add(uint32_t i, uint32_t j, uint32_t k, const Rational& c) {
  if (i >= dim() || j >= dim() || k >= dim())
    throw InputError(fmt::format("entry ({}, {}, {}) out of range for dimension {}", i, j, k, dim()));
  Rational r = c;
  field_.reduce(r);
  if (r.is_zero()) return;
  entries_.push_back(TensorEntry{i, j, k, std::move(r)});
  finalized_ = false;
}

void StructureTensor::finalize() {
  if (finalized_) return;
  auto key = [](const TensorEntry& e) { return std::tie(e.i, e.j, e.k); };
  std::stable_sort(entries_.begin(), entries_.end(),
                   [&](const TensorEntry& a, const TensorEntry& b) { return key(a) < key(b); });
  std::vector<TensorEntry> merged;
  merged.reserve(entries_.size());
  for (auto& e : entries_) {
    if (!merged.empty() && key(merged.back()) == key(e)) {
      merged.back().c = field_.add(merged.back().c, e.c);
    } else {
      merged.push_back(std::move(e));
    }
  }
  merged.erase(std::remove_if(merged.begin(), merged.end(),
                              [](const TensorEntry& e) { return e.c.is_zero(); }),
               merged.end());
  entries_ = std::move(merged);
  row_start_.assign(dim() + 1, 0);
  for (const auto& e : entries_) ++row_start_[e.i + 1];
  for (size_t i = 0; i < dim(); ++i) row_start_[i + 1] += row_start_[i];
  finalized_ = true;
}

std::span<const TensorEntry> StructureTensor::row(uint32_t i) const {
  return std::span<const TensorEntry>(entries_.data() + row_start_[i], row_start_[i + 1] - row_start_[i]);
}

std::span<const TensorEntry> StructureTensor::product(uint32_t i, uint32_t j) const {
  auto r = row(i);
  auto lo = std::lower_bound(r.begin(), r.end(), j, [](const TensorEntry& e, uint32_t v) { return e.j < v; });
  auto hi = std::upper_bound(lo, r.end(), j, [](uint32_t v, const TensorEntry& e) { return v < e.j; });
  // subspan, not &*r.begin(): dereferencing the begin of an empty row (a table with no entries)
  // binds a reference to null (UBSan, scripts/sanitize.sh).
  return r.subspan(size_t(lo - r.begin()), size_t(hi - lo));
}

Rational StructureTensor::coefficient(uint32_t i, uint32_t j, uint32_t k) const {
  for (const auto& e : product(i, j))
    if (e.k == k) return e.c;
  return Rational();
}

void StructureTensor::set_slots(std::vector<Slot> s, uint32_t q) {
  if (s.size() != dim())
    throw InputError(fmt::format("slot layout has {} cells for dimension {}", s.size(), dim()));
  for (size_t b = 0; b < s.size(); ++b)
    if (s[b].row >= q || s[b].col >= q)
      throw InputError(fmt::format("slot ({}, {}) of basis element {} is outside the {}×{} grid",
                                   s[b].row, s[b].col, names_[b], q, q));
  slots_ = std::move(s);
  slot_grid_ = q;
}

bool StructureTensor::operator==(const StructureTensor& o) const {
  if (!(field_ == o.field_) || names_ != o.names_ || entries_.size() != o.entries_.size()) return false;
  for (size_t n = 0; n < entries_.size(); ++n) {
    const auto &a = entries_[n], &b = o.entries_[n];
    if (a.i != b.i || a.j != b.j || a.k != b.k || a.c != b.c) return false;
  }
  return true;
}

}  // namespace qalg
