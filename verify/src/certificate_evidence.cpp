// Evidence for certificates, computed only by direct products and exact linear algebra.
#include "certificate_evidence.hpp"

#include <algorithm>

#include <fmt/core.h>

#include "qalg/algebra/associativity.hpp"
#include "qalg/algebra/errors.hpp"
#include "qalg/verify/sparse_ops.hpp"

namespace qalg::verify {

nlohmann::json sparse_to_json(const SparseVector& v) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [i, c] : v) out.push_back({i, c.str()});
  return out;
}

SparseVector sparse_from_json(const nlohmann::json& j, const Field& f, size_t dim, const std::string& where) {
  if (!j.is_array()) throw InputError(where + ": expected a list of [index, \"coefficient\"] pairs");
  SparseVector terms;
  for (const auto& e : j) {
    if (!e.is_array() || e.size() != 2 || !e[0].is_number_unsigned() || !(e[1].is_string() || e[1].is_number_integer()))
      throw InputError(where + ": expected [index, \"coefficient\"], got " + e.dump());
    const uint64_t i = e[0].get<uint64_t>();
    if (i >= dim) throw InputError(fmt::format("{}: index {} out of range (dim {})", where, i, dim));
    Rational c;
    const std::string text = e[1].is_string() ? e[1].get<std::string>() : std::to_string(e[1].get<int64_t>());
    if (!Rational::parse(text, c)) throw InputError(where + ": malformed coefficient '" + text + "'");
    f.reduce(c);
    terms.emplace_back(uint32_t(i), c);
  }
  return add(f, terms, {});  // sorted, duplicates merged, zeros dropped
}

FieldMatrix rows_of(const std::vector<SparseVector>& vs, const Field& f, size_t dim) {
  FieldMatrix m(f, slong(vs.size()), slong(dim));
  for (size_t r = 0; r < vs.size(); ++r)
    for (const auto& [i, c] : vs[r]) m.set(slong(r), slong(i), c);
  return m;
}

namespace {
std::vector<SparseVector> sparse_rows(const FieldMatrix& m) {
  std::vector<SparseVector> out;
  for (slong r = 0; r < m.rows(); ++r) {
    SparseVector v;
    for (slong c = 0; c < m.cols(); ++c) {
      Rational x = m.get(r, c);
      if (!x.is_zero()) v.emplace_back(uint32_t(c), x);
    }
    out.push_back(std::move(v));
  }
  return out;
}
}  // namespace

SparseSpan::SparseSpan(const std::vector<SparseVector>& vectors, const Field& f, size_t dim)
    : field_(f), row_of_pivot_(dim, -1) {
  std::vector<SparseVector> nonzero;
  for (const auto& v : vectors)
    if (!v.empty()) nonzero.push_back(v);
  std::sort(nonzero.begin(), nonzero.end(), [](const SparseVector& a, const SparseVector& b) { return a[0].first < b[0].first; });
  bool unit_vectors = true;
  for (size_t r = 0; unit_vectors && r < nonzero.size(); ++r)
    unit_vectors = nonzero[r].size() == 1 && nonzero[r][0].second.is_one() &&
                   (r == 0 || nonzero[r - 1][0].first != nonzero[r][0].first);
  rows_ = unit_vectors || nonzero.empty() ? nonzero : sparse_rows(row_basis(rows_of(nonzero, f, dim)));
  for (size_t r = 0; r < rows_.size(); ++r) row_of_pivot_[rows_[r][0].first] = int64_t(r);
}

bool SparseSpan::contains(const SparseVector& x) const {
  SparseVector residual = x;
  for (const auto& [i, c] : x)
    if (i < row_of_pivot_.size() && row_of_pivot_[i] >= 0)
      residual = linear_combination(field_, Rational(1), residual, field_.neg(c), rows_[size_t(row_of_pivot_[i])]);
  return residual.empty();
}

std::vector<SparseVector> product_span(const StructureTensor& t, const std::vector<SparseVector>& u,
                                       const std::vector<SparseVector>& v) {
  std::vector<SparseVector> products;
  for (const auto& x : u)
    for (const auto& y : v) {
      SparseVector p = multiply(t, x, y);
      if (!p.empty()) products.push_back(std::move(p));
    }
  return SparseSpan(products, t.field(), t.dim()).basis();
}

size_t nilpotency_index(const StructureTensor& t, const std::vector<SparseVector>& basis) {
  std::vector<SparseVector> power = basis;
  size_t m = 1;
  while (!power.empty()) {
    std::vector<SparseVector> next = product_span(t, power, basis);
    if (next.size() >= power.size()) return 0;  // J^{m+1} = J^m: not nilpotent
    power = std::move(next);
    ++m;
  }
  return m;
}

std::vector<SparseVector> basis_idempotents(const StructureTensor& t) {
  std::vector<SparseVector> out;
  for (uint32_t i = 0; i < t.dim(); ++i)
    if (multiply_basis(t, i, i) == basis_vector(i)) out.push_back(basis_vector(i));
  return out;
}

std::string split_quotient_failure(const StructureTensor& t, const std::vector<SparseVector>& idempotents,
                                   const SparseVector& unit, const std::vector<SparseVector>& radical) {
  const Field& f = t.field();
  SparseVector sum;
  for (size_t a = 0; a < idempotents.size(); ++a) {
    for (size_t b = 0; b < idempotents.size(); ++b) {
      const SparseVector p = multiply(t, idempotents[a], idempotents[b]);
      if (a == b && p != idempotents[a]) return fmt::format("idempotent {} does not square to itself", a);
      if (a != b && !p.empty()) return fmt::format("idempotents {} and {} are not orthogonal", a, b);
    }
    sum = add(f, sum, idempotents[a]);
  }
  if (sum != unit) return "the idempotents do not sum to the unit";
  if (idempotents.size() + radical.size() != t.dim())
    return fmt::format("{} idempotents + dim J {} ≠ dim A {}", idempotents.size(), radical.size(), t.dim());
  std::vector<SparseVector> all = radical;
  all.insert(all.end(), idempotents.begin(), idempotents.end());
  if (SparseSpan(all, f, t.dim()).dim() != t.dim()) return "the idempotents and J do not span A";
  return "";
}

}  // namespace qalg::verify
