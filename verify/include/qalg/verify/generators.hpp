#pragma once
// RapidCheck generators shared by the test suite and `qalg check` (ARCHITECTURE: verify/):
// quivers, fields, graph-algebra and tensor-product tables, field elements. Generators that need
// the rank or gpu modules live in algorithm_generators.hpp / lowering_generators.hpp, so that this
// header only needs the algebra library (tests/algebra uses it).
// Sizes follow RapidCheck's size parameter so that failures shrink to small quivers.
#include <rapidcheck.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "qalg/algebra/field.hpp"
#include "qalg/algebra/graph_algebra.hpp"
#include "qalg/algebra/quiver.hpp"
#include "qalg/algebra/quiver_input.hpp"
#include "qalg/algebra/structure_tensor.hpp"
#include "qalg/algebra/tensor_product.hpp"
#include "qalg/verify/show.hpp"

namespace qalg::verify {

struct QuiverShape {
  size_t max_vertices = 6;
  size_t max_arrows = 12;
  bool loops = true;     // allow s(a) = t(a)
  bool parallel = true;  // allow repeated (s, t)
};

// A random quiver: 1..max_vertices vertices, up to max_arrows arrows, names "1".."n" and
// "a1".."am" (so it round-trips through edge lists).
inline rc::Gen<Quiver> gen_quiver(QuiverShape shape = {}) {
  return rc::gen::withSize([shape](int size) {
    const size_t vmax = std::max<size_t>(1, std::min<size_t>(shape.max_vertices, 1 + size_t(size) / 10));
    return rc::gen::mapcat(rc::gen::inRange<size_t>(1, vmax + 1), [shape](size_t nv) {
      auto gen_arrow = rc::gen::pair(rc::gen::inRange<uint32_t>(0, uint32_t(nv)), rc::gen::inRange<uint32_t>(0, uint32_t(nv)));
      return rc::gen::map(rc::gen::container<std::vector<std::pair<uint32_t, uint32_t>>>(gen_arrow),
                          [nv, shape](std::vector<std::pair<uint32_t, uint32_t>> pairs) {
                            Quiver q;
                            for (size_t v = 0; v < nv; ++v) q.vertices.push_back(std::to_string(v + 1));
                            std::vector<std::pair<uint32_t, uint32_t>> used;
                            for (auto [s, t] : pairs) {
                              if (q.arrows.size() >= shape.max_arrows) break;
                              if (!shape.loops && s == t) continue;
                              if (!shape.parallel &&
                                  std::find(used.begin(), used.end(), std::make_pair(s, t)) != used.end())
                                continue;
                              used.emplace_back(s, t);
                              q.arrows.push_back(Arrow{s, t, "a" + std::to_string(q.arrows.size() + 1)});
                            }
                            return q;
                          });
    });
  });
}

// Q or a small prime field.
// Drawn by index (rc::gen::element does not shrink), so failures shrink towards Q.
inline rc::Gen<Field> gen_field() {
  static const std::vector<ulong> primes{0, 2, 3, 5, 7, 101, 65521};
  return rc::gen::map(rc::gen::inRange<size_t>(0, primes.size()), [](size_t i) {
    return primes[i] == 0 ? Field::rationals() : Field::prime(primes[i]);
  });
}

// ---- Named families (SPEC §1 examples; the family parser of quiver_input builds them). ----

// complete:q, path:n, cycle:n or star:n with parameter 1..max_param (star: leaves).
inline rc::Gen<Quiver> gen_named_quiver(size_t max_param = 4) {
  const size_t top = std::max<size_t>(1, max_param);
  static const std::vector<std::string> families{"complete", "path", "cycle", "star"};
  return rc::gen::map(rc::gen::pair(rc::gen::inRange<size_t>(0, families.size()), rc::gen::inRange<size_t>(1, top + 1)),
                      [](const std::pair<size_t, size_t>& p) {
                        return quiver_family(families[p.first] + ":" + std::to_string(p.second));
                      });
}

// Random quivers (loops and parallel arrows included) and the named families, mixed.
inline rc::Gen<Quiver> gen_any_quiver(QuiverShape shape = {}) {
  return rc::gen::weightedOneOf<Quiver>(
      {{3, gen_quiver(shape)}, {1, gen_named_quiver(std::min<size_t>(shape.max_vertices, 4))}});
}

// ---- Structure tables (SPEC §1–2). ----

struct GraphCase {
  Quiver quiver;
  StructureTensor table;
};

inline void showValue(const GraphCase& g, std::ostream& os) {
  showValue(g.quiver, os);
  os << " over " << g.table.field().name();
}

// Q_G over a random field, with the quiver it came from.
inline rc::Gen<GraphCase> gen_graph_case(QuiverShape shape = {}) {
  return rc::gen::map(rc::gen::pair(gen_any_quiver(shape), gen_field()),
                      [](const std::pair<Quiver, Field>& p) {
                        return GraphCase{p.first, graph_algebra(p.first, p.second)};
                      });
}

struct TensorCase {
  Quiver left, right;
  StructureTensor a, b;  // Q_left and Q_right over one field
  StructureTensor product;
};

inline void showValue(const TensorCase& t, std::ostream& os) {
  os << "(";
  showValue(t.left, os);
  os << ") ⊗ (";
  showValue(t.right, os);
  os << ") over " << t.product.field().name();
}

// Q_G ⊗ Q_H over one random field. Factors are kept small (dim multiplies).
inline rc::Gen<TensorCase> gen_tensor_case(QuiverShape shape = {.max_vertices = 3, .max_arrows = 4}) {
  return rc::gen::map(rc::gen::tuple(gen_any_quiver(shape), gen_any_quiver(shape), gen_field()),
                      [](const std::tuple<Quiver, Quiver, Field>& c) {
                        const auto& [g, h, f] = c;
                        StructureTensor a = graph_algebra(g, f), b = graph_algebra(h, f);
                        StructureTensor p = tensor_product(a, b);
                        return TensorCase{g, h, std::move(a), std::move(b), std::move(p)};
                      });
}

// A field element with a small representative: integers in [-3, 3] and, over Q, halves.
inline rc::Gen<Rational> gen_scalar(const Field& f) {
  return rc::gen::map(rc::gen::pair(rc::gen::inRange<int>(-3, 4), rc::gen::inRange<int>(0, 3)),
                      [f](std::pair<int, int> nd) {
                        const ulong den = nd.second == 2 ? 2 : 1;  // a third of the values are halves
                        Rational r = f.is_rationals() ? Rational(nd.first, den) : Rational(nd.first);
                        f.reduce(r);
                        return r;
                      });
}

// A sparse element of a dim-dimensional algebra over f (sorted, no zeros).
inline rc::Gen<SparseVector> gen_element(const Field& f, size_t dim) {
  return rc::gen::map(rc::gen::container<std::vector<Rational>>(dim, gen_scalar(f)),
                      [](const std::vector<Rational>& coords) {
                        SparseVector v;
                        for (uint32_t i = 0; i < coords.size(); ++i)
                          if (!coords[i].is_zero()) v.emplace_back(i, coords[i]);
                        return v;
                      });
}

}  // namespace qalg::verify
