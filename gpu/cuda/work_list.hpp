#pragma once
// Host/device shared records of the CUDA kernels: a tile of work and one term of its sum.
// A work item is one output tile (m rows × n columns) and the list of terms summed into it
// (SPEC §4 B(i, j) for forward, its transpose for dX, the types that use a block for dW).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace qalg::gpu::detail {

// One summand of a tile. Forward/dX: `a` is the column offset of the input group in A and the
// row (forward) or column (dX) offset of the block in W; dW: `a` is the first entry of the
// type's rows in the grouped row list. `len` is the reduction length, `coef` the coefficient.
struct Term {
  uint32_t a = 0, len = 0;
  float coef = 1.0f;
  uint32_t diagonal = 0;  // forward: 1 when the input group is the output group (x_j W_jj), the
                          // block the warp-specialised kernel keeps resident across row types
};

struct WorkItem {
  uint32_t m_begin = 0;  // forward/dX: index into the grouped row list; dW: row of dW (col of X)
  uint32_t m_count = 0;
  uint32_t n_begin = 0;  // first output column
  uint32_t n_count = 0;
  uint32_t term_begin = 0, term_count = 0;
  float diag = 0.0f;     // diagonal-first: coefficient of the precomputed x_j W_jj
  uint32_t slot = 0;     // split-K (backward): 1 + the FP32 partial slot this chunk adds into;
                         // 0 = the item owns its tile and stores it
};

// Merges terms [first, end) where a term continues the one before it (same coefficient, same
// diagonal flag, a = previous a + len): the sum over two adjacent ranges is the sum over their
// union. Why: dX's x̄_i sums ȳ_j W_kjᵀ over every output group j, r_j wide each; for the Qwen3-30B
// expert (r_j = 24) every 64-deep wgmma step of those q short terms was 62 % zero fill, merged they
// are one reduction over N.
// Zero-length terms (empty groups) add nothing and are dropped.
inline void merge_adjacent_terms(std::vector<Term>& terms, size_t first) {
  size_t out = first;
  for (size_t t = first; t < terms.size(); ++t) {
    if (terms[t].len == 0) continue;
    Term& last = terms[out > first ? out - 1 : first];
    if (out > first && last.a + last.len == terms[t].a && last.coef == terms[t].coef &&
        last.diagonal == terms[t].diagonal)
      last.len += terms[t].len;
    else
      terms[out++] = terms[t];
  }
  terms.resize(out);
}

// Split-K for the backward lists. Why: a dW diagonal block W̄_jj sums over every row (M deep) and
// x̄_i over every output group, while the other tiles of the same launch reduce M/q or r deep; one
// CTA walking M = 2048 rows step by step was the whole dW time of the Qwen3-30B expert (61.6 µs
// against 13.4 for dense). An item deeper than max_depth becomes chunks of at most max_depth (terms
// cut into consecutive ranges, coefficients kept); the chunks of one tile carry slot = 1 + s, add
// their products into FP32 slot s, and slots[s] (the original tile with term_begin = 0 and
// term_count = its number of chunks) is what the last chunk to finish converts and stores
// (split_k.cuh). Items at most max_depth deep are kept as they are (slot 0).
inline uint64_t item_depth(const WorkItem& w, const std::vector<Term>& terms) {
  uint64_t d = 0;
  for (uint32_t t = 0; t < w.term_count; ++t) d += terms[w.term_begin + t].len;
  return d;
}
inline void split_long_items(std::vector<WorkItem>& items, std::vector<Term>& terms, uint64_t max_depth,
                             std::vector<WorkItem>& slots) {
  if (max_depth == 0) return;
  std::vector<WorkItem> out;
  out.reserve(items.size());
  for (const WorkItem& w : items) {
    if (item_depth(w, terms) <= max_depth) {
      out.push_back(w);
      continue;
    }
    const uint32_t slot = static_cast<uint32_t>(slots.size()) + 1;
    const size_t first_chunk = out.size();
    WorkItem tile = w;
    tile.term_begin = tile.term_count = 0;
    tile.slot = 0;
    slots.push_back(tile);
    uint32_t chunk_begin = static_cast<uint32_t>(terms.size());
    uint64_t room = max_depth;
    auto emit = [&]() {
      WorkItem c = w;
      c.term_begin = chunk_begin;
      c.term_count = static_cast<uint32_t>(terms.size()) - chunk_begin;
      c.slot = slot;
      out.push_back(c);
      chunk_begin = static_cast<uint32_t>(terms.size());
      room = max_depth;
    };
    for (uint32_t t = 0; t < w.term_count; ++t) {
      const Term u = terms[w.term_begin + t];  // a copy: terms grows below
      for (uint32_t off = 0; off < u.len;) {
        const uint32_t take = static_cast<uint32_t>(std::min<uint64_t>(u.len - off, room));
        terms.push_back(Term{u.a + off, take, u.coef, u.diagonal});
        off += take;
        room -= take;
        if (room == 0) emit();
      }
    }
    if (terms.size() > chunk_begin) emit();
    slots[slot - 1].term_count = static_cast<uint32_t>(out.size()) - first_chunk;
  }
  items = std::move(out);
}

