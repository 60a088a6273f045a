// The Jacobson radical from the table (SPEC §2).
// Q: Dickson's criterion, rad A = { x : Tr(L_{xy}) = 0 for all y }, the left kernel of the trace
//    form's Gram matrix (built in O(nnz) from τ_m = Tr(L_{b_m})).
// GF(p): Cohen, Ivanyos, Wales, "Finding the radical of an algebra of linear transformations",
//    J. Pure Appl. Algebra 117/118 (1997); also Rónyai (1990). For A ⊆ M_n(F_p) (here the left
//    regular representation, faithful on a unital table) put g_l(x) = Tr(x̂^{p^l}) / p^l mod p,
//    x̂ the integer lift of L_x; I_0 = Dickson's kernel, I_l = { a ∈ I_{l-1} : g_l(ab) = 0 ∀ b },
//    and rad A = I_k for k = ⌊log_p n⌋. Each g_l is linear on I_{l-1} (that paper's lemma), and
//    I_{l-1} is an ideal, so g_l is needed only on a basis of I_{l-1}: extended by zero off the
//    pivots it is a vector w, and the conditions g_l(ab) = w·(ab) form the Gram matrix G_w.
#include <fmt/core.h>

#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/general_structure.hpp"
#include "qalg/algebra/unit.hpp"

namespace qalg {

namespace {

// g_l(c) = Tr(ĉ^{p^l}) / p^l mod p for the lift ĉ of L_c (entries in [0, p)).
ulong ciw_functional(const StructureTensor& t, const FieldMatrix& c, ulong p, unsigned l) {
  FieldMatrix lc = left_multiplication(t, c);
  ulong pl = 1;
  for (unsigned i = 0; i < l; ++i) pl *= p;
  ulong modulus = pl * p;  // p^{l+1} ≤ p·n: fits a word because p ≤ n when l ≥ 1
  slong n = lc.rows();
  NModMatrix x(n, n, modulus), y(n, n, modulus);
  for (slong i = 0; i < n; ++i)
    for (slong j = 0; j < n; ++j) x.at(i, j) = lc.m().at(i, j);
  nmod_mat_pow(y.get(), x.get(), pl);
  ulong tr = 0;
  nmod_t mod = y.get()->mod;
  for (slong i = 0; i < n; ++i) tr = nmod_add(tr, y.at(i, i), mod);
  if (tr % pl != 0)
    throw std::logic_error(fmt::format("CIW: trace {} of a p^{}-th power not divisible by {}", tr, l, pl));
  return (tr / pl) % p;
}

FieldMatrix dickson_kernel(const StructureTensor& t) {
  return left_kernel(weighted_gram(t, trace_vector(t)));
}

RadicalResult radical_of_faithful(const StructureTensor& t) {
  FieldMatrix ideal = dickson_kernel(t);
  if (t.field().is_rationals()) return {ideal, "Dickson trace form"};
  ulong p = t.field().characteristic();
  unsigned k = 0;
  for (ulong pk = p; pk <= t.dim(); pk *= p) ++k;  // k = ⌊log_p n⌋
  for (unsigned l = 1; l <= k && ideal.rows() > 0; ++l) {
    std::vector<slong> piv = pivot_columns(ideal);
    FieldMatrix w(t.field(), 1, static_cast<slong>(t.dim()));
    bool nonzero = false;
    for (slong r = 0; r < ideal.rows(); ++r) {
      ulong g = ciw_functional(t, row_of(ideal, r), p, l);
      w.m().at(0, piv[r]) = g;
      nonzero = nonzero || g != 0;
    }
    if (!nonzero) continue;  // g_l vanishes on I_{l-1}: I_l = I_{l-1}
    FieldMatrix conditions = multiply(ideal, weighted_gram(t, w));
    ideal = row_basis(multiply(left_kernel(conditions), ideal));
  }
  return {ideal, k == 0 ? std::string("Dickson trace form (p > dim)")
                        : fmt::format("Cohen–Ivanyos–Wales ({} rounds)", k)};
}

}  // namespace

RadicalResult radical(const StructureTensor& t) {
  if (t.dim() == 0) return {FieldMatrix(t.field(), 0, 0), "empty table"};
  if (find_unit(t).unit) return radical_of_faithful(t);
  // Non-unital: the left regular representation of A may not be faithful; that of A ⊕ F·1 is,
  // and rad(A ⊕ F·1) = rad A because (A ⊕ F·1)/A ≅ F is semisimple.
  StructureTensor u = unitalisation(t);
  RadicalResult r = radical_of_faithful(u);
  slong n = static_cast<slong>(t.dim());
  FieldMatrix back(t.field(), r.basis.rows(), n);
  for (slong i = 0; i < r.basis.rows(); ++i) {
    if (!r.basis.get(i, n).is_zero()) throw std::logic_error("radical of A ⊕ F·1 leaves A");
    for (slong j = 0; j < n; ++j) back.set(i, j, r.basis.get(i, j));
  }
  return {row_basis(back), r.method + " on A ⊕ F·1"};
}

}  // namespace qalg
