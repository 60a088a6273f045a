#pragma once
// Tables built by hand in the tests (the gpu module has no FLINT and no quiver parser):
// graph algebras from SPEC §1, tensor products by the SPEC §2 formula, diagonal changes of basis,
// and random cases. Independent of the code under test except for the TableData struct.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "qalg/gpu/fraction.hpp"
#include "qalg/gpu/table_data.hpp"

namespace qalg::gpu::test {

using Arrow = std::pair<uint32_t, uint32_t>;  // (source, target)

// Q_G: basis e_0..e_{n-1}, then the arrows; e_v e_v = e_v, e_s a = a, a e_t = a (SPEC §1).
// Slots: e_v at (v, v), arrow a at (s(a), t(a)). Loops and parallel arrows are kept as given.
inline TableData quiver_table(uint32_t vertices, const std::vector<Arrow>& arrows) {
  TableData t;
  t.field = "Q";
  t.slot_grid = vertices;
  for (uint32_t v = 0; v < vertices; ++v) {
    t.basis.push_back("e" + std::to_string(v));
    t.slots.emplace_back(v, v);
    t.entries.push_back({v, v, v, 1, 1});
  }
  for (size_t a = 0; a < arrows.size(); ++a) {
    uint32_t id = vertices + uint32_t(a);
    auto [s, d] = arrows[a];
    t.basis.push_back("a" + std::to_string(a) + "_" + std::to_string(s) + "_" + std::to_string(d));
    t.slots.emplace_back(s, d);
    t.entries.push_back({s, id, id, 1, 1});
    t.entries.push_back({id, d, id, 1, 1});
  }
  t.dim = uint32_t(t.basis.size());
  t.hash = "test:quiver";
  return t;
}

inline std::vector<Arrow> complete_arrows(uint32_t q) {
  std::vector<Arrow> arrows;
  for (uint32_t a = 0; a < q; ++a)
    for (uint32_t b = 0; b < q; ++b)
      if (a != b) arrows.emplace_back(a, b);
  return arrows;
}

inline TableData complete_table(uint32_t q) { return quiver_table(q, complete_arrows(q)); }

// A ⊗ B: basis pairs (i, i') -> i * dim B + i', c = c_ij^k c'_{i'j'}^{k'}, slot
// ((a, a'), (b, b')) -> (a q' + a', b q' + b').
inline TableData tensor_table(const TableData& A, const TableData& B) {
  TableData t;
  t.field = "Q";
  const uint32_t qb = *B.slot_grid;
  t.slot_grid = *A.slot_grid * qb;
  for (uint32_t i = 0; i < A.dim; ++i)
    for (uint32_t i2 = 0; i2 < B.dim; ++i2) {
      t.basis.push_back(A.basis[i] + "*" + B.basis[i2]);
      t.slots.emplace_back(A.slots[i].first * qb + B.slots[i2].first,
                           A.slots[i].second * qb + B.slots[i2].second);
    }
  for (const TableEntry& e : A.entries)
    for (const TableEntry& f : B.entries) {
      Fraction c = multiply({e.num, e.den}, {f.num, f.den});
      t.entries.push_back({e.i * B.dim + f.i, e.j * B.dim + f.j, e.k * B.dim + f.k, c.num, c.den});
    }
  t.dim = A.dim * B.dim;
  t.hash = "test:tensor";
  return t;
}

// The same algebra in the basis b'_i = λ_i b_i: c'_ij^k = c_ij^k λ_i λ_j / λ_k. With λ powers of
// two every coefficient stays dyadic, so integer-valued inputs still give exact results.
inline TableData rescaled_table(const TableData& t, const std::vector<Fraction>& lambda) {
  TableData r = t;
  for (TableEntry& e : r.entries) {
    Fraction c = multiply(multiply({e.num, e.den}, lambda[e.i]), lambda[e.j]);
    c = multiply(c, {lambda[e.k].den, lambda[e.k].num});
    e.num = c.num;
    e.den = c.den;
  }
  return r;
}

// The arrows of a random simple quiver (no loops, no parallel arrows), each pair kept with p.
inline std::vector<Arrow> random_simple_arrows(std::mt19937_64& rng, uint32_t vertices, double p) {
  std::bernoulli_distribution keep(p);
  std::vector<Arrow> arrows;
  for (uint32_t a = 0; a < vertices; ++a)
    for (uint32_t b = 0; b < vertices; ++b)
      if (a != b && keep(rng)) arrows.emplace_back(a, b);
  std::shuffle(arrows.begin(), arrows.end(), rng);  // the basis order must not matter
  return arrows;
}

}  // namespace qalg::gpu::test