// Groups of items for the type-group forward kernel (wst_gemm.cuh): up to kMaxGroup items of one
// column range per CTA, one consumer warpgroup each, and the DISTINCT W blocks of their terms, so
// that a block several of them use (x_j W_jj for every row type) is loaded once per group.
constexpr uint32_t kMaxGroup = 4;
struct ItemGroup {
  uint32_t n_begin = 0, n_count = 0;
  uint32_t block_begin = 0, block_count = 0;  // its GroupBlocks
  uint32_t m_begin[kMaxGroup] = {}, m_count[kMaxGroup] = {};  // item g's rows; m_count 0: no item
};
// W rows [a, a + len) × the group's columns, multiplied by the items in `mask`, item g with
// coefficient coef[g] (the sum of its terms on this block). first_mask / last_mask: the items
// whose sum starts / ends with this block. len = 0 marks items with rows but no terms (first_mask):
// they store zeros.
struct GroupBlock {
  uint32_t a = 0, len = 0;
  uint32_t mask = 0, first_mask = 0, last_mask = 0;
  float coef[kMaxGroup] = {};
};

// Packs items (forward order: column range outer) into groups of G consecutive items sharing one
// column range, a group cut short by a new range padded with empty slots, and lists each group's
// distinct blocks in the order of first use. Zero-length terms and items without rows are skipped.
inline void group_items(const std::vector<WorkItem>& items, const std::vector<Term>& terms, uint32_t G,
                        std::vector<ItemGroup>& groups, std::vector<GroupBlock>& blocks) {
  std::vector<size_t> slot;  // items of the group being filled
  auto flush = [&]() {
    if (slot.empty()) return;
    ItemGroup gr;
    gr.n_begin = items[slot[0]].n_begin, gr.n_count = items[slot[0]].n_count;
    gr.block_begin = static_cast<uint32_t>(blocks.size());
    uint32_t zero = 0;
    for (uint32_t g = 0; g < slot.size(); ++g) {
      const WorkItem& w = items[slot[g]];
      gr.m_begin[g] = w.m_begin, gr.m_count[g] = w.m_count;
      if (w.m_count == 0) continue;
      bool any = false;
      for (uint32_t t = w.term_begin; t < w.term_begin + w.term_count; ++t) {
        const Term& u = terms[t];
        if (u.len == 0) continue;
        any = true;
        GroupBlock* b = nullptr;
        for (size_t k = gr.block_begin; k < blocks.size() && !b; ++k)
          if (blocks[k].a == u.a && blocks[k].len == u.len) b = &blocks[k];
        if (!b) blocks.push_back(GroupBlock{u.a, u.len}), b = &blocks.back();
        b->mask |= 1u << g;
        b->coef[g] += u.coef;
      }
      if (!any) zero |= 1u << g;
    }
    for (uint32_t g = 0; g < slot.size(); ++g) {  // each item's first and last block
      size_t first = blocks.size(), last = blocks.size();
      for (size_t k = gr.block_begin; k < blocks.size(); ++k)
        if (blocks[k].mask >> g & 1) last = k, first = first == blocks.size() ? k : first;
      if (first != blocks.size()) blocks[first].first_mask |= 1u << g, blocks[last].last_mask |= 1u << g;
    }
    if (zero) blocks.push_back(GroupBlock{0, 0, 0, zero, 0});
    gr.block_count = static_cast<uint32_t>(blocks.size()) - gr.block_begin;
    groups.push_back(gr);
    slot.clear();
  };
  for (size_t k = 0; k < items.size(); ++k) {
    if (!slot.empty() && (items[k].n_begin != items[slot[0]].n_begin || items[k].n_count != items[slot[0]].n_count))
      flush();
    slot.push_back(k);
    if (slot.size() == G) flush();
  }
  flush();
}

