// Host-side work-list steps of gpu/cuda/work_list.hpp: merge_adjacent_terms (dX's q short terms
// become one long reduction) and group_items (the type-group forward kernel's groups and distinct
// blocks). Each must describe the same weighted sums as the list it came from.
#include <algorithm>
#include <array>
#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "cuda/work_list.hpp"
#include "property.hpp"

namespace {
using qalg::gpu::detail::GroupBlock;
using qalg::gpu::detail::group_items;
using qalg::gpu::detail::ItemGroup;
using qalg::gpu::detail::kMaxGroup;
using qalg::gpu::detail::merge_adjacent_terms;
using qalg::gpu::detail::Term;
using qalg::gpu::detail::terms_in_item_order;
using qalg::gpu::detail::WorkItem;

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

// What one item's tile sums: (W row, first column) → total coefficient, from its terms.
using Sum = std::map<std::pair<uint32_t, uint32_t>, double>;
Sum item_sum(const WorkItem& w, const std::vector<Term>& terms) {
  Sum s;
  for (uint32_t t = w.term_begin; t < w.term_begin + w.term_count; ++t)
    for (uint32_t x = terms[t].a; x < terms[t].a + terms[t].len; ++x) s[{x, w.n_begin}] += terms[t].coef;
  return s;
}

QALG_PROPERTY(GroupItems, EveryItemOnceSameSumsDistinctBlocks) {
  std::mt19937_64 rng(seed);
  const uint32_t G = 2 + uint32_t(rng() % (kMaxGroup - 1));
  // Forward-like list: column ranges outer; per range some items (rows of types) whose terms are
  // drawn from a few blocks (shared ones like W_jj, repeated and zero-length ones too).
  std::vector<WorkItem> items;
  std::vector<Term> terms;
  const int ranges = 1 + int(rng() % 4);
  for (int r = 0; r < ranges; ++r) {
    const int n = 1 + int(rng() % 7);
    for (int k = 0; k < n; ++k) {
      WorkItem w;
      w.m_begin = uint32_t(rng() % 100), w.m_count = rng() % 6 == 0 ? 0 : 1 + uint32_t(rng() % 64);
      w.n_begin = 128u * uint32_t(r), w.n_count = 128;
      w.term_begin = uint32_t(terms.size());
      const int nt = int(rng() % 4);
      for (int t = 0; t < nt; ++t)
        terms.push_back(Term{8u * uint32_t(rng() % 4), rng() % 5 == 0 ? 0u : 8u * (1 + uint32_t(rng() % 2)),
                             float(int(rng() % 3) - 1), 0});
      w.term_count = uint32_t(terms.size()) - w.term_begin;
      items.push_back(w);
    }
  }
  std::vector<ItemGroup> groups;
  std::vector<GroupBlock> blocks;
  group_items(items, terms, G, groups, blocks);
  // Every item appears once, in order, in a group of its column range; other slots are empty.
  size_t next = 0;
  for (const ItemGroup& gr : groups) {
    PROP_ASSERT(gr.block_begin + gr.block_count <= blocks.size());
    uint32_t used = 0;
    for (uint32_t g = 0; g < G && next < items.size(); ++g) {
      const WorkItem& w = items[next];
      if (w.n_begin != gr.n_begin) break;
      PROP_ASSERT(gr.m_begin[g] == w.m_begin && gr.m_count[g] == w.m_count);
      // The blocks with bit g, each × coef[g], sum to the item's terms; none repeats a key.
      Sum got;
      int firsts = 0, lasts = 0;
      for (uint32_t k = gr.block_begin; k < gr.block_begin + gr.block_count; ++k) {
        const GroupBlock& b = blocks[k];
        for (uint32_t k2 = gr.block_begin; k2 < k; ++k2)
          PROP_ASSERT(b.len == 0 || !(blocks[k2].a == b.a && blocks[k2].len == b.len));
        firsts += b.len && (b.first_mask >> g & 1), lasts += b.last_mask >> g & 1;
        if (!(b.mask >> g & 1)) continue;
        PROP_ASSERT(b.len > 0 && w.m_count > 0);
        for (uint32_t x = b.a; x < b.a + b.len; ++x) got[{x, gr.n_begin}] += b.coef[g];
      }
      Sum want = w.m_count ? item_sum(w, terms) : Sum{};
      for (auto it = want.begin(); it != want.end();) it = it->second == 0 ? want.erase(it) : std::next(it);
      for (auto it = got.begin(); it != got.end();) it = it->second == 0 ? got.erase(it) : std::next(it);
      PROP_ASSERT(got == want);
      // An item with rows multiplies its first and last block once each, or stores zeros.
      bool has_terms = false;
      for (uint32_t t = w.term_begin; t < w.term_begin + w.term_count; ++t) has_terms |= terms[t].len > 0;
      bool zero = false;
      for (uint32_t k = gr.block_begin; k < gr.block_begin + gr.block_count; ++k)
        zero |= blocks[k].len == 0 && (blocks[k].first_mask >> g & 1);
      PROP_ASSERT(zero == (w.m_count > 0 && !has_terms));
      PROP_ASSERT(firsts == (w.m_count && has_terms ? 1 : 0) && lasts == firsts);
      ++used, ++next;
    }
    for (uint32_t g = used; g < kMaxGroup; ++g) PROP_ASSERT(gr.m_count[g] == 0);
  }
  PROP_ASSERT(next == items.size());
}

TEST(GroupItems, CompleteQuiverSharesTheDiagonalBlock) {
  // One column tile of output group j = 2 of Q_4 (widths 64): types 0 and 1 use W_02 / W_12 and
  // W_22; grouped in pairs, W_22 is one block multiplied by both warpgroups.
  std::vector<Term> terms = {{0, 64, 1.0f, 0}, {128, 64, 1.0f, 1}, {64, 64, 1.0f, 0}, {128, 64, 1.0f, 1}};
  std::vector<WorkItem> items = {{0, 64, 128, 64, 0, 2, 0.f, 0}, {64, 64, 128, 64, 2, 2, 0.f, 0}};
  std::vector<ItemGroup> groups;
  std::vector<GroupBlock> blocks;
  group_items(items, terms, 2, groups, blocks);
  ASSERT_EQ(groups.size(), 1u);
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_EQ(blocks[1].a, 128u);
  EXPECT_EQ(blocks[1].mask, 3u);
  // Item 0: W_02 then W_22; item 1 meets W_22 (listed second) before W_12 (third).
  EXPECT_EQ(blocks[0].first_mask, 1u);
  EXPECT_EQ(blocks[1].first_mask, 2u);
  EXPECT_EQ(blocks[1].last_mask, 1u);
  EXPECT_EQ(blocks[2].last_mask, 2u);
}

}  // namespace

