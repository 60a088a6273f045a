// merge_adjacent_terms (gpu/cuda/work_list.hpp), the host-side step that turns dX's q short terms
// into one long reduction: the merged list must describe the same weighted sum.
#include <map>
#include <random>
#include <vector>

#include "cuda/work_list.hpp"
#include "property.hpp"

namespace {
using qalg::gpu::detail::merge_adjacent_terms;
using qalg::gpu::detail::Term;

// Σ_t coef_t · [a_t, a_t + len_t) as (index, diagonal) → total coefficient: what a kernel sums.
std::map<std::pair<uint32_t, uint32_t>, double> weights(const std::vector<Term>& terms, size_t first) {
  std::map<std::pair<uint32_t, uint32_t>, double> w;
  for (size_t t = first; t < terms.size(); ++t)
    for (uint32_t x = terms[t].a; x < terms[t].a + terms[t].len; ++x) w[{x, terms[t].diagonal}] += terms[t].coef;
  return w;
}

QALG_PROPERTY(MergeAdjacentTerms, SameSumFewerTermsPrefixUntouched) {
  std::mt19937_64 rng(seed);
  std::vector<Term> terms;
  const size_t first = rng() % 3;
  for (size_t t = 0; t < first; ++t) terms.push_back(Term{uint32_t(rng() % 50), 8, 2.0f, 0});
  const std::vector<Term> prefix(terms.begin(), terms.end());
  uint32_t a = uint32_t(rng() % 20);
  const int n = int(rng() % 12);
  for (int t = 0; t < n; ++t) {
    if (rng() % 3 == 0) a += uint32_t(rng() % 16);  // a gap, or (below) a jump back
    if (rng() % 7 == 0) a = uint32_t(rng() % 30);
    const uint32_t len = uint32_t(rng() % 4) * 8;  // zero-length terms too
    terms.push_back(Term{a, len, rng() % 4 == 0 ? -1.0f : 1.0f, uint32_t(rng() % 5 == 0)});
    a += len;
  }
  const auto before = weights(terms, first);
  const size_t count_before = terms.size();
  merge_adjacent_terms(terms, first);
  PROP_ASSERT(terms.size() <= count_before);
  PROP_ASSERT(weights(terms, first) == before);
  for (size_t t = 0; t < first; ++t) PROP_ASSERT(terms[t].a == prefix[t].a && terms[t].len == prefix[t].len);
  for (size_t t = first + 1; t < terms.size(); ++t) {  // nothing mergeable is left
    const Term &p = terms[t - 1], &c = terms[t];
    PROP_ASSERT(c.len != 0 && p.len != 0);  // empty terms are dropped
    PROP_ASSERT(!(p.a + p.len == c.a && p.coef == c.coef && p.diagonal == c.diagonal));
  }
}

TEST(MergeAdjacentTerms, DxOfCompleteQuiverIsOneTermOverN) {
  // x̄_i of Q_q: ȳ_j W_ijᵀ for every output group j (widths 24), coefficient 1: one term [0, 24q).
  std::vector<Term> terms = {Term{7, 8, 1.0f, 0}};  // another item's term stays as it is
  for (uint32_t j = 0; j < 32; ++j) terms.push_back(Term{24 * j, 24, 1.0f, 0});
  merge_adjacent_terms(terms, 1);
  ASSERT_EQ(terms.size(), 2u);
  EXPECT_EQ(terms[1].a, 0u);
  EXPECT_EQ(terms[1].len, 768u);
  EXPECT_EQ(terms[0].len, 8u);
  // A coefficient change (a rescaled table) splits the run there.
  std::vector<Term> scaled = {Term{0, 24, 1.0f, 0}, Term{24, 24, 0.5f, 0}, Term{48, 24, 0.5f, 0}};
  merge_adjacent_terms(scaled, 0);
  ASSERT_EQ(scaled.size(), 2u);
  EXPECT_EQ(scaled[1].a, 24u);
  EXPECT_EQ(scaled[1].len, 48u);
}

}  // namespace