#ifdef __CUDACC__
#define QALG_HOST_DEVICE __host__ __device__
#else
#define QALG_HOST_DEVICE
#endif

// An item's last step from one warp's votes, where lane l holds the item's term l (a zero-length
// Term{} past its term count): `highest_lane` of the ballot of len != 0 is the last term with rows
// (the ballot is 0 for an item with none), `last_step_row` of that term's length the first row of
// its last `step`-row step. Why: the warp-specialised producer found both by walking the terms one
// by one (four shuffles and a branch per term, unrolled into ~2.5 KB of SASS in ws128x64) on its
// per-item path, between the item's arrival and its first copy.
QALG_HOST_DEVICE inline uint32_t highest_lane(uint32_t mask) {  // mask != 0
#ifdef __CUDA_ARCH__
  return 31u - uint32_t(__clz(int(mask)));
#else
  return 31u - uint32_t(__builtin_clz(mask));
#endif
}
QALG_HOST_DEVICE inline uint32_t last_step_row(uint32_t len, uint32_t step) { return len ? (len - 1) / step * step : 0u; }

// n / d and n % d for a divisor fixed before the launch, by a multiply-high and a shift (the
// round-up method, as CUTLASS's FastDivmod: exact for n, d < 2^31). Why: a division by a runtime
// value compiles to ~20 instructions (I2F.U32.RP, MUFU.RCP, F2I and corrections), and Nsight
// Compute's source page of the wl64x64 forward (ninth session) counted ~14 of them per warp, in a
// kernel that issued 2.5× the Triton peer's instructions at 67 % of its issue slots.
struct FastDiv {
  uint32_t d = 1, m = 0, s = 0;  // m = 0: d = 1
  FastDiv() = default;
  explicit FastDiv(uint32_t divisor) : d(divisor ? divisor : 1) {
    if (d == 1) return;
    uint32_t l = 0;  // ceil(log2 d)
    while ((uint64_t(1) << l) < d) ++l;
    const uint32_t p = 31 + l;
    m = uint32_t(((uint64_t(1) << p) + d - 1) / d);
    s = p - 32;
  }
  QALG_HOST_DEVICE uint32_t div(uint32_t n) const {
    if (m == 0) return n;
#ifdef __CUDA_ARCH__
    return __umulhi(n, m) >> s;
#else
    return uint32_t((uint64_t(n) * m) >> 32) >> s;
#endif
  }
  QALG_HOST_DEVICE uint32_t mod(uint32_t n) const { return n - div(n) * d; }
};

// The batch's grouped row list in closed form, where it has one: with every type holding c rows,
// rows[m] = (m / c) · a + (m % c) · b. Interval types of length c (rows sorted by type) give a = c,
// b = 1 (rows[m] = m); cyclic types τ(p) = p mod q with q | M give a = 1, b = q. Why: the wgmma
// kernels otherwise load row indices from global memory before they can issue their copies (per
// item for forward and dX, per 64-deep step for dW, whose reduction runs over rows).
// c = 0: no closed form (unequal counts or any other order); the kernels read the list.
struct RowFormula {
  uint32_t c = 0, a = 0, b = 0;
  FastDiv by_c;  // division by c (row_formula sets it)
  QALG_HOST_DEVICE uint32_t row(uint32_t m) const { return by_c.div(m) * a + by_c.mod(m) * b; }
};
inline RowFormula row_formula(const std::vector<uint32_t>& rows, const std::vector<uint32_t>& type_begin) {
  if (rows.empty() || type_begin.size() < 2) return {};
  const uint32_t c = type_begin[1] - type_begin[0];
  for (size_t i = 1; i + 1 < type_begin.size(); ++i)
    if (type_begin[i + 1] - type_begin[i] != c) return {};
  if (c == 0) return {};
  const RowFormula f{c, rows.size() > c ? rows[c] : 0, c > 1 ? rows[1] : 0, FastDiv(c)};
  if (rows[0] != 0) return {};
  for (size_t m = 0; m < rows.size(); ++m)
    if (uint64_t(m / c) * f.a + uint64_t(m % c) * f.b != rows[m] || f.row(uint32_t(m)) != rows[m]) return {};
  return f;
}


