// Tensor products of tables (SPEC §2): dimension and nnz multiply, associativity and units are
// preserved, slots compose.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "qalg/algebra/associativity.hpp"
#include "qalg/algebra/graph_algebra.hpp"
#include "qalg/algebra/quiver_input.hpp"
#include "qalg/algebra/tensor_product.hpp"
#include "qalg/algebra/unit.hpp"
#include "qalg/verify/generators.hpp"

using namespace qalg;

RC_GTEST_PROP(TensorProduct, DimensionAndNnzMultiply, ()) {
  verify::QuiverShape small{3, 5, true, true};
  Field f = *verify::gen_field();
  StructureTensor a = graph_algebra(*verify::gen_quiver(small), f), b = graph_algebra(*verify::gen_quiver(small), f);
  StructureTensor t = tensor_product(a, b);
  RC_ASSERT(t.dim() == a.dim() * b.dim());
  RC_ASSERT(t.nnz() == a.nnz() * b.nnz());
}

RC_GTEST_PROP(TensorProduct, OfAssociativeUnitalAlgebrasIsAssociativeWithProductUnit, ()) {
  verify::QuiverShape small{3, 4, true, true};
  Field f = *verify::gen_field();
  StructureTensor a = graph_algebra(*verify::gen_quiver(small), f), b = graph_algebra(*verify::gen_quiver(small), f);
  StructureTensor t = tensor_product(a, b);
  RC_ASSERT(check_associativity(t).associative);
  auto ua = find_unit(a).unit, ub = find_unit(b).unit, ut = find_unit(t).unit;
  RC_ASSERT(ua && ub && ut);
  RC_ASSERT(ut->size() == ua->size() * ub->size());  // 1 ⊗ 1 = Σ e_v ⊗ e_w
  for (const auto& [x, c] : *ut) {
    bool found = false;
    for (const auto& [i, ci] : *ua)
      for (const auto& [j, cj] : *ub)
        if (x == i * b.dim() + j) found = ci * cj == c;
    RC_ASSERT(found);
  }
}

// Multiplication in A ⊗ B agrees with (a ⊗ b)(a' ⊗ b') = aa' ⊗ bb' on basis elements.
RC_GTEST_PROP(TensorProduct, MultipliesComponentwise, ()) {
  verify::QuiverShape small{3, 4, true, true};
  StructureTensor a = graph_algebra(*verify::gen_quiver(small), Field::rationals());
  StructureTensor b = graph_algebra(*verify::gen_quiver(small), Field::rationals());
  StructureTensor t = tensor_product(a, b);
  uint32_t i = *rc::gen::inRange<uint32_t>(0, uint32_t(a.dim())), j = *rc::gen::inRange<uint32_t>(0, uint32_t(a.dim()));
  uint32_t i2 = *rc::gen::inRange<uint32_t>(0, uint32_t(b.dim())), j2 = *rc::gen::inRange<uint32_t>(0, uint32_t(b.dim()));
  auto left = multiply_basis(t, uint32_t(i * b.dim() + i2), uint32_t(j * b.dim() + j2));
  auto pa = multiply_basis(a, i, j), pb = multiply_basis(b, i2, j2);
  RC_ASSERT(left.size() == pa.size() * pb.size());
  for (const auto& [k, c] : pa)
    for (const auto& [k2, c2] : pb) {
      bool found = false;
      for (const auto& [x, v] : left)
        if (x == k * b.dim() + k2) found = v == c * c2;
      RC_ASSERT(found);
    }
}

TEST(TensorProduct, PaperQ2SquaredHasDim16AndComposedSlots) {
  StructureTensor q2 = graph_algebra(quiver_family("complete:2"), Field::rationals());
  StructureTensor t = tensor_power(q2, 2);
  EXPECT_EQ(t.dim(), 16u);
  EXPECT_EQ(t.nnz(), 36u);
  ASSERT_TRUE(t.slots().has_value());
  EXPECT_EQ(t.slot_grid(), 4u);
  // (1->2) ⊗ (2->1) sits at row 0*2+1 = 1, column 1*2+0 = 2.
  const auto& names = t.basis_names();
  auto it = std::find(names.begin(), names.end(), "1->2*2->1");
  ASSERT_NE(it, names.end());
  EXPECT_EQ((*t.slots())[size_t(it - names.begin())], (Slot{1, 2}));
  EXPECT_EQ(tensor_power(q2, 3).dim(), 64u);
}
