// DevicePlan / DeviceBatch: validate a KernelPlan and a batch's row types, group the rows per
// type, and build the tile work lists of each kernel (SPEC §4 forward terms, §5 backward terms).
#include <algorithm>
#include <cmath>
#include <string>

#include "device_impl.hpp"
#include "grad_w_list.hpp"
#include "grad_x_list.hpp"

namespace qalg::gpu {
namespace detail {

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(e));
}

}  // namespace detail

using detail::Term;
using detail::WorkItem;

const char* dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "fp32";
    case DType::f16: return "fp16";
    case DType::bf16: return "bf16";
  }
  return "?";
}
size_t dtype_size(DType t) { return t == DType::f32 ? 4 : 2; }
const char* schedule_name(ForwardSchedule s) {
  return s == ForwardSchedule::endpoint_fused ? "endpoint-fused" : "diagonal-first";
}

std::vector<uint32_t> cyclic_types(uint64_t M, uint32_t q) {
  if (q == 0) throw std::invalid_argument("cyclic_types: q must be positive");
  std::vector<uint32_t> t(M);
  for (uint64_t p = 0; p < M; ++p) t[p] = static_cast<uint32_t>(p % q);
  return t;
}
std::vector<uint32_t> interval_types(uint64_t M, uint32_t q, uint64_t L) {
  if (q == 0 || L == 0) throw std::invalid_argument("interval_types: q and L must be positive");
  std::vector<uint32_t> t(M);
  for (uint64_t p = 0; p < M; ++p) t[p] = static_cast<uint32_t>((p % (q * L)) / L);
  return t;
}

static float term_coefficient(const PlanTerm& t, uint32_t i, uint32_t j) {
  if (t.den == 0)
    throw std::invalid_argument("KernelPlan: term of B(" + std::to_string(i) + "," +
                                std::to_string(j) + ") has denominator 0");
  return static_cast<float>(t.coefficient());
}

DevicePlan::DevicePlan(KernelPlan plan) : plan_(std::move(plan)), impl_(std::make_unique<Impl>()) {
  const uint32_t q = plan_.q;
  if (q == 0) throw std::invalid_argument("KernelPlan: q must be positive");
  if (plan_.input_widths.size() != q || plan_.output_widths.size() != q)
    throw std::invalid_argument("KernelPlan: expected " + std::to_string(q) +
                                " input and output widths, got " +
                                std::to_string(plan_.input_widths.size()) + " and " +
                                std::to_string(plan_.output_widths.size()));
  if (plan_.terms.size() != size_t(q) * q)
    throw std::invalid_argument("KernelPlan: expected q*q = " + std::to_string(q * q) +
                                " term lists, got " + std::to_string(plan_.terms.size()));
  in_off_.assign(q + 1, 0);
  out_off_.assign(q + 1, 0);
  for (uint32_t g = 0; g < q; ++g) {
    in_off_[g + 1] = in_off_[g] + plan_.input_widths[g];
    out_off_[g + 1] = out_off_[g] + plan_.output_widths[g];
    for (uint32_t w : {plan_.input_widths[g], plan_.output_widths[g]})
      while (vector_width_ > 1 && w % vector_width_ != 0) vector_width_ /= 2;
  }
  if (in_off_[q] >= (1ull << 31) || out_off_[q] >= (1ull << 31))
    throw std::invalid_argument("KernelPlan: K and N must be below 2^31");
  for (uint32_t i = 0; i < q; ++i)
    for (uint32_t j = 0; j < q; ++j)
      for (const PlanTerm& t : plan_.B(i, j)) {
        if (t.input_group >= q)
          throw std::invalid_argument("KernelPlan: B(" + std::to_string(i) + "," +
                                      std::to_string(j) + ") names input group " +
                                      std::to_string(t.input_group) + " >= q");
        term_coefficient(t, i, j);
      }
  // Decode lists: for each type, every (output group, column tile) with its terms, for tiles of
  // 64 and of 32 columns.
  for (const uint32_t cols : {64u, 32u}) {
    std::vector<WorkItem> items;
    std::vector<Term> terms;
    std::vector<uint32_t>& begin = cols == 64 ? impl_->decode_begin : impl_->decode32_begin;
    begin.assign(q + 1, 0);
    for (uint32_t i = 0; i < q; ++i) {
      begin[i] = static_cast<uint32_t>(items.size());
      for (uint32_t j = 0; j < q; ++j) {
        const uint32_t tb = static_cast<uint32_t>(terms.size());
        for (const PlanTerm& t : plan_.B(i, j))
          terms.push_back(Term{uint32_t(in_off_[t.input_group]), plan_.input_widths[t.input_group],
                               term_coefficient(t, i, j), 0});
        const uint32_t tc = static_cast<uint32_t>(terms.size()) - tb;
        uint32_t depth = 0;
        for (uint32_t t = tb; t < tb + tc; ++t) depth += terms[t].len;
        impl_->decode_depth_max = std::max(impl_->decode_depth_max, depth);
        for (uint32_t n0 = 0; n0 < plan_.output_widths[j]; n0 += cols)
          items.push_back(WorkItem{0, 1, uint32_t(out_off_[j] + n0),
                                   std::min<uint32_t>(cols, plan_.output_widths[j] - n0), tb, tc, 0.f, 0});
      }
    }
    begin[q] = static_cast<uint32_t>(items.size());
    (cols == 64 ? impl_->decode : impl_->decode32).upload(items, terms);
  }
  impl_->decode_law = detail::diagonal_plus_row_law(plan_);
  if (impl_->decode_law) impl_->decode_ready.upload(std::vector<uint32_t>(q + 1, 0u));
}