// The forward's work items of the complete-graph law (batched_law.hpp diagonal_plus_row_law: every
// B(i, j) = {i, j}, coefficients 1) with equal widths s, r and c rows per type in closed form,
// computed from the item's index instead of read from a list. Why: the one-CTA-per-item kernels
// (wg_gemm.cuh, tiles wm / wmr / wl) otherwise wait through dependent global loads (item, then
// term) before their first copy, and with the Qwen3 shapes' 2 × 64-deep reductions that wait is a
// large part of a CTA's life (seventh session, SASS of wm64x64); the Triton peer computes its
// tiles from the program id. q = 0: off (the kernels read the list).
struct LawGrid {
  uint32_t q = 0, s = 0, r = 0, c = 0;  // groups, widths, rows per type
  uint32_t mt = 0, nt = 0;              // row tiles per type, column tiles per output group
  uint32_t by_rows = 0;                 // order: 0 = (group, column tile) outer, type inner; 1 = type outer
  FastDiv by_outer, by_mt, by_nt, by_q;  // by_outer: q · nt (by rows) or q · mt; law_grid sets them
  QALG_HOST_DEVICE uint32_t count() const { return q * mt * q * nt; }
};
inline LawGrid law_grid(uint32_t q, uint32_t s, uint32_t r, uint32_t c, uint32_t bm, uint32_t bn, bool by_rows) {
  const uint32_t mt = (c + bm - 1) / bm, nt = (r + bn - 1) / bn;
  return LawGrid{q, s, r, c, mt, nt, by_rows ? 1u : 0u, FastDiv(by_rows ? q * nt : q * mt), FastDiv(mt), FastDiv(nt),
                 FastDiv(q)};
}
// Item idx (< count()) of tiles bm × bn: rows [m_begin, +m_count) of the grouped row list (type i),
// columns [n_begin, +n_count) (group j); term_begin encodes (i, j) as i · q + j for law_term.
QALG_HOST_DEVICE inline WorkItem law_item(const LawGrid& L, uint32_t idx, uint32_t bm, uint32_t bn) {
  uint32_t i, j, mtile, ntile;
  const uint32_t outer = L.by_outer.div(idx), rest = idx - outer * L.by_outer.d;
  if (L.by_rows) {  // outer = (type, row tile), rest = (group, column tile)
    i = L.by_mt.div(outer), mtile = outer - i * L.mt, j = L.by_nt.div(rest), ntile = rest - j * L.nt;
  } else {  // outer = (group, column tile), rest = (type, row tile)
    j = L.by_nt.div(outer), ntile = outer - j * L.nt, i = L.by_mt.div(rest), mtile = rest - i * L.mt;
  }
  WorkItem w;
  w.m_begin = i * L.c + mtile * bm;
  w.m_count = L.c - mtile * bm < bm ? L.c - mtile * bm : bm;
  w.n_begin = j * L.r + ntile * bn;
  w.n_count = L.r - ntile * bn < bn ? L.r - ntile * bn : bn;
  w.term_begin = i * L.q + j;
  w.term_count = i == j ? 1 : 2;
  return w;
}
// Term ti of item w: x_i W_ij, then (j ≠ i) x_j W_jj.
QALG_HOST_DEVICE inline Term law_term(const LawGrid& L, const WorkItem& w, uint32_t ti) {
  const uint32_t i = L.by_q.div(w.term_begin), j = w.term_begin - i * L.q, k = ti == 0 ? i : j;
  return Term{k * L.s, L.s, 1.0f, k == j ? 1u : 0u};
}
// The same terms in the order of the built lists: input groups ascending, as KernelPlan sorts
// B(i, j) and build_forward copies it (so a list checked against these sums in the same order).
QALG_HOST_DEVICE inline Term law_term_sorted(const LawGrid& L, const WorkItem& w, uint32_t ti) {
  const uint32_t i = L.by_q.div(w.term_begin), j = w.term_begin - i * L.q;
  const uint32_t lo = i < j ? i : j, hi = i < j ? j : i, k = ti == 0 ? lo : hi;
  return Term{k * L.s, L.s, 1.0f, k == j ? 1u : 0u};
}

