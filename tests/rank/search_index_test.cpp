// The flip walk's incremental factor index (issue 11): after every flip, reduction and plus
// transition it equals the index rebuilt from scratch and the classes of parallel factors
// computed by brute force, and the scheme still sums to the structure tensor (F2, F3, Z3).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <set>

#include "qalg/algebra/tensor_product.hpp"
#include "qalg/rank/search/factor_index.hpp"
#include "qalg/rank/search/flip_walk.hpp"
#include "qalg/rank/search/random_bits.hpp"
#include "rank_test_support.hpp"

namespace qalg {
namespace {

using search::Factor;
using search::FactorIndex;
using search::Mode;

rc::Gen<Mode> gen_mode() { return rc::gen::element(Mode::GF2, Mode::GF3, Mode::Z3); }

// ±f with its lowest nonzero entry +1, read entry by entry (not with the index's bit trick).
Factor representative(const Factor& f) {
  for (unsigned i = 0; i < 64; ++i)
    if (int e = f.at(i)) return e > 0 ? f : f.negated();
  return f;
}

// The snapshot FactorIndex::snapshot() must give, from pairwise parallel_sign tests: per
// position the classes {t' : f_t' = ±f_t} with their representative, and the active slots
// 4t + p of terms that have a partner at p.
FactorIndex::Snapshot brute_force_index(const std::vector<search::Term>& terms) {
  FactorIndex::Snapshot out;
  std::vector<uint64_t> active;
  for (int p = 0; p < 3; ++p) {
    std::set<std::vector<uint64_t>> rows;
    for (size_t t = 0; t < terms.size(); ++t) {
      const Factor key = representative(terms[t].f[p]);
      std::vector<uint64_t> row{key.pos, key.neg};
      for (size_t u = 0; u < terms.size(); ++u)
        if (search::parallel_sign(terms[u].f[p], terms[t].f[p])) row.push_back(u);
      if (row.size() > 3) active.push_back(4 * t + p);
      rows.insert(row);
    }
    out[p].assign(rows.begin(), rows.end());
  }
  std::sort(active.begin(), active.end());
  out[3].push_back(active);
  return out;
}

// What is wrong with the walk's index, or "" when it is the index of its scheme.
std::string index_failure(const search::FlipWalk& w) {
  const auto incremental = w.index().snapshot();
  FactorIndex rebuilt;
  rebuilt.build(w.scheme().terms);
  if (incremental != rebuilt.snapshot()) return "differs from the index rebuilt from scratch";
  if (incremental != brute_force_index(w.scheme().terms)) return "differs from the brute force";
  for (uint32_t t = 0; t < w.scheme().terms.size(); ++t)
    for (int p = 0; p < 3; ++p)
      if (w.index().find(p, w.scheme().terms[t].f[p]) != w.index().class_of(t, p))
        return "a lookup does not find the term's class";
  return "";
}

// Random flips and plus transitions on `table`; index and sum checked after every move.
// Returns the first failure, or "".
std::string walk_failure(const StructureTensor& table, Mode m, uint64_t seed, int moves) {
  const search::DenseTarget target = search::dense_target(table, m);
  search::FlipWalk w(search::initial_scheme(table, m), seed);
  search::Xoshiro256 choice(seed ^ 0x5bd1e995);
  for (int move = 0; move <= moves; ++move) {
    if (move > 0) {
      if (choice.below(10) == 0)
        w.plus_transition();
      else
        w.flip();
    }
    const std::string where = "after move " + std::to_string(move) + ": ";
    if (auto e = index_failure(w); !e.empty()) return where + "index " + e;
    if (!search::scheme_matches(w.scheme(), target)) return where + "the sum is not the tensor";
  }
  return "";
}

RC_GTEST_PROP(FactorIndex, IncrementalIndexEqualsRebuiltIndexOnGraphAlgebras, ()) {
  const Quiver q = *verify::gen_any_quiver({.max_vertices = 4, .max_arrows = 6});
  RC_ASSERT(walk_failure(graph_algebra(q, Field::rationals()), *gen_mode(),
                         *rc::gen::arbitrary<uint64_t>(), 150) == "");
}

RC_GTEST_PROP(FactorIndex, IncrementalIndexEqualsRebuiltIndexOnTensorProducts, ()) {
  const verify::QuiverShape shape{.max_vertices = 2, .max_arrows = 3};
  const Quiver g = *verify::gen_any_quiver(shape), h = *verify::gen_any_quiver(shape);
  RC_ASSERT(walk_failure(tensor_product(graph_algebra(g, Field::rationals()),
                                        graph_algebra(h, Field::rationals())),
                         *gen_mode(), *rc::gen::arbitrary<uint64_t>(), 150) == "");
}

// The benchmark's tensor, Q_2 ⊗ Q_2 (dim 16, 36 terms): long walks in every mode, with enough
// plus transitions that the length grows and the tables are rehashed.
TEST(FactorIndex, IncrementalIndexEqualsRebuiltIndexOnQ2SquaredInEveryMode) {
  const StructureTensor t = tensor_power(testing::graph_table("complete:2"), 2);
  for (Mode m : {Mode::GF2, Mode::GF3, Mode::Z3})
    for (uint64_t seed : {1u, 2u})
      EXPECT_EQ(walk_failure(t, m, seed, 3000), "") << search::mode_name(m) << " seed " << seed;
}

// Direct use of the index: random factor changes (change, or erase + insert) and term removals (renumbering the last
// term), compared with the brute-force classes after every step.
RC_GTEST_PROP(FactorIndex, InsertEraseRenumberAgreeWithBruteForce, ()) {
  const Mode m = *gen_mode();
  const int dim = *rc::gen::inRange(1, 7);  // few distinct factors: large classes
  auto gen_factor = [&] {
    Factor f;
    for (int i = 0; i < dim; ++i) {
      const int e = *rc::gen::inRange(m == Mode::GF2 ? 0 : -1, 2);
      if (e == 1) f.pos |= uint64_t{1} << i;
      if (e == -1) f.neg |= uint64_t{1} << i;
    }
    if (f.is_zero()) f.pos = 1;  // the index holds nonzero factors only
    return f;
  };
  std::vector<search::Term> terms(*rc::gen::inRange<size_t>(1, 40));
  for (auto& t : terms) t.f = {gen_factor(), gen_factor(), gen_factor()};
  FactorIndex index;
  index.build(terms);
  RC_ASSERT(index.snapshot() == brute_force_index(terms));
  const int steps = *rc::gen::inRange(0, 80);
  for (int step = 0; step < steps; ++step) {
    const auto t = static_cast<uint32_t>(*rc::gen::inRange<size_t>(0, terms.size()));
    if (terms.size() > 1 && *rc::gen::inRange(0, 4) == 0) {  // drop term t
      for (int p = 0; p < 3; ++p) index.erase(t, p);
      const auto last = static_cast<uint32_t>(terms.size() - 1);
      if (t != last) {
        terms[t] = terms[last];
        index.renumber(last, t);
      }
      terms.pop_back();
    } else {
      const int p = *rc::gen::inRange(0, 3);
      terms[t].f[p] = gen_factor();
      if (*rc::gen::arbitrary<bool>()) {
        index.change(t, p, terms[t].f[p]);
      } else {
        index.erase(t, p);
        index.insert(t, p, terms[t].f[p]);
      }
    }
    RC_ASSERT(index.snapshot() == brute_force_index(terms));
  }
}

}  // namespace
}  // namespace qalg