namespace {
using qalg::gpu::detail::item_depth;
using qalg::gpu::detail::split_long_items;

// The weighted sum an item stands for: Σ over its terms of coef · [a, a + len).
std::map<std::pair<uint32_t, uint32_t>, double> item_weights(const WorkItem& w, const std::vector<Term>& terms) {
  std::map<std::pair<uint32_t, uint32_t>, double> m;
  for (uint32_t t = w.term_begin; t < w.term_begin + w.term_count; ++t)
    for (uint32_t x = terms[t].a; x < terms[t].a + terms[t].len; ++x) m[{x, terms[t].diagonal}] += terms[t].coef;
  return m;
}

// Split-K: every tile's chunks together sum exactly what the tile summed, each chunk is at most
// max_depth deep, the chunks of a slot share the slot's output tile, the slot records how many
// chunks add into it (the last arrival stores the tile: split_k.cuh), and shallow items pass
// through unchanged (slot 0).
QALG_PROPERTY(SplitLongItems, ChunksSumToTheTileAndRespectTheDepth) {
  std::mt19937_64 rng(seed);
  std::vector<WorkItem> items;
  std::vector<Term> terms;
  const int n = 1 + int(rng() % 8);
  for (int i = 0; i < n; ++i) {
    WorkItem w{uint32_t(rng() % 100), 1 + uint32_t(rng() % 64), uint32_t(rng() % 100), 1 + uint32_t(rng() % 64),
               uint32_t(terms.size()), 0, 0.f, 0};
    const int tc = int(rng() % 5);
    for (int t = 0; t < tc; ++t)
      terms.push_back(Term{uint32_t(rng() % 4096), uint32_t(rng() % 3) * uint32_t(rng() % 700),
                           rng() % 3 == 0 ? -2.0f : 1.0f, uint32_t(rng() % 4 == 0)});
    w.term_count = uint32_t(terms.size()) - w.term_begin;
    items.push_back(w);
  }
  const uint64_t max_depth = 64 * (1 + rng() % 8);
  const std::vector<WorkItem> before = items;
  const std::vector<Term> terms_before = terms;
  std::vector<WorkItem> slots;
  split_long_items(items, terms, max_depth, slots);
  size_t k = 0;  // walk the output: each input item became one item or a run of chunks
  for (const WorkItem& w : before) {
    PROP_ASSERT(k < items.size());
    if (item_depth(w, terms_before) <= max_depth) {
      const WorkItem& o = items[k++];
      PROP_ASSERT(o.slot == 0 && o.term_begin == w.term_begin && o.term_count == w.term_count);
      continue;
    }
    const uint32_t slot = items[k].slot;
    PROP_ASSERT(slot >= 1 && slot <= slots.size());
    const WorkItem& tile = slots[slot - 1];
    PROP_ASSERT(tile.m_begin == w.m_begin && tile.m_count == w.m_count && tile.n_begin == w.n_begin &&
                tile.n_count == w.n_count && tile.term_begin == 0);
    std::map<std::pair<uint32_t, uint32_t>, double> sum;
    uint32_t chunks = 0;
    while (k < items.size() && items[k].slot == slot) {
      const WorkItem& c = items[k++];
      ++chunks;
      PROP_ASSERT(item_depth(c, terms) <= max_depth && item_depth(c, terms) > 0);
      PROP_ASSERT(c.m_begin == w.m_begin && c.n_begin == w.n_begin && c.n_count == w.n_count);
      for (const auto& [x, v] : item_weights(c, terms)) sum[x] += v;
    }
    PROP_ASSERT(sum == item_weights(w, terms_before));
    PROP_ASSERT(tile.term_count == chunks);
  }
  PROP_ASSERT(k == items.size());
}

TEST(SplitLongItems, DiagonalDwBlockOfTheExpertBecomesEightChunks) {
  // W̄_jj of Q_32 at M = 2048: one term over all 2048 rows; the 63 other blocks of a row: 64 rows.
  std::vector<Term> terms = {Term{0, 2048, 1.0f, 0}, Term{64, 64, 1.0f, 0}};
  std::vector<WorkItem> items = {WorkItem{0, 64, 0, 24, 0, 1, 0.f, 0}, WorkItem{0, 64, 24, 24, 1, 1, 0.f, 0}};
  std::vector<WorkItem> slots;
  split_long_items(items, terms, 256, slots);
  ASSERT_EQ(slots.size(), 1u);
  EXPECT_EQ(slots[0].term_count, 8u);  // the eighth chunk to finish stores the block
  ASSERT_EQ(items.size(), 9u);
  for (int c = 0; c < 8; ++c) {
    EXPECT_EQ(items[c].slot, 1u);
    EXPECT_EQ(terms[items[c].term_begin].a, 256u * c);
    EXPECT_EQ(terms[items[c].term_begin].len, 256u);
  }
  EXPECT_EQ(items[8].slot, 0u);
  EXPECT_EQ(items[8].n_begin, 24u);
}
}  // namespace