DevicePlan::~DevicePlan() = default;

DeviceBatch::DeviceBatch(const DevicePlan& plan, std::vector<uint32_t> type_of_row)
    : plan_(plan), types_(std::move(type_of_row)), impl_(std::make_unique<Impl>()) {
  const uint32_t q = plan.q();
  if (types_.size() >= (1ull << 31)) throw std::invalid_argument("DeviceBatch: too many rows");
  std::vector<uint32_t> count(q, 0);
  for (size_t p = 0; p < types_.size(); ++p) {
    if (types_[p] >= q)
      throw std::invalid_argument("DeviceBatch: row " + std::to_string(p) + " has type " +
                                  std::to_string(types_[p]) + ", but the plan has q = " +
                                  std::to_string(q));
    ++count[types_[p]];
  }
  impl_->type_begin.assign(q + 1, 0);
  for (uint32_t i = 0; i < q; ++i) impl_->type_begin[i + 1] = impl_->type_begin[i] + count[i];
  std::vector<uint32_t> rows(types_.size()), fill(impl_->type_begin.begin(), impl_->type_begin.end() - 1);
  std::vector<uint32_t> ident(types_.size());
  for (size_t p = 0; p < types_.size(); ++p) {
    rows[fill[types_[p]]++] = static_cast<uint32_t>(p);
    ident[p] = static_cast<uint32_t>(p);
  }
  impl_->rows.upload(rows);
  impl_->identity.upload(ident);
  impl_->formula = detail::row_formula(rows, impl_->type_begin);
}

DeviceBatch::~DeviceBatch() = default;

DeviceBatch::Impl::~Impl() {
  if (blas_dx) cublasDestroy(blas_dx);
  if (blas_dw) cublasDestroy(blas_dw);
  for (void* w : blas_workspace)
    if (w) cudaFree(w);
  if (fork) cudaEventDestroy(fork);
  if (join) cudaEventDestroy(join);
  if (side) cudaStreamDestroy(side);
}

namespace {

// Forward tiles, ordered (j, column tile) outer and type inner, so the CTAs running together
// share W_jj (and x_j) in L2.
void build_forward(const DeviceBatch& b, ListKind kind, uint32_t bm, uint32_t bn,
                   std::vector<WorkItem>& items, std::vector<Term>& terms) {
  const DevicePlan& dp = b.plan();
  const KernelPlan& p = dp.plan();
  const auto& tb = b.impl().type_begin;
  const auto& in = dp.input_offsets();
  const auto& out = dp.output_offsets();
  const uint32_t q = p.q;
  if (kind == ListKind::diag_pass1) {  // x_j W_jj for every row, every j whose W_jj is used
    for (uint32_t j = 0; j < q; ++j) {
      if (!(p.block_used.size() == size_t(q) * q ? p.block_used[size_t(j) * q + j] : 1)) continue;
      const uint32_t t0 = static_cast<uint32_t>(terms.size());
      terms.push_back(Term{uint32_t(in[j]), p.input_widths[j], 1.0f, 0});
      for (uint32_t n0 = 0; n0 < p.output_widths[j]; n0 += bn)
        for (uint64_t m0 = 0; m0 < b.rows(); m0 += bm)
          items.push_back(WorkItem{uint32_t(m0), uint32_t(std::min<uint64_t>(bm, b.rows() - m0)),
                                   uint32_t(out[j] + n0), std::min(bn, p.output_widths[j] - n0), t0,
                                   1, 0.f, 0});
    }
    return;
  }
  for (uint32_t j = 0; j < q; ++j) {
    for (uint32_t n0 = 0; n0 < p.output_widths[j]; n0 += bn) {
      for (uint32_t i = 0; i < q; ++i) {
        const uint32_t cnt = tb[i + 1] - tb[i];
        if (cnt == 0) continue;
        const uint32_t t0 = static_cast<uint32_t>(terms.size());
        float diag = 0.f;
        for (const PlanTerm& t : p.B(i, j)) {
          const float c = static_cast<float>(t.coefficient());
          if (kind == ListKind::diag_pass2 && t.input_group == j) {
            diag += c;
            continue;
          }
          terms.push_back(Term{uint32_t(in[t.input_group]), p.input_widths[t.input_group], c,
                               t.input_group == j ? 1u : 0u});
        }
        const uint32_t tc = static_cast<uint32_t>(terms.size()) - t0;
        for (uint32_t m0 = 0; m0 < cnt; m0 += bm)
          items.push_back(WorkItem{tb[i] + m0, std::min(bm, cnt - m0), uint32_t(out[j] + n0),
                                   std::min(bn, p.output_widths[j] - n0), t0, tc, diag, 0});
      }
    }
  }
}

// dX: grad_x_list.hpp (CPU-tested against the reference).
void build_grad_x(const DeviceBatch& b, uint32_t bm, uint32_t bn, std::vector<WorkItem>& items,
                  std::vector<Term>& terms) {
  const DevicePlan& dp = b.plan();
  detail::build_grad_x_list(dp.plan(), b.impl().type_begin, dp.input_offsets(), dp.output_offsets(), bm, bn, items,
                            terms);
}

// dW: grad_w_list.hpp (column runs of groups with equal terms, CPU-tested against the reference).
void build_grad_w(const DeviceBatch& b, uint32_t bm, uint32_t bn, std::vector<WorkItem>& items,
                  std::vector<Term>& terms) {
  const DevicePlan& dp = b.plan();
  detail::build_grad_w_list(dp.plan(), b.impl().type_begin, dp.input_offsets(), dp.output_offsets(), bm, bn, items,
                            terms);
}

}  // namespace