// Whether a built list is the complete-graph law's in closed form: every item idx equal to
// law_item(L, idx) (order 1) or to law_item(L, count − 1 − idx) (order 2, the descending lists) in
// every field a kernel reads but term_begin (which law_item uses for (i, j)), and its terms equal
// law_term_sorted's. Returns 0 where neither holds. Why: the warp-specialised producer can then compute its
// first item and terms from its CTA index (wgs_gemm.cuh kLawFirst) instead of waiting on their
// loads, and a list is trusted for that only when it was checked item by item, not by how it was
// built (build_forward's order, a sort, a reversal).
inline uint32_t law_list_order(const LawGrid& L, const std::vector<WorkItem>& items, const std::vector<Term>& terms,
                               uint32_t bm, uint32_t bn) {
  if (L.q == 0 || items.empty() || items.size() != L.count()) return 0;
  auto matches = [&](bool reversed) {
    for (size_t k = 0; k < items.size(); ++k) {
      const WorkItem& w = items[k];
      const WorkItem c = law_item(L, uint32_t(reversed ? items.size() - 1 - k : k), bm, bn);
      if (w.m_begin != c.m_begin || w.m_count != c.m_count || w.n_begin != c.n_begin || w.n_count != c.n_count ||
          w.term_count != c.term_count || w.diag != c.diag || w.slot != c.slot)
        return false;
      if (size_t(w.term_begin) + w.term_count > terms.size()) return false;
      for (uint32_t t = 0; t < w.term_count; ++t) {
        const Term& u = terms[w.term_begin + t];
        const Term v = law_term_sorted(L, c, t);
        if (u.a != v.a || u.len != v.len || u.coef != v.coef || u.diagonal != v.diagonal) return false;
      }
    }
    return true;
  };
  return matches(false) ? 1u : matches(true) ? 2u : 0u;
}

// Decoding one row of type `type` under the complete-graph law with equal widths s → r
// (decode_gemv.cuh): the kernel's tiles and terms from the CTA index. s = 0: off (lists).
// The FFN decode's hand-over by counters (set_decode_ready_counters, launch_ffn.cu), in place of
// the down projection's grid-wide wait: gate/up (role kDecodeSignals) adds 1 to ready[j] when a
// tile of output group j is stored; a down-projection CTA of group j (kDecodeWaits) reads h once
// ready[type] and ready[j] reach `target` (gate/up's tiles per group), and the last of its grid's
// `waiters` CTAs to pass (ready[q] counts them) sets ready[0..q] back to zero for the next call.
enum DecodeRole : uint32_t { kDecodePlain = 0, kDecodeSignals = 1, kDecodeWaits = 2 };
struct DecodeLaw {
  uint32_t s = 0, r = 0, type = 0;
  uint32_t role = kDecodePlain, target = 0, waiters = 0, q = 0;
  uint32_t* ready = nullptr;  // q + 1 counters, zero between calls
};

enum GemmMode : int { kForward = 0, kGradX = 1, kGradW = 2 };
enum Epilogue : int { kStore = 0, kStoreF32 = 1, kDiagAdd = 2, kSiluMul = 3 };

// Kernel arguments (by value). Leading dimensions in elements.
// Whether a forward list pairs (WorkList::pairs): an even count, items 2p and 2p + 1 with the same
// column tile and the same terms (build_forward emits a type's 64-row chunks one after the other),
// and every term a whole number of 64-row steps. Empty lists do not pair.
inline bool items_pair(const std::vector<WorkItem>& items, const std::vector<Term>& terms) {
  if (items.empty() || items.size() % 2) return false;
  for (size_t p = 0; p < items.size(); p += 2) {
    const WorkItem &a = items[p], &b = items[p + 1];
    if (a.n_begin != b.n_begin || a.n_count != b.n_count || a.term_begin != b.term_begin || a.term_count != b.term_count)
      return false;
  }
  for (const Term& t : terms)
    if (t.len % 64) return false;
  return true;
}