namespace {
using qalg::gpu::detail::row_formula;
using qalg::gpu::detail::RowFormula;

// The grouped row list and type offsets exactly as DeviceBatch builds them (rows of type 0 in row
// order, then type 1, ...).
std::pair<std::vector<uint32_t>, std::vector<uint32_t>> grouped_rows(const std::vector<uint32_t>& types, uint32_t q) {
  std::vector<uint32_t> begin(q + 1, 0), rows(types.size());
  for (uint32_t t : types) ++begin[t + 1];
  for (uint32_t i = 0; i < q; ++i) begin[i + 1] += begin[i];
  std::vector<uint32_t> fill(begin.begin(), begin.end() - 1);
  for (size_t p = 0; p < types.size(); ++p) rows[fill[types[p]]++] = uint32_t(p);
  return {rows, begin};
}

// The closed form of the row list (set_row_formula): the two schedules of SPEC §4 with equal counts
// have one with the expected constants; whenever a form is returned it reproduces every entry of
// the list (checked here independently, in 64-bit); unequal counts never get one.
QALG_PROPERTY(RowFormula, ClosedFormIsTheListOrAbsent) {
  std::mt19937_64 rng(seed);
  const uint32_t q = 1 + uint32_t(rng() % 9), per = 1 + uint32_t(rng() % 40);
  const uint64_t M = uint64_t(q) * per;
  const int kind = int(rng() % 4);
  std::vector<uint32_t> types(M);
  for (uint64_t p = 0; p < M; ++p) {
    if (kind == 0) types[p] = uint32_t(p % q);                                   // cyclic
    else if (kind == 1) types[p] = uint32_t(p / per);                           // intervals of length per
    else if (kind == 2) types[p] = uint32_t(rng() % q);                         // random
    else types[p] = uint32_t((p + (p == 0 && M > 1 ? 1 : 0)) % q);              // cyclic, one row moved
  }
  const auto [rows, begin] = grouped_rows(types, q);
  const RowFormula f = row_formula(rows, begin);
  if (kind == 0) PROP_ASSERT(f.c == per && (per == 1 || f.b == q) && (M == per || f.a == 1));
  if (kind == 1) PROP_ASSERT(f.c == per && (per == 1 || f.b == 1) && (M == per || f.a == per));
  bool equal_counts = true;
  for (uint32_t i = 0; i < q; ++i) equal_counts = equal_counts && begin[i + 1] - begin[i] == per;
  if (!equal_counts) PROP_ASSERT(f.c == 0);
  if (f.c != 0)
    for (uint64_t m = 0; m < M; ++m) {
      PROP_ASSERT(uint64_t(m / f.c) * f.a + uint64_t(m % f.c) * f.b == rows[m]);
      PROP_ASSERT(f.row(uint32_t(m)) == rows[m]);  // the kernels' form (FastDiv)
    }
}

// FastDiv (division by a launch-time divisor through a multiply-high) is n / d and n % d for every
// n, d < 2^31: random pairs across all magnitudes, and around each multiple boundary k·d − 1, k·d.
QALG_PROPERTY(FastDiv, QuotientAndRemainderAreExact) {
  std::mt19937_64 rng(seed);
  for (int t = 0; t < 200; ++t) {
    const uint32_t bits_d = 1 + uint32_t(rng() % 31), bits_n = 1 + uint32_t(rng() % 31);
    const uint32_t d = std::max<uint32_t>(1, uint32_t(rng() & ((1ull << bits_d) - 1)));
    const qalg::gpu::detail::FastDiv f(d);
    const uint32_t k = uint32_t(rng() % ((1u << 31) / d));
    for (uint64_t n : {uint64_t(rng() & ((1ull << bits_n) - 1)), uint64_t(k) * d, uint64_t(k) * d + d - 1,
                       uint64_t(k) * d == 0 ? 0 : uint64_t(k) * d - 1, uint64_t((1u << 31) - 1)}) {
      PROP_ASSERT_EQ(f.div(uint32_t(n)), uint32_t(n / d));
      PROP_ASSERT_EQ(f.mod(uint32_t(n)), uint32_t(n % d));
    }
  }
}

TEST(RowFormula, PaperBatchesAndAnUnequalOne) {
  std::vector<uint32_t> cyc(2048), intv(4096), odd(203);
  for (uint32_t p = 0; p < 2048; ++p) cyc[p] = p % 32;
  for (uint32_t p = 0; p < 4096; ++p) intv[p] = p / 128;
  for (uint32_t p = 0; p < 203; ++p) odd[p] = p % 4;  // 51, 51, 51, 50 rows
  auto [r1, b1] = grouped_rows(cyc, 32);
  const RowFormula f1 = row_formula(r1, b1);
  EXPECT_EQ(f1.c, 64u);
  EXPECT_EQ(f1.a, 1u);
  EXPECT_EQ(f1.b, 32u);
  auto [r2, b2] = grouped_rows(intv, 32);
  const RowFormula f2 = row_formula(r2, b2);
  EXPECT_EQ(f2.c, 128u);
  EXPECT_EQ(f2.a, 128u);
  EXPECT_EQ(f2.b, 1u);
  auto [r3, b3] = grouped_rows(odd, 4);
  EXPECT_EQ(row_formula(r3, b3).c, 0u);
}
// items_pair (the paired tiles' precondition, WorkList::pairs) on lists in build_forward's order:
// (j, column tile) outer, type, then the type's 64-row chunks innermost, each (j, tile, type) with its
// own terms. It holds exactly when every non-empty type has an even number of chunks and every term
// is whole 64-row steps; and where it holds, items 2p and 2p + 1 share column tile and terms.
QALG_PROPERTY(ItemsPair, ExactlyWhenEveryTypeHasEvenChunksAndWholeSteps) {
  std::mt19937_64 rng(seed);
  const uint32_t q = 1 + uint32_t(rng() % 4), tiles = 1 + uint32_t(rng() % 3);
  std::vector<uint32_t> rows(q), begin(q + 1, 0);
  for (uint32_t i = 0; i < q; ++i) rows[i] = uint32_t(rng() % 300), begin[i + 1] = begin[i] + rows[i];
  const bool whole = rng() % 2;
  std::vector<WorkItem> items;
  std::vector<Term> terms;
  for (uint32_t j = 0; j < q; ++j)
    for (uint32_t n0 = 0; n0 < tiles; ++n0)
      for (uint32_t i = 0; i < q; ++i) {
        if (rows[i] == 0) continue;
        const uint32_t t0 = uint32_t(terms.size());
        for (uint32_t g : {i, j})
          terms.push_back(Term{128 * g, whole ? 64 * (1 + uint32_t(rng() % 2)) : 8 * (1 + uint32_t(rng() % 16)), 1.0f,
                               g == j ? 1u : 0u});
        for (uint32_t m0 = 0; m0 < rows[i]; m0 += 64)
          items.push_back(WorkItem{begin[i] + m0, std::min(64u, rows[i] - m0), (j * tiles + n0) * 64, 64, t0, 2, 0.f, 0});
      }
  bool expected = !items.empty();
  for (uint32_t i = 0; i < q; ++i) expected = expected && ((rows[i] + 63) / 64) % 2 == 0;
  for (const Term& t : terms) expected = expected && t.len % 64 == 0;
  const bool pairs = qalg::gpu::detail::items_pair(items, terms);
  PROP_ASSERT_EQ(pairs, expected);
  if (pairs)
    for (size_t p = 0; p < items.size(); p += 2)
      PROP_ASSERT(items[p].n_begin == items[p + 1].n_begin && items[p].term_begin == items[p + 1].term_begin &&
                  items[p].m_begin + 64 == items[p + 1].m_begin);
}

TEST(ItemsPair, SquareRowsPairAndOddOnesDoNot) {
  // The n = 512 square at q = 4 (128 rows and 128-wide groups per type): pairs. 192 rows per type
  // (three chunks) and an empty list: not.
  for (uint32_t r : {128u, 192u}) {
    std::vector<WorkItem> items;
    std::vector<Term> terms;
    for (uint32_t j = 0; j < 4; ++j)
      for (uint32_t i = 0; i < 4; ++i) {
        const uint32_t t0 = uint32_t(terms.size());
        terms.push_back(Term{128 * i, 128, 1.0f, 0});
        terms.push_back(Term{128 * j, 128, 1.0f, 1});
        for (uint32_t m0 = 0; m0 < r; m0 += 64) items.push_back(WorkItem{i * r + m0, 64, 128 * j, 128, t0, 2, 0.f, 0});
      }
    EXPECT_EQ(qalg::gpu::detail::items_pair(items, terms), r == 128) << r << " rows per type";
  }
  EXPECT_FALSE(qalg::gpu::detail::items_pair({}, {Term{}}));
}

// For the pair lists' tests: an item's nonempty terms as sorted (a, len, coef); the terms of a pair
// item that reach its box / half b; whether every term of a pair item is nonempty with a mask, and
// mask 1 where the item has no second box / half.
using PairKey = std::tuple<uint32_t, uint32_t, float>;
std::vector<PairKey> nonempty_terms(const WorkItem& w, const std::vector<Term>& terms) {
  std::vector<PairKey> v;
  for (uint32_t t = w.term_begin; t < w.term_begin + w.term_count; ++t)
    if (terms[t].len) v.emplace_back(terms[t].a, terms[t].len, terms[t].coef);
  std::sort(v.begin(), v.end());
  return v;
}
std::vector<PairKey> reached_terms(const WorkItem& p, const std::vector<Term>& terms, uint32_t b) {
  std::vector<PairKey> v;
  for (uint32_t t = p.term_begin; t < p.term_begin + p.term_count; ++t)
    if (qalg::gpu::detail::pair_mask(terms[t]) >> b & 1) v.emplace_back(terms[t].a, terms[t].len, terms[t].coef);
  std::sort(v.begin(), v.end());
  return v;
}
bool well_masked(const WorkItem& p, const std::vector<Term>& terms) {
  for (uint32_t t = p.term_begin; t < p.term_begin + p.term_count; ++t) {
    const uint32_t m = qalg::gpu::detail::pair_mask(terms[t]);
    if (terms[t].len == 0 || m == 0 || (p.slot == 0 && m != 1)) return false;
  }
  return true;
}

// pair_group_items (the group-pair tiles' list, wsg): on random lists in build_forward's form (row
// ranges of up to 128 rows, one item per (output group, row range), r-wide groups, terms of whole
// 64-row steps with random coefficients, some items without terms), every original item is one box
// of exactly one pair item of its row range, and the terms that reach that box (pair_mask) are the
// item's own terms, as a multiset of (a, len, coef). Pairs are of different groups; a row range with
// an odd number of groups ends with a one-group item (slot 0); shared terms reach both boxes.
QALG_PROPERTY(PairGroupItems, EveryItemIsOneBoxWithItsOwnTerms) {
  std::mt19937_64 rng(seed);
  using qalg::gpu::detail::pair_group_items;
  using qalg::gpu::detail::pair_mask;
  const uint32_t q = 1 + uint32_t(rng() % 6), r = 8 * (1 + uint32_t(rng() % 8)), types = 1 + uint32_t(rng() % 3);
  std::vector<WorkItem> items;
  std::vector<Term> terms;
  std::vector<uint32_t> rows(types);
  for (uint32_t& n : rows) n = 1 + uint32_t(rng() % 300);
  for (uint32_t j = 0; j < q; ++j)
    for (uint32_t i = 0; i < types; ++i) {
      const uint32_t t0 = uint32_t(terms.size());
      const uint32_t n = uint32_t(rng() % 4);  // 0 … 3 terms; the input groups 0 … 3 of width 128
      for (uint32_t t = 0; t < n; ++t)
        terms.push_back(Term{128 * uint32_t(rng() % 4), 64 * (1 + uint32_t(rng() % 2)), float(1 + rng() % 2), 0});
      for (uint32_t m0 = 0; m0 < rows[i]; m0 += 128)
        items.push_back(WorkItem{1000 * i + m0, std::min(128u, rows[i] - m0), j * r, r, t0, n, 0.f, 0});
    }
  std::vector<WorkItem> out;
  std::vector<Term> out_terms;
  PROP_ASSERT(pair_group_items(items, terms, r, out, out_terms));
  using Key = PairKey;
  auto own = [&](const WorkItem& w) { return nonempty_terms(w, terms); };
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::vector<Key>> boxes;  // (m_begin, m_count, column) → terms
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> singles;
  for (const WorkItem& p : out) {
    PROP_ASSERT(p.n_count == r && p.n_begin % r == 0);
    PROP_ASSERT(p.slot == 0 || (p.slot - 1) % r == 0);
    PROP_ASSERT(p.slot == 0 || p.slot - 1 != p.n_begin);
    if (p.slot == 0) ++singles[{p.m_begin, p.m_count}];
    for (uint32_t b = 0; b < (p.slot ? 2u : 1u); ++b) {
      const std::vector<Key> v = reached_terms(p, out_terms, b);
      PROP_ASSERT(well_masked(p, out_terms));  // (a one-group item has no second box to reach)
      const auto key = std::make_tuple(p.m_begin, p.m_count, b ? p.slot - 1 : p.n_begin);
      PROP_ASSERT(boxes.count(key) == 0);  // every (row range, group) once
      boxes[key] = v;
    }
  }
  PROP_ASSERT_EQ(boxes.size(), items.size());
  for (const WorkItem& w : items) {
    const auto it = boxes.find(std::make_tuple(w.m_begin, w.m_count, w.n_begin));
    PROP_ASSERT(it != boxes.end());
    PROP_ASSERT(it->second == own(w));
  }
  for (const auto& [range, n] : singles) PROP_ASSERT(n == 1 && q % 2 == 1);
  PROP_ASSERT_EQ(out.size(), size_t(items.size() / q) * ((q + 1) / 2));
}

TEST(PairGroupItems, TheThirtyBExpertSharesItsRowTermAndOtherListsDoNotPair) {
  using qalg::gpu::detail::pair_group_items;
  using qalg::gpu::detail::pair_mask;
  // Type 0 of the complete law at q = 4, s = 128, r = 48: items (0, j) with terms x_0 W_0j, x_j W_jj
  // (the diagonal tile one term). Pairs (0, 1) and (2, 3): x_0 shared in both, then each box's own.
  std::vector<WorkItem> items;
  std::vector<Term> terms;
  for (uint32_t j = 0; j < 4; ++j) {
    const uint32_t t0 = uint32_t(terms.size());
    terms.push_back(Term{0, 128, 1.0f, j == 0 ? 1u : 0u});
    if (j != 0) terms.push_back(Term{128 * j, 128, 1.0f, 1});
    items.push_back(WorkItem{0, 128, 48 * j, 48, t0, j == 0 ? 1u : 2u, 0.f, 0});
  }
  std::vector<WorkItem> out;
  std::vector<Term> t;
  ASSERT_TRUE(pair_group_items(items, terms, 48, out, t));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].n_begin, 0u);
  EXPECT_EQ(out[0].slot, 1u + 48);
  ASSERT_EQ(out[0].term_count, 2u);
  EXPECT_EQ(t[out[0].term_begin].a, 0u);
  EXPECT_EQ(pair_mask(t[out[0].term_begin]), 3u);
  EXPECT_EQ(t[out[0].term_begin + 1].a, 128u);
  EXPECT_EQ(pair_mask(t[out[0].term_begin + 1]), 2u);
  EXPECT_EQ(out[1].n_begin, 96u);
  EXPECT_EQ(out[1].slot, 1u + 144);
  ASSERT_EQ(out[1].term_count, 3u);
  EXPECT_EQ(pair_mask(t[out[1].term_begin]), 3u);
  EXPECT_EQ(pair_mask(t[out[1].term_begin + 1]), 1u);
  EXPECT_EQ(t[out[1].term_begin + 1].a, 256u);
  EXPECT_EQ(pair_mask(t[out[1].term_begin + 2]), 2u);
  EXPECT_EQ(t[out[1].term_begin + 2].a, 384u);
  // Not pairing: groups wider than 64; an item that is not one whole group; a partial step.
  EXPECT_FALSE(pair_group_items(items, terms, 96, out, t));
  EXPECT_TRUE(out.empty() && t.empty());
  std::vector<WorkItem> narrow = items;
  narrow[1].n_count = 40;
  EXPECT_FALSE(pair_group_items(narrow, terms, 48, out, t));
  std::vector<Term> partial = terms;
  partial[1].len = 120;
  EXPECT_FALSE(pair_group_items(items, partial, 48, out, t));
  EXPECT_FALSE(pair_group_items(items, terms, 0, out, t));
}