const detail::WorkList& DeviceBatch::Impl::list(const DeviceBatch& b, ListKind kind, uint32_t bm,
                                                uint32_t bn, bool descending_order) {
  std::lock_guard<std::mutex> lock(mutex);
  const bool descending = descending_order && (kind == ListKind::forward || kind == ListKind::forward_by_types);
  auto key = std::make_tuple(kind, bm, bn, descending);
  auto it = lists.find(key);
  if (it != lists.end()) return it->second;
  std::vector<WorkItem> items;
  std::vector<Term> terms;
  switch (kind) {
    case ListKind::forward_by_rows:
      // The same items, all tiles of one row range (one type, for these lists) consecutive, as
      // the Triton peer's grid runs them: its row block of X and of W's block row stays in L2
      // while its column tiles run, and the reads are long contiguous rows rather than one
      // column group of every row.
      build_forward(b, ListKind::forward, bm, bn, items, terms);
      std::stable_sort(items.begin(), items.end(),
                       [](const WorkItem& x, const WorkItem& y) { return x.m_begin < y.m_begin; });
      break;
    case ListKind::forward_by_types: {
      // Why (eighteenth session): the square products stream A, B and C through DRAM. In the
      // (j, column tile) outer order the CTAs running together read one 256-byte piece of every
      // row of A's and C's column block j (rows 64 KB apart at n = 32768); type outer, they read
      // whole row blocks of A, C and B's block row i, as the Triton peer's grid does.
      build_forward(b, ListKind::forward, bm, bn, items, terms);
      const auto& tb = b.impl().type_begin;
      auto type_of = [&](const WorkItem& w) { return std::upper_bound(tb.begin(), tb.end(), w.m_begin) - tb.begin(); };
      std::stable_sort(items.begin(), items.end(),
                       [&](const WorkItem& x, const WorkItem& y) { return type_of(x) < type_of(y); });
      break;
    }
    case ListKind::forward_group_pairs: {
      build_forward(b, ListKind::forward, bm, 64, items, terms);
      const auto& widths = b.plan().plan().output_widths;
      const uint32_t r = widths.empty() ? 0 : widths[0];
      const bool equal = std::all_of(widths.begin(), widths.end(), [&](uint32_t w) { return w == r; });
      std::vector<WorkItem> paired;
      std::vector<Term> paired_terms;
      auto& wl = lists[key];
      wl.group_pairs = equal && detail::pair_group_items(items, terms, r, paired, paired_terms);
      wl.upload(paired, paired_terms);
      return wl;
    }
    case ListKind::forward_row_pairs: {
      build_forward(b, ListKind::forward, 64, bn, items, terms);
      std::vector<WorkItem> paired;
      std::vector<Term> paired_terms;
      auto& wl = lists[key];
      const auto& widths = b.plan().plan().input_widths;
      const uint32_t s = !widths.empty() && std::all_of(widths.begin(), widths.end(), [&](uint32_t w) { return w == widths[0]; })
                             ? widths[0]
                             : 0u;
      wl.row_pairs = detail::pair_row_items(items, terms, formula.c, detail::grouped_input_widths(s, b.plan().K()),
                                            paired, paired_terms);
      wl.upload(paired, paired_terms);
      return wl;
    }
    case ListKind::forward:
    case ListKind::diag_pass1:
    case ListKind::diag_pass2: build_forward(b, kind, bm, bn, items, terms); break;
    case ListKind::grad_x: build_grad_x(b, bm, bn, items, terms); break;
    case ListKind::grad_w: build_grad_w(b, bm, bn, items, terms); break;
    case ListKind::forward_groups: {
      build_forward(b, ListKind::forward, 64, bn, items, terms);
      std::vector<detail::ItemGroup> groups;
      std::vector<detail::GroupBlock> blocks;
      detail::group_items(items, terms, bm / 64, groups, blocks);
      auto& wl = lists[key];
      wl.upload(items, terms);
      wl.groups.upload(groups);
      wl.blocks.upload(blocks.empty() ? std::vector<detail::GroupBlock>{detail::GroupBlock{}} : blocks);
      wl.count = static_cast<uint32_t>(groups.size());
      return wl;
    }
  }
  std::vector<WorkItem> slots;
  if (kind == ListKind::grad_x || kind == ListKind::grad_w) {
    // Backward tiles have very unequal reductions (x̄_i sums over every j; W̄_jj over every
    // type). Tiles deeper than a quarter of an even share of the work per SM (at least 256) are
    // split into chunks that add into FP32 slots (split_long_items), so no chain of steps outlasts
    // the rest; then the deepest start first so they overlap the many short ones.
    uint64_t total = 0;
    for (const WorkItem& w : items) total += detail::item_depth(w, terms);
    int dev = 0, sms = 132;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
      sms = 132;
    const uint64_t share = total / (4 * uint64_t(std::max(sms, 1)));
    detail::split_long_items(items, terms, std::max<uint64_t>(256, (share + 63) / 64 * 64), slots);
    std::stable_sort(items.begin(), items.end(), [&](const WorkItem& x, const WorkItem& y) {
      return detail::item_depth(x, terms) > detail::item_depth(y, terms);
    });
  }
  // descending (set_ws_items_descending or the calibration): the same items last first. A pair of
  // the wsp tiles stays a pair: with an even count, items 2p and 2p + 1 land at count - 1 - 2p and
  // count - 2 - 2p, again 2p' + 1 and 2p' (row halves swapped, which items_pair below allows).
  if (descending) std::reverse(items.begin(), items.end());
  if (items.size() >= (1u << 31)) throw std::invalid_argument("DeviceBatch: too many tiles");
  auto& wl = lists[key];
  wl.upload(items, terms);
  if (kind == ListKind::forward || kind == ListKind::forward_by_types) wl.pairs = detail::items_pair(items, terms);
  // The forward lists' copy in term slots (terms_in_item_order), for the warp-specialised kernels
  // under set_ws_term_stride only: with the switch off every kernel reads the list as before.
  if (kind == ListKind::forward || kind == ListKind::forward_by_rows || kind == ListKind::forward_by_types) {
    std::vector<WorkItem> slotted = items;
    std::vector<Term> slot_terms = terms;
    wl.term_stride = detail::terms_in_item_order(slotted, slot_terms);
    if (wl.term_stride) wl.slotted_items.upload(slotted), wl.slotted_terms.upload(slot_terms);
    // The law's closed form (set_ws_law_first), where every group is s wide in and r wide out and
    // every type has c rows: the list decides (law_list_order), both of its item orders tried.
    const auto& in = b.plan().plan().input_widths;
    const auto& out = b.plan().plan().output_widths;
    const bool equal = !in.empty() && in.size() == out.size() &&
                       std::all_of(in.begin(), in.end(), [&](uint32_t w) { return w == in[0]; }) &&
                       std::all_of(out.begin(), out.end(), [&](uint32_t w) { return w == out[0]; });
    if (equal && formula.c != 0 && in[0] != 0 && out[0] != 0)
      for (bool by_rows : {false, true}) {
        const detail::LawGrid L = detail::law_grid(uint32_t(in.size()), in[0], out[0], formula.c, bm, bn, by_rows);
        if (const uint32_t order = detail::law_list_order(L, items, terms, bm, bn)) {
          wl.law = L, wl.law_order = order;
          break;
        }
      }
  }
  if (!slots.empty()) {
    wl.slots.upload(slots);
    wl.partial.upload(std::vector<float>(slots.size() * size_t(bm) * bn, 0.0f));
    wl.arrivals.upload(std::vector<uint32_t>(slots.size(), 0u));
    wl.slot_count = static_cast<uint32_t>(slots.size());
  }
  return wl;
}

}  // namespace qalg::gpu
