#pragma once
// Sparse exact structure constants b_i b_j = sum_k c_ij^k b_k over Q or GF(p) (SPEC §1–2).
// Entries are kept sorted by (i, j, k), without zeros or duplicates, so the tensor is a
// canonical value: two equal algebras in the same basis have equal entry lists.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "qalg/algebra/field.hpp"

namespace qalg {

struct TensorEntry {
  uint32_t i = 0, j = 0, k = 0;
  Rational c;
};

// Position of a basis element in a q×q grid (SPEC §4): e_v at (v, v), arrow a at (s(a), t(a)).
struct Slot {
  uint32_t row = 0, col = 0;
  bool operator==(const Slot&) const = default;
};

// What the graph-algebra builder knows about its basis: the first `vertex_count` elements are
// the idempotents e_v, the rest the arrows. Used to pick the fast route, never trusted: every
// property is still checked from the table.
struct GraphBasis {
  size_t vertex_count = 0;
  size_t arrow_count = 0;
};

class StructureTensor {
 public:
  StructureTensor(Field field, std::vector<std::string> basis_names);

  const Field& field() const { return field_; }
  size_t dim() const { return names_.size(); }
  size_t nnz() const { return entries_.size(); }
  const std::vector<std::string>& basis_names() const { return names_; }
  const std::vector<TensorEntry>& entries() const { return entries_; }

  // Adds c to c_ij^k (reduced in the field). Call finalize() once all entries are in.
  void add(uint32_t i, uint32_t j, uint32_t k, const Rational& c);
  // Sorts, merges duplicates, drops zeros and builds the row index. Idempotent.
  void finalize();
  bool finalized() const { return finalized_; }

  // All entries with first index i (sorted by j, k). Requires finalize().
  std::span<const TensorEntry> row(uint32_t i) const;
  // All entries with first index i and second index j: the product b_i b_j.
  std::span<const TensorEntry> product(uint32_t i, uint32_t j) const;
  // c_ij^k (zero when absent).
  Rational coefficient(uint32_t i, uint32_t j, uint32_t k) const;

  const std::optional<std::vector<Slot>>& slots() const { return slots_; }
  void set_slots(std::vector<Slot> s, uint32_t q);
  uint32_t slot_grid() const { return slot_grid_; }
  const std::optional<GraphBasis>& graph_basis() const { return graph_; }
  void set_graph_basis(GraphBasis g) { graph_ = g; }

  bool operator==(const StructureTensor& o) const;

 private:
  Field field_;
  std::vector<std::string> names_;
  std::vector<TensorEntry> entries_;
  std::vector<size_t> row_start_;  // size dim+1 after finalize
  bool finalized_ = false;
  std::optional<std::vector<Slot>> slots_;
  uint32_t slot_grid_ = 0;
  std::optional<GraphBasis> graph_;
};

// A sparse vector of the algebra: (basis index, coefficient), sorted by index, no zeros.
using SparseVector = std::vector<std::pair<uint32_t, Rational>>;

}  // namespace qalg
