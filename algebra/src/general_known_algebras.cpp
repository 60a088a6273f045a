// Closed-form tables: F[C_n], M_n(F), T_n(F).
#include <fmt/core.h>

#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/known_algebras.hpp"

namespace qalg {

namespace {

void require_positive(unsigned n, const char* what) {
  if (n == 0) throw InputError(fmt::format("{}: size must be at least 1", what));
}

// Matrix units E_ab for the (a, b) accepted by `keep`, multiplied as in M_n.
template <class Keep>
StructureTensor matrix_units(unsigned n, const Field& field, Keep keep) {
  std::vector<std::pair<unsigned, unsigned>> cells;
  std::vector<std::string> names;
  std::vector<long> index(static_cast<size_t>(n) * n, -1);
  for (unsigned a = 0; a < n; ++a)
    for (unsigned b = 0; b < n; ++b)
      if (keep(a, b)) {
        index[a * n + b] = static_cast<long>(cells.size());
        cells.emplace_back(a, b);
        names.push_back(fmt::format("E{}_{}", a + 1, b + 1));
      }
  StructureTensor t(field, names);
  for (size_t x = 0; x < cells.size(); ++x)
    for (size_t y = 0; y < cells.size(); ++y)
      if (cells[x].second == cells[y].first) {
        long z = index[cells[x].first * n + cells[y].second];
        if (z >= 0) t.add(static_cast<uint32_t>(x), static_cast<uint32_t>(y), static_cast<uint32_t>(z), Rational(1));
      }
  t.finalize();
  return t;
}

}  // namespace

StructureTensor cyclic_group_algebra(unsigned n, const Field& field) {
  require_positive(n, "cyclic group algebra");
  std::vector<std::string> names;
  for (unsigned i = 0; i < n; ++i) names.push_back(fmt::format("g{}", i));
  StructureTensor t(field, names);
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t j = 0; j < n; ++j) t.add(i, j, (i + j) % n, Rational(1));
  t.finalize();
  return t;
}

StructureTensor matrix_algebra(unsigned n, const Field& field) {
  require_positive(n, "matrix algebra");
  return matrix_units(n, field, [](unsigned, unsigned) { return true; });
}

StructureTensor upper_triangular_algebra(unsigned n, const Field& field) {
  require_positive(n, "upper triangular algebra");
  return matrix_units(n, field, [](unsigned a, unsigned b) { return a <= b; });
}

}  // namespace qalg