// pair_row_items (the "wsm" tiles): every original item is one half of exactly one pair item,
// reached there by exactly its own terms (as a multiset); the halves of a pair have the item's
// columns and different rows; a column range has one single exactly when its row items are odd.
QALG_PROPERTY(PairRowItems, EveryItemIsOneHalfWithItsOwnTerms) {
  std::mt19937_64 rng(seed);
  using qalg::gpu::detail::pair_mask;
  using qalg::gpu::detail::pair_row_items;
  const uint32_t types = 1 + uint32_t(rng() % 7), c = 1 + uint32_t(rng() % 200), tiles = 1 + uint32_t(rng() % 4);
  const bool grouped = rng() % 2;  // grouped widths: terms of any multiple of 8 rows pair too
  std::vector<WorkItem> items;
  std::vector<Term> terms;
  std::map<std::pair<uint32_t, uint32_t>, size_t> per_columns;  // (n_begin, n_count) → row items
  for (uint32_t j = 0; j < tiles; ++j) {
    const uint32_t n0 = 128 * j, n = 8 * (1 + uint32_t(rng() % 16));
    for (uint32_t i = 0; i < types; ++i) {
      const uint32_t t0 = uint32_t(terms.size());
      const uint32_t k = uint32_t(rng() % 4);  // 0 … 3 terms over the input groups 0 … 3 (128 wide)
      for (uint32_t t = 0; t < k; ++t)
        terms.push_back(Term{128 * uint32_t(rng() % 4), grouped ? 8 * (1 + uint32_t(rng() % 16)) : 64 * (1 + uint32_t(rng() % 2)),
                             float(1 + rng() % 2), 0});
      for (uint32_t m0 = 0; m0 < c; m0 += 64)  // the 64-row chunks of type i (its tail shorter)
        items.push_back(WorkItem{i * c + m0, std::min(64u, c - m0), n0, n, t0, k, 0.f, 0}), ++per_columns[{n0, n}];
    }
  }
  std::shuffle(items.begin(), items.end(), rng);
  std::vector<WorkItem> out;
  std::vector<Term> out_terms;
  PROP_ASSERT(pair_row_items(items, terms, c, grouped, out, out_terms));
  using Key = PairKey;
  auto own = [&](const WorkItem& w) { return nonempty_terms(w, terms); };
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::vector<Key>> halves;  // (first row, n_begin, n_count)
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> singles;
  for (const WorkItem& p : out) {
    PROP_ASSERT(p.slot == 0 || p.slot - 1 != p.m_begin);
    if (p.slot == 0) ++singles[{p.n_begin, p.n_count}];
    for (uint32_t h = 0; h < (p.slot ? 2u : 1u); ++h) {
      const std::vector<Key> v = reached_terms(p, out_terms, h);
      PROP_ASSERT(well_masked(p, out_terms));  // (a one-half item has no second half to reach)
      const auto key = std::make_tuple(h ? p.slot - 1 : p.m_begin, p.n_begin, p.n_count);
      PROP_ASSERT(halves.count(key) == 0);  // every (rows, columns) once
      halves[key] = v;
    }
  }
  PROP_ASSERT_EQ(halves.size(), items.size());
  for (const WorkItem& w : items) {
    const auto it = halves.find(std::make_tuple(w.m_begin, w.n_begin, w.n_count));
    PROP_ASSERT(it != halves.end());
    PROP_ASSERT(it->second == own(w));
  }
  for (const auto& [columns, n] : singles) PROP_ASSERT(n == 1 && per_columns[columns] % 2 == 1);
  size_t expected = 0;
  for (const auto& [columns, n] : per_columns) expected += (n + 1) / 2;
  PROP_ASSERT_EQ(out.size(), expected);
}

