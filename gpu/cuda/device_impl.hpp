#pragma once
// Host-side state behind DevicePlan and DeviceBatch: RAII device buffers and the cached work
// lists (work_list.hpp) of each kernel. Internal to gpu/cuda.
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "batched_law.hpp"
#include "qalg/gpu/kernels.hpp"
#include "work_list.hpp"

namespace qalg::gpu::detail {

// Device errors are a different boundary from bad input: std::runtime_error.
void check_cuda(cudaError_t e, const char* what);

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(const std::vector<T>& host) { upload(host); }
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), n_(o.n_) { o.ptr_ = nullptr, o.n_ = 0; }
  void upload(const std::vector<T>& host) {
    reset();
    n_ = host.size();
    if (n_ == 0) return;
    check_cuda(cudaMalloc(&ptr_, n_ * sizeof(T)), "cudaMalloc");
    check_cuda(cudaMemcpy(ptr_, host.data(), n_ * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  void reset() {
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    n_ = 0;
  }
  T* get() const { return ptr_; }
  size_t size() const { return n_; }

 private:
  T* ptr_ = nullptr;
  size_t n_ = 0;
};

struct WorkList {
  DeviceBuffer<WorkItem> items;
  DeviceBuffer<Term> terms;
  DeviceBuffer<ItemGroup> groups;  // ListKind::forward_groups only (count = groups)
  DeviceBuffer<GroupBlock> blocks;
  uint32_t count = 0;
  // Split-K (split_long_items): the tiles whose chunks add into FP32 slots, and the slots
  // (slot_count · bm · bn floats) with their arrival counters, all zero between calls (the last
  // chunk of a tile clears its slot). This list's scratch: one call at a time uses them.
  DeviceBuffer<WorkItem> slots;
  DeviceBuffer<float> partial;
  DeviceBuffer<uint32_t> arrivals;
  uint32_t slot_count = 0;
  // Forward lists: items 2p and 2p + 1 are the two row halves of one tile column (same column tile,
  // same terms), the count is even and every term is a whole number of 64-row steps, so a cluster
  // of two CTAs can share each W step by multicast (wgs_gemm.cuh CL = 2, the "wsp" tiles).
  bool pairs = false;
  // ListKind::forward_group_pairs: the list paired (work_list.hpp pair_group_items); false: no items.
  bool group_pairs = false;
  // ListKind::forward_row_pairs: the list paired (work_list.hpp pair_row_items); false: no items.
  bool row_pairs = false;
  // The forward lists (forward, forward_by_rows, forward_by_types): the same items with every item's
  // terms in a slot of term_stride of its own (work_list.hpp terms_in_item_order; 0: none), which the
  // warp-specialised kernels read instead under set_ws_term_stride.
  uint32_t term_stride = 0;
  // The forward lists where they are the complete-graph law's in closed form (work_list.hpp
  // law_list_order, checked item by item when built): the grid, and 1 (in order) or 2 (reversed);
  // 0: not, and the warp-specialised producers read every item from the list (wgs_gemm.cuh kLawFirst).
  LawGrid law;
  uint32_t law_order = 0;
  DeviceBuffer<WorkItem> slotted_items;
  DeviceBuffer<Term> slotted_terms;
  void upload(const std::vector<WorkItem>& it, const std::vector<Term>& te) {
    items.upload(it);
    terms.upload(te.empty() ? std::vector<Term>{Term{}} : te);
    count = static_cast<uint32_t>(it.size());
  }
};

}  // namespace qalg::gpu::detail

namespace qalg::gpu {

struct DevicePlan::Impl {
  // Decode work lists of every type, concatenated: items of type i are
  // [decode_begin[i], decode_begin[i+1]); 64-column tiles, and the same with 32-column tiles.
  detail::WorkList decode, decode32;
  std::vector<uint32_t> decode_begin, decode32_begin;
  // The complete-graph law with equal widths (batched_law.hpp diagonal_plus_row_law): the decode
  // kernel computes its tiles instead of reading these lists (same tiles, same order).
  bool decode_law = false;
  // On the law: q + 1 counters of the FFN decode's hand-over (work_list.hpp DecodeLaw::ready), zero
  // between calls; the plan's scratch, like a split-K list's arrivals: one call at a time uses them.
  detail::DeviceBuffer<uint32_t> decode_ready;
  uint32_t decode_depth_max = 0;  // the deepest decode tile's reduction (rows of W), for shared memory
};

// Which list: forward fused, diagonal-first passes 1 and 2, dX, dW; with its tile shape.
// forward_groups (bm = 64 · G): the forward's 64-row items packed by group_items (work_list.hpp).
// forward_by_rows: the forward's items ordered by row range (the many-CTA tiles).
// forward_by_types: the forward items type outer, (j, column tile, row chunk) inner (the warp-
// specialised tiles under set_ws_item_order(types); the pairs of WorkList::pairs survive it).
// forward_group_pairs (bm = 128): the forward's 128-row items as pairs of output groups
// (pair_group_items; the "wsg" tiles), WorkList::group_pairs where it pairs.
// forward_row_pairs (bm = 128, bn = 128): the forward's 64-row items of 128 columns as pairs of row
// ranges (pair_row_items; the "wsm" tiles), WorkList::row_pairs where it pairs.
enum class ListKind {
  forward, diag_pass1, diag_pass2, grad_x, grad_w, forward_groups, forward_by_rows, forward_by_types, forward_group_pairs,
  forward_row_pairs
};

struct DeviceBatch::Impl {
  detail::DeviceBuffer<uint32_t> rows;      // rows grouped by type
  detail::DeviceBuffer<uint32_t> identity;  // 0..M-1 (diagonal-first pass 1)
  std::vector<uint32_t> type_begin;         // q + 1 offsets into rows
  detail::RowFormula formula;               // rows in closed form, where they have one
  std::mutex mutex;
  // (the last key: the forward lists built last item first, set_ws_items_descending)
  std::map<std::tuple<ListKind, uint32_t, uint32_t, bool>, detail::WorkList> lists;
  // Built on first use (outside any graph capture), then reused.
  // descending (forward and forward_by_types only; ignored for the others): the items last first
  // (set_ws_items_descending, a calibration entry's "…-descending" order).
  const detail::WorkList& list(const DeviceBatch& b, ListKind kind, uint32_t bm, uint32_t bn, bool descending = false);
  // backward(): the second stream and the fork/join events, created on first use.
  cudaStream_t side = nullptr;
  cudaEvent_t fork = nullptr, join = nullptr;
  // cublas_batched (batched_law.hpp): dX's and dW's GEMMs, built with `batched_built` under the
  // mutex on first use; one cuBLAS handle per product, so that backward() running them on two
  // streams at once never shares a handle's workspace.
  bool batched_built = false;
  int law_state = -1;  // forward items from LawGrid (launch_forward.cu law_applies): -1 unknown, 0 no, 1 yes
  int narrow_state = -1;  // the narrow-group law kernel applies (launch_narrow.cu): -1 unknown, 0 no, 1 yes
  std::vector<detail::StridedGemm> batched_dx, batched_dw;
  cublasHandle_t blas_dx = nullptr, blas_dw = nullptr;
  void* blas_workspace[2] = {nullptr, nullptr};  // their own workspaces (cublasSetWorkspace), so graph capture never allocates
  ~Impl();
};

}  // namespace qalg::gpu
