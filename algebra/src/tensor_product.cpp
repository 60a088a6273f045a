// Tensor products of tables (SPEC §2): c_{(i,i'),(j,j')}^{(k,k')} = c_ij^k c'_{i'j'}^{k'}.
#include "qalg/algebra/tensor_product.hpp"

#include <fmt/core.h>

#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/resource_guard.hpp"

namespace qalg {

StructureTensor tensor_product(const StructureTensor& a, const StructureTensor& b) {
  if (!(a.field() == b.field()))
    throw InputError(fmt::format("tensor product of algebras over {} and {}", a.field().name(), b.field().name()));
  const size_t da = a.dim(), db = b.dim();
  const size_t dim = checked_mul(da, db, "tensor product dimension");
  if (dim >= (size_t(1) << 32) - 1) throw ResourceError(fmt::format("tensor product dimension {} exceeds 2^32 - 2", dim));
  const size_t nnz = checked_mul(a.nnz(), b.nnz(), "tensor product nnz");
  require_fits(checked_mul(nnz, sizeof(TensorEntry) + 16, "tensor product") + checked_mul(dim, 64, "names"),
               fmt::format("the tensor product (dim {}, nnz {})", dim, nnz));

  std::vector<std::string> names;
  names.reserve(dim);
  for (const auto& x : a.basis_names())
    for (const auto& y : b.basis_names()) names.push_back(x + "*" + y);
  StructureTensor t(a.field(), std::move(names));
  auto pair = [db](uint32_t x, uint32_t y) { return uint32_t(size_t(x) * db + y); };
  for (const auto& e : a.entries())
    for (const auto& f : b.entries())
      t.add(pair(e.i, f.i), pair(e.j, f.j), pair(e.k, f.k), a.field().mul(e.c, f.c));
  t.finalize();

  if (a.slots() && b.slots()) {
    const uint32_t qb = b.slot_grid();
    std::vector<Slot> s;
    s.reserve(dim);
    for (const auto& x : *a.slots())
      for (const auto& y : *b.slots()) s.push_back(Slot{x.row * qb + y.row, x.col * qb + y.col});
    t.set_slots(std::move(s), a.slot_grid() * qb);
  }
  return t;
}

StructureTensor tensor_power(const StructureTensor& a, unsigned k) {
  if (k < 1) throw InputError("--power must be at least 1");
  // Beyond k = 32 every algebra of dim >= 2 exceeds the 2^32 basis limit, and a 1-dimensional one
  // is only renamed, by k-fold names built in k products: path:1 --power 51515199 hung
  // (found by fuzz_family). Refuse before any work.
  if (k > 32)
    throw ResourceError(fmt::format("the {}-th tensor power: powers above 32 are refused (dim >= 2 exceeds "
                                    "the 2^32 basis limit, dim 1 is its own power)", k));
  // Refuse before building any intermediate power: dim^k and nnz^k of the result.
  size_t dim = 1, nnz = 1;
  for (unsigned n = 0; n < k; ++n) {
    dim = checked_mul(dim, a.dim(), fmt::format("dimension of the {}-th tensor power", k));
    nnz = checked_mul(nnz, a.nnz(), fmt::format("nnz of the {}-th tensor power", k));
  }
  if (dim >= (size_t(1) << 32) - 1)
    throw ResourceError(fmt::format("the {}-th tensor power has dimension {}, which exceeds 2^32 - 2", k, dim));
  require_fits(checked_mul(nnz, sizeof(TensorEntry) + 16, "tensor power"),
               fmt::format("the {}-th tensor power (dim {}, nnz {})", k, dim, nnz));
  StructureTensor r = a;
  for (unsigned n = 1; n < k; ++n) r = tensor_product(r, a);
  return r;
}

}  // namespace qalg