TEST(PairRowItems, TwoTypesShareTheirDiagonalTermAndOtherListsDoNotPair) {
  using qalg::gpu::detail::pair_mask;
  using qalg::gpu::detail::pair_row_items;
  // Group 1 of the complete law at q = 3, s = 128, 64 rows per type: items (i, 1) with terms
  // x_i W_i1, x_1 W_11 (type 1's item has the one term x_1 W_11). Pairs (types 0, 1) and type 2
  // alone: x_1 W_11 shared, then type 0's row term for the first half only.
  std::vector<WorkItem> items;
  std::vector<Term> terms;
  for (uint32_t i = 0; i < 3; ++i) {
    const uint32_t t0 = uint32_t(terms.size());
    if (i != 1) terms.push_back(Term{128 * i, 128, 1.0f, 0});
    terms.push_back(Term{128, 128, 1.0f, 1});
    items.push_back(WorkItem{64 * i, 64, 128, 128, t0, i == 1 ? 1u : 2u, 0.f, 0});
  }
  std::vector<WorkItem> out;
  std::vector<Term> t;
  ASSERT_TRUE(pair_row_items(items, terms, 64, false, out, t));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].m_begin, 0u);
  EXPECT_EQ(out[0].slot, 1u + 64);
  EXPECT_EQ(out[0].n_begin, 128u);
  EXPECT_EQ(out[0].n_count, 128u);
  ASSERT_EQ(out[0].term_count, 2u);
  EXPECT_EQ(t[out[0].term_begin].a, 128u);
  EXPECT_EQ(pair_mask(t[out[0].term_begin]), 3u);
  EXPECT_EQ(t[out[0].term_begin + 1].a, 0u);
  EXPECT_EQ(pair_mask(t[out[0].term_begin + 1]), 1u);
  EXPECT_EQ(out[1].m_begin, 128u);
  EXPECT_EQ(out[1].slot, 0u);
  ASSERT_EQ(out[1].term_count, 2u);
  EXPECT_EQ(pair_mask(t[out[1].term_begin]), 1u);
  EXPECT_EQ(pair_mask(t[out[1].term_begin + 1]), 1u);
  // Not pairing: rows not in closed form (c = 0); an item of 128 rows; a short item that does not
  // end its type (c = 100: rows 64 … 127 cross type 0's end); an item of 192 columns; a partial step
  // unless the widths are grouped.
  EXPECT_FALSE(pair_row_items(items, terms, 0, false, out, t));
  EXPECT_TRUE(out.empty() && t.empty());
  std::vector<WorkItem> tall = items;
  tall[0].m_count = 128;
  EXPECT_FALSE(pair_row_items(tall, terms, 128, false, out, t));
  EXPECT_FALSE(pair_row_items(items, terms, 100, false, out, t));
  std::vector<WorkItem> short_item = items;
  short_item[2].m_count = 40;  // rows 128 … 167 of c = 64: not type 2's tail
  EXPECT_FALSE(pair_row_items(short_item, terms, 64, false, out, t));
  std::vector<WorkItem> wide = items;
  wide[0].n_count = 192;  // wider than the tile
  EXPECT_FALSE(pair_row_items(wide, terms, 64, false, out, t));
  std::vector<Term> partial = terms;
  partial[1].len = 120;
  EXPECT_FALSE(pair_row_items(items, partial, 64, false, out, t));
  // (with grouped widths the kernel's maps zero-fill past a group: partial steps pair)
  EXPECT_TRUE(pair_row_items(items, partial, 64, true, out, t));
  EXPECT_EQ(out.size(), 2u);
}

