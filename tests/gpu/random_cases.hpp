#pragma once
// Random lowering cases: a slot-compatible table (random quiver, complete graph, tensor product
// of random quivers, or a dyadic rescaling of one), random unequal widths and one of the three
// type schedules; plus integer-valued matrices and a comparison that reports the first mismatch.
#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "qalg/gpu/row_matrix.hpp"
#include "qalg/gpu/schedule.hpp"
#include "table_builders.hpp"

namespace qalg::gpu::test {

struct RandomCase {
  TableData table;
  std::vector<uint32_t> s, r;  // input / output widths
  std::vector<uint32_t> types;  // one per row
  std::string what;             // for failure messages
};

inline TableData random_slot_table(std::mt19937_64& rng, std::string& what) {
  auto pick = [&](uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); };
  auto random_quiver = [&](uint32_t max_vertices) {
    uint32_t n = pick(1, max_vertices);
    double p = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    return quiver_table(n, random_simple_arrows(rng, n, p));
  };
  switch (pick(0, 3)) {
    case 0:
      what = "random quiver";
      return random_quiver(5);
    case 1: {
      uint32_t q = pick(1, 4);
      what = "complete:" + std::to_string(q);
      return complete_table(q);
    }
    case 2:
      what = "tensor of random quivers";
      return tensor_table(random_quiver(3), random_quiver(3));
    default: {
      what = "rescaled random quiver";
      TableData t = random_quiver(4);
      const Fraction choices[] = {{1, 2}, {1, 1}, {2, 1}, {-1, 1}, {-4, 1}};
      std::vector<Fraction> lambda;
      for (uint32_t b = 0; b < t.dim; ++b) lambda.push_back(choices[pick(0, 4)]);
      return rescaled_table(t, lambda);
    }
  }
}

inline RandomCase random_case(uint64_t seed, uint32_t max_width = 4, uint32_t max_rows = 14) {
  std::mt19937_64 rng(seed);
  auto pick = [&](uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); };
  RandomCase c;
  c.table = random_slot_table(rng, c.what);
  const uint32_t q = *c.table.slot_grid;
  for (uint32_t g = 0; g < q; ++g) {
    c.s.push_back(pick(1, max_width));
    c.r.push_back(pick(1, max_width));
  }
  const uint32_t M = pick(0, max_rows);
  switch (pick(0, 2)) {
    case 0:
      c.types = TypeSchedule::cyclic(q).row_types(M);
      c.what += ", cyclic";
      break;
    case 1:
      c.types = TypeSchedule::intervals(q, pick(1, 3)).row_types(M);
      c.what += ", intervals";
      break;
    default: {
      std::vector<uint32_t> types(M);
      for (auto& t : types) t = pick(0, q - 1);
      c.types = TypeSchedule::explicit_types(q, types).row_types(M);
      c.what += ", explicit";
    }
  }
  c.what += ", q = " + std::to_string(q) + ", M = " + std::to_string(M) + ", seed " + std::to_string(seed);
  return c;
}

// Integer entries in [-bound, bound]: products and sums stay exact in float and double.
template <class T>
RowMatrix<T> integer_matrix(std::mt19937_64& rng, Eigen::Index rows, Eigen::Index cols, int bound = 3) {
  std::uniform_int_distribution<int> d(-bound, bound);
  RowMatrix<T> m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = T(d(rng));
  return m;
}

template <class T>
RowMatrix<T> normal_matrix(std::mt19937_64& rng, Eigen::Index rows, Eigen::Index cols) {
  std::normal_distribution<double> d(0.0, 1.0);
  RowMatrix<T> m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = T(d(rng));
  return m;
}

// "" when equal (NaN matches NaN, Inf must match exactly), else the first difference.
template <class T>
std::string exact_difference(const RowMatrix<T>& a, const RowMatrix<T>& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return "shapes differ";
  for (Eigen::Index r = 0; r < a.rows(); ++r)
    for (Eigen::Index c = 0; c < a.cols(); ++c) {
      T x = a(r, c), y = b(r, c);
      if ((std::isnan(x) && std::isnan(y)) || x == y) continue;
      std::ostringstream o;
      o << "(" << r << "," << c << "): " << x << " vs " << y;
      return o.str();
    }
  return "";
}

// Relative L2 error ||a − b|| / max(||b||, tiny).
template <class T>
double relative_l2(const RowMatrix<T>& a, const RowMatrix<T>& b) {
  double num = (a.template cast<double>() - b.template cast<double>()).norm();
  double den = b.template cast<double>().norm();
  return num / std::max(den, 1e-30);
}

}  // namespace qalg::gpu::test