constexpr uint32_t kPairMaskShift = 1;
QALG_HOST_DEVICE inline uint32_t pair_mask(const Term& t) { return t.diagonal >> kPairMaskShift & 3u; }
// The terms of a pair of items a, b (b may be absent): a term both have (same input block a, length
// and coefficient, each matched once) with mask 3, then a's own with mask 1, then b's own with
// mask 2 (kPairMaskShift bits of Term::diagonal); zero-length terms dropped.
inline void pair_terms(const WorkItem& a, const WorkItem* b, const std::vector<Term>& terms, std::vector<Term>& out) {
  std::vector<bool> taken(b ? b->term_count : 0, false);
  std::vector<Term> own_a;
  for (uint32_t t = a.term_begin; t < a.term_begin + a.term_count; ++t) {
    const Term& u = terms[t];
    if (u.len == 0) continue;
    bool shared = false;
    for (uint32_t v = 0; b && v < b->term_count && !shared; ++v) {
      const Term& x = terms[b->term_begin + v];
      if (!taken[v] && x.a == u.a && x.len == u.len && x.coef == u.coef) taken[v] = shared = true;
    }
    if (shared) out.push_back(Term{u.a, u.len, u.coef, 3u << kPairMaskShift});
    else own_a.push_back(Term{u.a, u.len, u.coef, 1u << kPairMaskShift});
  }
  out.insert(out.end(), own_a.begin(), own_a.end());
  for (uint32_t v = 0; b && v < b->term_count; ++v) {
    const Term& x = terms[b->term_begin + v];
    if (!taken[v] && x.len != 0) out.push_back(Term{x.a, x.len, x.coef, 2u << kPairMaskShift});
  }
}
// The items in classes of equal key(item), classes in the order they first appear, each class
// sorted by order(item) and cut into consecutive pairs (a class of odd size ends with a single):
// the pairs as (first, second) indices into items, second = items.size() for a single.
template <class Key, class Order>
inline std::vector<std::pair<size_t, size_t>> consecutive_pairs(const std::vector<WorkItem>& items, Key key, Order order) {
  std::vector<decltype(key(items[0]))> keys;
  std::vector<std::vector<size_t>> members;
  for (size_t k = 0; k < items.size(); ++k) {
    size_t g = 0;
    while (g < keys.size() && keys[g] != key(items[k])) ++g;
    if (g == keys.size()) keys.push_back(key(items[k])), members.emplace_back();
    members[g].push_back(k);
  }
  std::vector<std::pair<size_t, size_t>> pairs;
  for (auto& m : members) {
    std::stable_sort(m.begin(), m.end(), [&](size_t x, size_t y) { return order(items[x]) < order(items[y]); });
    for (size_t k = 0; k < m.size(); k += 2) pairs.push_back({m[k], k + 1 < m.size() ? m[k + 1] : items.size()});
  }
  return pairs;
}
// Whether input groups all s wide (s = 0: unequal) go through the grouped maps of the warp-
// specialised kernels (wgs_gemm.cuh kGroupedTma): s a multiple of 8 but not of 64, K = q · s.
inline bool grouped_input_widths(uint32_t s, uint64_t K) { return s != 0 && s % 8 == 0 && s % 64 != 0 && K % s == 0; }
// The pair items of consecutive_pairs' pairs: each pair's terms (pair_terms) appended to out_terms
// and one item, item(first, second or nullptr) with its term range filled in, appended to out.
template <class Item>
inline void emit_pairs(const std::vector<WorkItem>& items, const std::vector<Term>& terms,
                       const std::vector<std::pair<size_t, size_t>>& pairs, Item item, std::vector<WorkItem>& out,
                       std::vector<Term>& out_terms) {
  for (const auto& [ia, ib] : pairs) {
    const WorkItem& a = items[ia];
    const WorkItem* b = ib < items.size() ? &items[ib] : nullptr;
    const uint32_t t0 = static_cast<uint32_t>(out_terms.size());
    pair_terms(a, b, terms, out_terms);
    WorkItem p = item(a, b);
    p.term_begin = t0, p.term_count = static_cast<uint32_t>(out_terms.size()) - t0;
    out.push_back(p);
  }
}
// True where every term of the items is a whole number of 64-row steps.
inline bool whole_steps(const std::vector<WorkItem>& items, const std::vector<Term>& terms) {
  for (const WorkItem& w : items)
    for (uint32_t t = w.term_begin; t < w.term_begin + w.term_count; ++t)
      if (terms[t].len % 64 != 0) return false;
  return true;
}