// terms_in_item_order: random lists whose items share term ranges, overlap them or point anywhere
// (as build_forward's shared terms and a sort of the items leave them), with equal or unequal term
// counts. With a stride T (the most terms of any item, 1 <= T <= 32): every item keeps exactly its
// terms in their order at i·T, the rest of its slot Term{}, and every other field; without one,
// items and terms are untouched.
QALG_PROPERTY(TermsInItemOrder, EveryItemKeepsItsTermsInASlotOfTheStride) {
  std::mt19937_64 rng(seed);
  std::vector<Term> terms(1 + rng() % 40);
  for (size_t t = 0; t < terms.size(); ++t)
    terms[t] = Term{uint32_t(1 + rng() % 1000), uint32_t(8 * (1 + rng() % 9)), float(int(rng() % 5) - 2),
                    uint32_t(rng() % 2)};
  const uint32_t most = uint32_t(rng() % std::min<size_t>(terms.size() + 1, 36));  // sometimes > 32
  std::vector<WorkItem> items(rng() % 12);
  for (WorkItem& w : items) {
    w.term_count = rng() % 2 ? most : uint32_t(rng() % (most + 1));
    w.term_begin = uint32_t(rng() % (terms.size() - w.term_count + 1));
    w.m_begin = uint32_t(rng() % 100), w.m_count = uint32_t(rng() % 64), w.n_begin = uint32_t(rng() % 100);
    w.n_count = uint32_t(rng() % 128), w.diag = float(rng() % 3), w.slot = uint32_t(rng() % 4);
  }
  const std::vector<WorkItem> before_items = items;
  const std::vector<Term> before_terms = terms;
  const uint32_t stride = terms_in_item_order(items, terms);
  uint32_t T = 0;
  for (const WorkItem& w : before_items) T = std::max(T, w.term_count);
  PROP_ASSERT(stride == (T >= 1 && T <= 32 ? T : 0u));
  auto same_term = [](const Term& x, const Term& y) {
    return x.a == y.a && x.len == y.len && x.coef == y.coef && x.diagonal == y.diagonal;
  };
  PROP_ASSERT(items.size() == before_items.size());
  if (stride == 0) {
    PROP_ASSERT(terms.size() == before_terms.size());
    for (size_t t = 0; t < terms.size(); ++t) PROP_ASSERT(same_term(terms[t], before_terms[t]));
    for (size_t i = 0; i < items.size(); ++i) PROP_ASSERT(items[i].term_begin == before_items[i].term_begin);
    return;
  }
  PROP_ASSERT(terms.size() == items.size() * stride);
  for (size_t i = 0; i < items.size(); ++i) {
    const WorkItem &w = items[i], &b = before_items[i];
    PROP_ASSERT(w.m_begin == b.m_begin && w.m_count == b.m_count && w.n_begin == b.n_begin && w.n_count == b.n_count);
    PROP_ASSERT(w.diag == b.diag && w.slot == b.slot && w.term_count == b.term_count);
    PROP_ASSERT(w.term_begin == i * stride);
    for (uint32_t t = 0; t < stride; ++t)
      PROP_ASSERT(same_term(terms[w.term_begin + t], t < w.term_count ? before_terms[b.term_begin + t] : Term{}));
  }
}

