// Block support of a slot-compatible table (SPEC §4), with the compatibility checks.
#include "qalg/rank/block_support.hpp"

#include <map>

#include <fmt/core.h>

#include "qalg/algebra/errors.hpp"

namespace qalg {

size_t BlockSupport::block_products() const {
  size_t n = 0;
  for (const auto& c : cells) n += c.size();
  return n;
}

size_t BlockSupport::block_products_of_type(uint32_t i) const {
  size_t n = 0;
  for (uint32_t j = 0; j < q; ++j) n += B(i, j).size();
  return n;
}

BlockSupport block_support(const StructureTensor& t) {
  const auto& slots = t.slots();
  const auto& names = t.basis_names();
  if (!slots || slots->size() != t.dim() || t.slot_grid() == 0)
    throw InputError("table is not slot-compatible: it carries no slot for each basis element "
                     "(SPEC §4)");
  BlockSupport s;
  s.q = t.slot_grid();
  s.cells.resize(size_t{s.q} * s.q);
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> owner;
  for (uint32_t b = 0; b < t.dim(); ++b) {
    const Slot& c = (*slots)[b];
    if (c.row >= s.q || c.col >= s.q)
      throw InputError(fmt::format("table is not slot-compatible: {} has slot ({}, {}) outside the "
                                   "{}×{} grid", names[b], c.row, c.col, s.q, s.q));
    auto [it, fresh] = owner.emplace(std::pair{c.row, c.col}, b);
    if (!fresh)
      throw InputError(fmt::format("table is not slot-compatible: {} and {} share slot ({}, {}) "
                                   "(loops or parallel arrows)", names[it->second], names[b],
                                   c.row, c.col));
  }
  for (const auto& e : t.entries()) {
    const Slot &x = (*slots)[e.i], &y = (*slots)[e.j], &z = (*slots)[e.k];
    if (x.col != y.row)
      throw InputError(fmt::format("table is not slot-compatible: {}·{} is nonzero but slots "
                                   "({}, {}) and ({}, {}) do not chain", names[e.i], names[e.j],
                                   x.row, x.col, y.row, y.col));
    if (z.row != x.row || z.col != y.col)
      throw InputError(fmt::format("table is not slot-compatible: {}·{} has a component on {} in "
                                   "slot ({}, {}), not ({}, {})", names[e.i], names[e.j],
                                   names[e.k], z.row, z.col, x.row, y.col));
    // One basis element per slot, so (i, k, j) determines the entry: no duplicates in a cell.
    s.cells[size_t{x.row} * s.q + y.col].push_back({x.col, e.c});
  }
  return s;
}

}  // namespace qalg