// Group-pair items (wgs_gemm.cuh GP, the "wsg" tiles): two items of one row range whose output
// groups are both at most 64 wide become one 128-column item, each group in a 64-column box of its
// own, and a term the two items share (same input block, length and coefficient: x_i W_ij of type
// i's row term) is one step over both boxes instead of a step in each. Why: the Qwen3-30B expert
// (r = 48, s = 128, 128 rows per type) runs 256 items of 128 × 48; each reads x_i (32 KB) for its
// row term, so every type's x_i leaves L2 sixteen times (24.4 MB per call at ~3.2 us of the L2
// read ceiling, of a ~5.4 us kernel body, thirtieth session's count). Paired, it leaves eight
// times: 144 KB per pair of tiles instead of 192 (with W's boxes clipped at the group, 48 of 64
// columns: tensor_map_column_groups).
// The pair list reuses two fields, read only by the GP kernel:
//   Term::diagonal bits 1-2 (kPairMaskShift): which of the item's boxes the term feeds (1: the first
//   group, 2: the second, 3: both);
//   WorkItem::slot: 1 + the second group's first column, 0 where the item has one group (a row
//   range with an odd number of groups ends with one).
// Items keep their row range; pairs are of consecutive groups (by n_begin) within a row range, the
// row ranges in the order they first appear, the shared terms first, then the first group's own,
// then the second's. Returns false (and leaves out / out_terms empty) where the list does not pair
// this way: r = 0 or r > 64, an item other than one whole output group (n_count = r, n_begin a
// multiple of r), or a term that is not a whole number of 64-row steps.
inline bool pair_group_items(const std::vector<WorkItem>& items, const std::vector<Term>& terms, uint32_t r,
                             std::vector<WorkItem>& out, std::vector<Term>& out_terms) {
  out.clear(), out_terms.clear();
  if (r == 0 || r > 64 || items.empty() || !whole_steps(items, terms)) return false;
  for (const WorkItem& w : items)
    if (w.n_count != r || w.n_begin % r != 0) return false;
  const auto pairs = consecutive_pairs(
      items, [](const WorkItem& w) { return std::pair<uint32_t, uint32_t>{w.m_begin, w.m_count}; },
      [](const WorkItem& w) { return w.n_begin; });
  emit_pairs(
      items, terms, pairs,
      [&](const WorkItem& a, const WorkItem* b) {
        return WorkItem{a.m_begin, a.m_count, a.n_begin, r, 0, 0, 0.f, b ? 1 + b->n_begin : 0u};
      },
      out, out_terms);
  return true;
}

// Row-pair items (wgs_gemm.cuh RP, the "wsm" tiles, BM = 128): two items of at most 64 rows with
// the same columns become one 128-row item, each in a 64-row half of its own (one consumer
// warpgroup each), and a term the two share (same input block, length and coefficient: for the
// complete-graph law with 64 rows per type, the diagonal term x_j W_jj of two types' items of group
// j) is one step over both halves, its W box read once for both; each half's own terms (its row
// term x_i W_ij) are steps of that half only. Why: at q = 32 and M = 2048 (64 rows per type, where
// no 128-row item has one type) every 64-row item reads W_jj for its diagonal term, so W_jj leaves
// L2 once per type: for Qwen3-8B ~100 of the ~300 MB a call moves from L2 (thirty-second session's
// count; wsl64x128, 12 288 steps of 24 KB). Paired, 160 KB per two items instead of 192 (−17 %) in
// 6 steps instead of 8.
// The pair list reuses two fields, read only by the RP kernel:
//   Term::diagonal bits 1-2 (kPairMaskShift): which halves the term feeds (1: the first, 2: the
//   second, 3: both);
//   WorkItem::slot: 1 + the second half's first row (m_begin), 0 where the item has one half (a
//   column range with an odd number of row items ends with one).
// Pairs are of consecutive row ranges (by m_begin) among the items of one column range (the column
// ranges in the order they first appear). Every item must be one box of 64 rows the copy engine
// may store whole: m_count = 64, or the tail of its type (rows in closed form with c rows per type,
// m_begin + m_count a multiple of c, and the item within one type). Returns false (out and
// out_terms empty) where the list does not pair this way: c = 0, an item of more than 64 rows or
// not such a box or wider than the tile's 128 columns, or (unless grouped) a term that is not a
// whole number of 64-row steps. grouped: the batch's input groups are all s wide, s a multiple of 8
// but not of 64 (grouped_input_widths), so that the kernel copies every step through the grouped
// maps, which zero-fill past a group's end: partial steps are allowed.
inline bool pair_row_items(const std::vector<WorkItem>& items, const std::vector<Term>& terms, uint32_t c,
                           bool grouped, std::vector<WorkItem>& out, std::vector<Term>& out_terms) {
  out.clear(), out_terms.clear();
  if (c == 0 || items.empty() || (!grouped && !whole_steps(items, terms))) return false;
  for (const WorkItem& w : items) {
    const uint32_t end = w.m_begin + w.m_count;
    if (w.m_count == 0 || w.m_count > 64 || w.m_begin / c != (end - 1) / c || (w.m_count != 64 && end % c != 0) ||
        w.n_count > 128)
      return false;
  }
  const auto pairs = consecutive_pairs(
      items, [](const WorkItem& w) { return std::pair<uint32_t, uint32_t>{w.n_begin, w.n_count}; },
      [](const WorkItem& w) { return w.m_begin; });
  emit_pairs(
      items, terms, pairs,
      [](const WorkItem& a, const WorkItem* b) {
        return WorkItem{a.m_begin, a.m_count, a.n_begin, a.n_count, 0, 0, 0.f, b ? 1 + b->m_begin : 0u};
      },
      out, out_terms);
  return true;
}