// The complete-graph law's shape: a diagonal item of one term and three of two, two of them sharing
// one range and the last listed before the others (a sort by types), give stride 2, item i's terms
// at 2i, the diagonal item's slot padded with Term{}; an item of 33 terms or no terms at all give 0
// and leave the list as it was.
TEST(TermsInItemOrder, TheLawsOneAndTwoTermItemsGetSlotsOfTwo) {
  const std::vector<Term> base = {Term{0, 64, 1.f, 1}, Term{64, 64, 1.f, 0}, Term{128, 64, 1.f, 1},
                                  Term{192, 64, 2.f, 0}};
  std::vector<Term> terms = base;
  std::vector<WorkItem> items = {WorkItem{0, 64, 0, 128, 0, 1}, WorkItem{0, 64, 128, 128, 1, 2},
                                 WorkItem{64, 64, 0, 128, 1, 2}, WorkItem{64, 64, 128, 128, 2, 2}};
  EXPECT_EQ(terms_in_item_order(items, terms), 2u);
  ASSERT_EQ(terms.size(), 8u);
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(items[i].term_begin, 2 * i);
  EXPECT_EQ(items[0].term_count, 1u);
  EXPECT_EQ(terms[0].a, 0u);
  EXPECT_EQ(terms[1].len, 0u);  // the padding
  EXPECT_EQ(terms[1].coef, 1.f);
  EXPECT_EQ(terms[2].a, 64u);  // item 1: base[1], base[2]
  EXPECT_EQ(terms[3].a, 128u);
  EXPECT_EQ(terms[4].a, 64u);  // item 2 shared item 1's range: its own copy now
  EXPECT_EQ(terms[7].a, 192u);
  EXPECT_EQ(terms[7].coef, 2.f);
  std::vector<Term> many(33, Term{0, 8, 1.f, 0});
  std::vector<WorkItem> wide = {WorkItem{0, 64, 0, 64, 0, 33}};
  EXPECT_EQ(terms_in_item_order(wide, many), 0u);
  EXPECT_EQ(many.size(), 33u);
  std::vector<Term> one = {Term{5, 8, 1.f, 0}};
  std::vector<WorkItem> none = {WorkItem{0, 64, 0, 64, 0, 0}};
  EXPECT_EQ(terms_in_item_order(none, one), 0u);
  EXPECT_EQ(one.size(), 1u);
}

