// Dense building blocks on a sparse table: multiplication matrices, products of elements and of
// subspaces, the weighted Gram matrix (SPEC §2: the trace form in O(nnz)), unitalisation, quotients.
#include <algorithm>
#include <unordered_map>

#include "qalg/algebra/general_structure.hpp"

namespace qalg {

namespace {

// dst[r][col] += c · src[0][from] over the table's field.
inline void addmul(FieldMatrix& dst, slong r, slong col, const Rational& c, const FieldMatrix& src,
                   slong from) {
  if (dst.field().is_rationals()) {
    const fmpq* s = src.q().at(0, from);
    if (fmpq_is_zero(s)) return;
    fmpq_t tmp;
    fmpq_init(tmp);
    fmpq_mul(tmp, c.get(), s);
    fmpq_add(dst.q().at(r, col), dst.q().at(r, col), tmp);
    fmpq_clear(tmp);
  } else {
    ulong s = src.m().at(0, from);
    if (s == 0) return;
    nmod_t mod = dst.m().get()->mod;
    ulong cr = fmpz_get_ui(fmpq_numref(c.get()));
    dst.m().at(r, col) = nmod_add(dst.m().at(r, col), nmod_mul(cr, s, mod), mod);
  }
}

}  // namespace

FieldMatrix right_multiplication(const StructureTensor& t, const FieldMatrix& y) {
  slong n = static_cast<slong>(t.dim());
  FieldMatrix r(t.field(), n, n);
  for (const auto& e : t.entries()) addmul(r, e.i, e.k, e.c, y, e.j);
  return r;
}

FieldMatrix left_multiplication(const StructureTensor& t, const FieldMatrix& x) {
  slong n = static_cast<slong>(t.dim());
  FieldMatrix l(t.field(), n, n);
  for (const auto& e : t.entries()) addmul(l, e.j, e.k, e.c, x, e.i);
  return l;
}

FieldMatrix multiply_elements(const StructureTensor& t, const FieldMatrix& x, const FieldMatrix& y) {
  // x·y = x R_y, computed without materialising R_y: Σ x_a y_b c_ab^k.
  FieldMatrix out(t.field(), 1, static_cast<slong>(t.dim()));
  const Field& f = t.field();
  for (uint32_t a = 0; a < t.dim(); ++a) {
    Rational xa = x.get(0, a);
    if (xa.is_zero()) continue;
    for (const auto& e : t.row(a)) {
      Rational yb = y.get(0, e.j);
      if (yb.is_zero()) continue;
      out.add_to(0, e.k, f.mul(f.mul(xa, yb), e.c));
    }
  }
  return out;
}

FieldMatrix subspace_product(const StructureTensor& t, const FieldMatrix& u, const FieldMatrix& v) {
  slong n = static_cast<slong>(t.dim());
  FieldMatrix span(t.field(), 0, n);
  if (u.rows() == 0 || v.rows() == 0) return span;
  for (slong j = 0; j < v.rows(); ++j) {
    FieldMatrix block = multiply(u, right_multiplication(t, row_of(v, j)));
    span = row_basis(vstack(span, block));
  }
  return span;
}

bool is_two_sided_ideal(const StructureTensor& t, const FieldMatrix& u) {
  if (u.rows() == 0) return true;
  slong n = static_cast<slong>(t.dim());
  for (slong j = 0; j < n; ++j) {
    FieldMatrix bj(t.field(), 1, n);
    bj.set(0, j, Rational(1));
    if (!rows_in_span(multiply(u, right_multiplication(t, bj)), u)) return false;
    if (!rows_in_span(multiply(u, left_multiplication(t, bj)), u)) return false;
  }
  return true;
}

FieldMatrix trace_vector(const StructureTensor& t) {
  FieldMatrix tau(t.field(), 1, static_cast<slong>(t.dim()));
  for (const auto& e : t.entries())
    if (e.j == e.k) tau.add_to(0, e.i, e.c);  // diagonal of L_{b_i}: b_i b_k has b_k-coefficient
  return tau;
}

FieldMatrix weighted_gram(const StructureTensor& t, const FieldMatrix& w) {
  slong n = static_cast<slong>(t.dim());
  FieldMatrix g(t.field(), n, n);
  for (const auto& e : t.entries()) addmul(g, e.i, e.j, e.c, w, e.k);
  return g;
}

StructureTensor unitalisation(const StructureTensor& t) {
  std::vector<std::string> names = t.basis_names();
  std::string one = "1";
  while (std::find(names.begin(), names.end(), one) != names.end()) one += "'";
  names.push_back(one);
  StructureTensor u(t.field(), names);
  for (const auto& e : t.entries()) u.add(e.i, e.j, e.k, e.c);
  uint32_t n = static_cast<uint32_t>(t.dim());
  for (uint32_t j = 0; j <= n; ++j) {
    u.add(n, j, j, Rational(1));
    if (j < n) u.add(j, n, j, Rational(1));
  }
  u.finalize();
  return u;
}

StructureTensor quotient_table(const StructureTensor& t, const FieldMatrix& u) {
  const Field& f = t.field();
  std::vector<slong> piv = pivot_columns(u);
  std::vector<long> pivot_row(t.dim(), -1), position(t.dim(), -1);
  for (size_t r = 0; r < piv.size(); ++r) pivot_row[piv[r]] = static_cast<long>(r);
  std::vector<uint32_t> kept;
  std::vector<std::string> names;
  for (uint32_t k = 0; k < t.dim(); ++k)
    if (pivot_row[k] < 0) {
      position[k] = static_cast<long>(kept.size());
      kept.push_back(k);
      names.push_back(t.basis_names()[k]);
    }
  // b_{piv_r} ≡ -Σ_{non-pivot q} U[r][q] b_q modulo U (RREF rows have 1 at their pivot).
  std::vector<std::vector<std::pair<uint32_t, Rational>>> reduce(piv.size());
  for (size_t r = 0; r < piv.size(); ++r)
    for (uint32_t q : kept) {
      Rational x = u.get(static_cast<slong>(r), q);
      if (!x.is_zero()) reduce[r].emplace_back(static_cast<uint32_t>(position[q]), f.neg(x));
    }
  StructureTensor out(f, names);
  for (size_t a = 0; a < kept.size(); ++a)
    for (const auto& e : t.row(kept[a])) {
      if (position[e.j] < 0) continue;
      uint32_t b = static_cast<uint32_t>(position[e.j]);
      if (position[e.k] >= 0) {
        out.add(static_cast<uint32_t>(a), b, static_cast<uint32_t>(position[e.k]), e.c);
      } else {
        for (const auto& [q, x] : reduce[pivot_row[e.k]])
          out.add(static_cast<uint32_t>(a), b, q, f.mul(e.c, x));
      }
    }
  out.finalize();
  return out;
}

}  // namespace qalg