// Gives every item a slot of T terms of its own, item i's at [i·T, i·T + T), where T is the most
// terms any item has: its terms in their order, then Term{} (the kernels read an item's terms only
// below its term_count; the warp-specialised producer's lanes past it hold Term{} either way).
// Returns T, the list's term stride; or 0, leaving items and terms as they were, where no item has a
// term, some item has more than 32 (a warp's lanes) or the slots would pass kMaxStridedTerms.
// (An item's terms may be shared with other items or lie anywhere after a sort of the items, as
// build_forward and the forward_by_* lists leave them; the complete-graph law's diagonal items have
// one term, the others two, so without the padding no such list would have a stride.)
// Why (thirty-third session): the warp-specialised producer reads an item, then its terms (their
// first index is in the item), two dependent round trips before a CTA's first copy; Nsight Compute's
// PM sampling on DeepSeek-V3 showed ~2-3 µs of every run's start with no DRAM traffic, and the
// Qwen3-30B expert runs one item per CTA, so its start is its whole chain. With a stride the first
// item's terms are read beside the item (wgs_gemm.cuh, GemmArgs::term_stride).
constexpr uint64_t kMaxStridedTerms = uint64_t(1) << 22;  // 64 MB of terms
inline uint32_t terms_in_item_order(std::vector<WorkItem>& items, std::vector<Term>& terms) {
  uint32_t T = 0;
  for (const WorkItem& w : items) T = std::max(T, w.term_count);
  if (T == 0 || T > 32 || uint64_t(items.size()) * T > kMaxStridedTerms) return 0;
  std::vector<Term> out(items.size() * T);  // Term{}: the padding
  for (size_t i = 0; i < items.size(); ++i) {
    WorkItem& w = items[i];
    std::copy(terms.begin() + w.term_begin, terms.begin() + w.term_begin + w.term_count, out.begin() + i * T);
    w.term_begin = uint32_t(i * T);
  }
  terms = std::move(out);
  return T;
}

struct GemmArgs {
  const WorkItem* items = nullptr;
  const Term* terms = nullptr;
  // terms_in_item_order's stride where set_ws_term_stride is on and the list has term slots (items and
  // terms are then the slotted copy; else 0): the warp-specialised producer reads its first item's
  // terms at first_item · term_stride + lane.
  uint32_t term_stride = 0;
  const uint32_t* rows = nullptr;  // grouped row list (rows of type 0, then type 1, ...)
  RowFormula row_formula;          // the same list in closed form where c != 0 (wg_gemm.cuh only)
  const void* A = nullptr;
  uint64_t lda = 0;
  const void* B0 = nullptr;
  const void* B1 = nullptr;  // the up projection of a gated FFN (kSiluMul)
  uint64_t ldb = 0;
  void* C = nullptr;
  uint64_t ldc = 0;
  const float* ws = nullptr;  // diagonal-first: x_j W_jj for every row, FP32, ld = ldc
  float* partial = nullptr;   // split-K: FP32 slots of BM × BN (row-major), slot s at s · BM · BN
  const WorkItem* slots = nullptr;  // split-K: slot s's tile, term_count = its number of chunks
  uint32_t* arrivals = nullptr;     // split-K: chunks of slot s done so far (0 between calls)
  const ItemGroup* groups = nullptr;  // type-group forward (wst_gemm.cuh)
  const GroupBlock* blocks = nullptr;
  LawGrid law;  // forward of the wg_gemm.cuh tiles: items from the index where law.q != 0
  DecodeLaw decode_law;  // decode (gemv_kernel): tiles from the index where decode_law.s != 0
  // set_ws_stamps (diagnostics): kWsStampSlots (16) %globaltimer stamps per CTA of the warp-specialised
  // forward, written only by a build with QALG_WS_STAMPS (wgs_gemm.cuh ws_stamp); else unread.
  unsigned long long* stamps = nullptr;
};

}  // namespace qalg::gpu::detail