using qalg::gpu::detail::highest_lane;
using qalg::gpu::detail::last_step_row;

// The warp-specialised producer finds an item's last step from one warp's votes (lane l holds term
// l, zero-length past the item's count): it must name the term and row that walking the terms in
// order names (the producer's walk until the thirty-eighth session), and tell an item with no rows
// and one with a partly empty step alike. Steps of 64 rows (wg_gemm.cuh kWgBK).
QALG_PROPERTY(LastStepFromVotes, NamesTheStepThatTheTermWalkNames) {
  std::mt19937_64 rng(seed);
  const uint32_t count = uint32_t(rng() % 33), step = 64;
  std::array<uint32_t, 32> len{};
  for (uint32_t l = 0; l < count; ++l) {
    const uint32_t kind = uint32_t(rng() % 4);  // empty, whole steps, a partial tail, one short step
    len[l] = kind == 0 ? 0 : kind == 1 ? step * uint32_t(1 + rng() % 5) : kind == 2 ? uint32_t(1 + rng() % 400) : uint32_t(1 + rng() % step);
  }
  uint32_t steps = 0, last_ti = 0, last_kk = 0;
  bool partial = false;
  for (uint32_t ti = 0; ti < count; ++ti) {
    if (len[ti]) steps += (len[ti] + step - 1) / step, last_ti = ti, last_kk = (len[ti] - 1) / step * step;
    partial |= len[ti] % step != 0;
  }
  uint32_t nonzero = 0, partly_empty = 0;  // the two ballots
  for (uint32_t l = 0; l < 32; ++l) nonzero |= uint32_t(len[l] != 0) << l, partly_empty |= uint32_t(len[l] % step != 0) << l;
  PROP_ASSERT_EQ(nonzero == 0, steps == 0);
  PROP_ASSERT_EQ(partly_empty != 0, partial);
  if (nonzero != 0) {
    PROP_ASSERT_EQ(highest_lane(nonzero), last_ti);
    PROP_ASSERT_EQ(last_step_row(len[highest_lane(nonzero)], step), last_kk);
  }
}

TEST(LastStepFromVotes, EndsOfTheWarpAndOfASteps) {
  EXPECT_EQ(highest_lane(1u), 0u);
  EXPECT_EQ(highest_lane(0x80000000u), 31u);
  EXPECT_EQ(highest_lane(0x00010110u), 16u);
  EXPECT_EQ(last_step_row(1, 64), 0u);
  EXPECT_EQ(last_step_row(64, 64), 0u);  // one whole step
  EXPECT_EQ(last_step_row(65, 64), 64u);
  EXPECT_EQ(last_step_row(128, 64), 64u);
  EXPECT_EQ(last_step_row(0, 64), 0u);
}
}  // namespace
