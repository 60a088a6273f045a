#pragma once
// CUDA kernels that execute a KernelPlan (SPEC §4–6). They read only the plan: the per-type term
// lists B(i, j) and the group widths are uploaded once (DevicePlan); the row types of a batch are
// grouped per type once (DeviceBatch). Every entry point validates shapes, dtypes, type ids,
// pointers and alignment on the host and throws std::invalid_argument before any launch.
//
// Layouts (all row-major): X is M×K, W is the K×N canonical weight bank, Y is M×N. Inputs are
// BF16, FP16 or FP32; accumulation is always FP32; outputs have the input dtype.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "qalg/gpu/kernel_plan.hpp"

namespace qalg::gpu {

enum class DType { f32, f16, bf16 };
const char* dtype_name(DType t);
size_t dtype_size(DType t);

// SPEC §6: endpoint-fused accumulates every term of B(i, j) before one write; diagonal-first runs
// the block-diagonal x_j W_jj over all rows, then adds the type-dependent terms.
enum class ForwardSchedule { endpoint_fused, diagonal_first };
const char* schedule_name(ForwardSchedule s);

// A non-owning view of a row-major device matrix.
struct DeviceMatrix {
  void* data = nullptr;
  DType dtype = DType::bf16;
  uint64_t rows = 0, cols = 0;
};

// One flat work list on the device plus what a launch needs to read it.
struct DeviceWorkList;

// The plan on the device: forward terms B(i, j), transposed terms for dX, decode work lists.
class DevicePlan {
 public:
  // Throws std::invalid_argument if the plan is inconsistent (widths, term groups, coefficients).
  explicit DevicePlan(KernelPlan plan);
  ~DevicePlan();
  DevicePlan(const DevicePlan&) = delete;
  DevicePlan& operator=(const DevicePlan&) = delete;

  const KernelPlan& plan() const { return plan_; }
  uint32_t q() const { return plan_.q; }
  uint64_t K() const { return in_off_.back(); }
  uint64_t N() const { return out_off_.back(); }
  const std::vector<uint64_t>& input_offsets() const { return in_off_; }    // q + 1 entries
  const std::vector<uint64_t>& output_offsets() const { return out_off_; }  // q + 1 entries
  // Whether every width is a multiple of 8 (16-byte rows for BF16/FP16 tensor-core tiles), and
  // the largest of 8, 4, 1 dividing every width (the copy width in elements).
  bool widths_vector_aligned() const { return vector_width_ == 8; }
  uint32_t vector_width() const { return vector_width_; }

  struct Impl;
  Impl& impl() const { return *impl_; }

 private:
  KernelPlan plan_;
  std::vector<uint64_t> in_off_, out_off_;
  uint32_t vector_width_ = 8;
  std::unique_ptr<Impl> impl_;
};

// The rows of one batch grouped by type (type_of_row[p] = τ(p), SPEC §4 type schedules), with
// the tile work lists of each kernel built on first use and cached (so CUDA-graph capture of a
// warmed-up call launches kernels only).
class DeviceBatch {
 public:
  // Throws std::invalid_argument if a type id is >= q.
  DeviceBatch(const DevicePlan& plan, std::vector<uint32_t> type_of_row);
  ~DeviceBatch();
  DeviceBatch(const DeviceBatch&) = delete;
  DeviceBatch& operator=(const DeviceBatch&) = delete;

  const DevicePlan& plan() const { return plan_; }
  uint64_t rows() const { return types_.size(); }
  const std::vector<uint32_t>& types() const { return types_; }

  struct Impl;
  Impl& impl() const { return *impl_; }

 private:
  const DevicePlan& plan_;
  std::vector<uint32_t> types_;
  std::unique_ptr<Impl> impl_;
};

// Type schedules of SPEC §4.
std::vector<uint32_t> cyclic_types(uint64_t M, uint32_t q);                 // τ(p) = p mod q
std::vector<uint32_t> interval_types(uint64_t M, uint32_t q, uint64_t L);  // ⌊(p mod qL)/L⌋

// Y = rows of X through T_τ(p)(W). diagonal_first needs an FP32 workspace of M×N floats.
void forward(const DeviceBatch& batch, ForwardSchedule schedule, const DeviceMatrix& X,
             const DeviceMatrix& W, const DeviceMatrix& Y, float* workspace = nullptr,
             cudaStream_t stream = nullptr);

// One row of type `type` (decoding): x is 1×K, y is 1×N; vector reductions over W's rows.
void decode(const DevicePlan& plan, uint32_t type, const DeviceMatrix& x, const DeviceMatrix& W,
            const DeviceMatrix& y, cudaStream_t stream = nullptr);

// SPEC §5: dX = rows of dY through T_τ(p)(W)ᵀ; dW = Σ_p (adjoint of T) applied to x_pᵀ dy_p.
// Every output element is stored once; blocks of W that no term uses get dW = 0. Tiles whose
// reduction is much deeper than the rest (W̄_jj over all rows, x̄_i over all output groups) are
// split: their chunks add into FP32 scratch of the batch (atomics), the last chunk of each tile
// converting and storing it, so
// with random inputs the last bit may differ between runs (integer-valued inputs stay exact). A
// batch's backward calls share that scratch: run them one at a time per batch.
void backward_dx(const DeviceBatch& batch, const DeviceMatrix& dY, const DeviceMatrix& W,
                 const DeviceMatrix& dX, cudaStream_t stream = nullptr);
void backward_dw(const DeviceBatch& batch, const DeviceMatrix& X, const DeviceMatrix& dY,
                 const DeviceMatrix& dW, cudaStream_t stream = nullptr);
// Both, checked together before anything runs: dW on a second stream of the batch, forked from and
// joined back into `stream` (capturable into a CUDA graph), so that the two products overlap
// where neither fills the GPU (small shapes).
void backward(const DeviceBatch& batch, const DeviceMatrix& X, const DeviceMatrix& dY, const DeviceMatrix& W,
              const DeviceMatrix& dX, const DeviceMatrix& dW, cudaStream_t stream = nullptr);

// Square block-algebra product C = A ⋆ B (SPEC §4 "square block products"): A, B, C are n×n with
// n = q·b, block (i, k) of A multiplies block (k, j) of B with the plan's coefficients. This is
// the forward map with interval types of length b; `batch` must be interval_types(n, q, n/q).
void block_product(const DeviceBatch& batch, const DeviceMatrix& A, const DeviceMatrix& B,
                   const DeviceMatrix& C, cudaStream_t stream = nullptr);

// Gated FFN: H = SiLU(X ⋆ Wg) ⊙ (X ⋆ Wu) with gate and up in one kernel (one read of X tiles),
// then Y = H ⋆ Wd. `up` types the D→F projections, `down` the F→D one (same row types).
// H is an M×F scratch matrix of the input dtype. Gate/up's kernel (16-bit types, widths multiples
// of 8, output groups wider than 32): the warp-specialised Hopper kernel with 64 × 64 tiles (the
// default), the same with 2 stages and 4 CTAs per SM (wsl64x64), or 64 × 128, or the mma.sync
// kernel; process-wide, the bench's QALG_FFN_GATE compares them.
enum class FfnGateEngine { mma_sync, ws64x64, ws64x128, wsl64x64 };
void set_ffn_gate_engine(FfnGateEngine e);
FfnGateEngine ffn_gate_engine();
// gated_ffn launches its down projection, where that runs on a warp-specialised tile, by
// programmatic dependent launch after the gate/up kernel: the second grid's launch and set-up
// overlap the first's last CTAs (gate/up lets it start once each producer has issued its last copy),
// and its producer waits for the first grid (griddepcontrol.wait) before it copies H. Off by default:
// with the trigger at gate/up's start the 1.7B, 4B and DS-V3 FFNs were 4-6 % slower, with it at the
// producers' end all five together 1 % (twenty-first session, calls 2 and 3).
// Results are the same either way. Process-wide; the bench's QALG_FFN_PDL=0|1.
void set_ffn_dependent_launch(bool on);
bool ffn_dependent_launch();
// The whole gated FFN in one kernel (gpu/cuda/narrow_ffn.cuh): the complete-graph law for both
// projections with the same rows in closed form, gate/up's input groups 32 or 64 wide and its
// output groups 16, 24 or 32 (the Qwen3-30B expert at q = 32: 64 and 24). H is written all the
// same. set_narrow_ffn(1) (the default) uses it where narrow_ffn_applies, 0 never; the run
// (output groups per CTA, 0 = automatic: one wave) and the stages (2 or 3) are for sweeps.
bool narrow_ffn_applies(const DeviceBatch& up, const DeviceBatch& down);
void set_narrow_ffn(int mode);
int narrow_ffn();
void set_narrow_ffn_run(uint32_t groups);
void set_narrow_ffn_stages(int stages);
void gated_ffn(const DeviceBatch& up, const DeviceBatch& down, const DeviceMatrix& X,
               const DeviceMatrix& Wg, const DeviceMatrix& Wu, const DeviceMatrix& Wd,
               const DeviceMatrix& H, const DeviceMatrix& Y, cudaStream_t stream = nullptr);
// The decode form (one row of type `type`). The down projection is launched with programmatic
// dependent launch: it starts while gate/up runs and reads h only once gate/up has finished.
void gated_ffn_decode(const DevicePlan& up, const DevicePlan& down, uint32_t type,
                      const DeviceMatrix& x, const DeviceMatrix& Wg, const DeviceMatrix& Wu,
                      const DeviceMatrix& Wd, const DeviceMatrix& h, const DeviceMatrix& y,
                      cudaStream_t stream = nullptr);

// Tile choice of the tensor-core forward kernel (calibrated per shape, see bench/gpu).
// engine: mma_sync = the sm_80-style kernel (mma.sync, one CTA per tile, any 16-bit widths);
// wgmma = the Hopper kernel (wgmma from swizzled shared memory, persistent CTAs; bm/64 warpgroups,
// warps = bm/16).
// wgmma_ws = the warp-specialised Hopper forward kernel (a producer warp with TMA for W, consumer
// warpgroups; bm/64 consumer warpgroups); wgmma_ws_resident = the same with the diagonal block
// x_j W_jj kept in shared memory across the row types of one (j, column tile) when it fits.
// wgmma_ws_types = warp-specialised over groups of bm/64 row types of one (j, column tile), one
// consumer warpgroup per type: a W block that several of them use (W_jj) is loaded once.
// wgmma_many = the wgmma kernel launched one CTA per tile with a 3-stage pipeline, several CTAs per
// SM (tiles "wm"): occupancy rather than persistence hides the short Q_q reductions.
// wgmma_many_rows = the same kernel with the tiles ordered by row range (tiles "wmr"): all column
// tiles of one type run together, as in the Triton peer's grid.
// wgmma_many_lean = the row-range order with a 2-stage pipeline (tiles "wl"): half the shared memory
// of wmr, so 3-6 CTAs share an SM (the peer's autotuned 64x64 tiles run ~7 per SM).
// wgmma_ws_lean = the warp-specialised kernel with fewer stages (tiles "wsl"): 4 CTAs per SM at
// 64x64, 3 at 64x128 and 64x192, 2 at 128x128 (2 stages), where wgmma_ws runs 1-3.
// wgmma_ws_pair = the lean tiles in clusters of two CTAs (tiles "wsp", 64x64 and 64x128): the two
// 64-row halves of a 128-row type share every W step by TMA multicast, so W is read from L2 once per
// pair; used where the forward list pairs (rows per type a multiple of 128 in the lists' chunks,
// every input width a multiple of 64: the square products, the q = 16 rows at M = 2048), else the
// same lean tile runs.
// wgmma_ws_group_pairs = the warp-specialised kernel over pairs of output groups (tile "wsg128x128",
// 6 stages, one CTA per SM): two groups of at most 64 columns of one 128-row range per item, each in
// a 64-column box, a term both use (the row term x_i W_ij) one step over both, so x_i is read half
// as often (the Qwen3-30B expert: r = 48); where it does not apply (group_pair_tiles_apply) the tile
// runs as ws128x64.
// wgmma_ws_row_pairs = the warp-specialised kernel over pairs of row ranges (tile "wsm128x128", 6
// stages, one CTA per SM): two items of at most 64 rows with the same 128 columns, each half one
// consumer warpgroup, a term both use (the complete-graph law's diagonal term x_j W_jj of two types'
// items) one step over both halves, so its W box is read once for both (Qwen3-8B at M = 2048: 64
// rows per type); where it does not apply (row_pair_tiles_apply) the tile runs as ws64x128.
// narrow_law = the complete-graph law with input groups of at most 64 (tile "nl64x128"; see
// narrow_law_applies below and gpu/cuda/narrow_law.cuh).
// cublas_batched (dX and dW only, not a forward tile): the complete-graph law's backward as two
// strided-batched cuBLAS GEMMs per product (gpu/cuda/batched_law.hpp says why and how).
enum class TileEngine : uint32_t {
  mma_sync = 0, wgmma = 1, wgmma_ws = 2, wgmma_ws_resident = 3, wgmma_ws_types = 4, wgmma_many = 5,
  wgmma_many_rows = 6, wgmma_many_lean = 7, wgmma_ws_lean = 8, cublas_batched = 9, narrow_law = 10,
  wgmma_ws_pair = 11, wgmma_ws_group_pairs = 12, wgmma_ws_row_pairs = 13
};
struct TileConfig {
  uint32_t bm = 64, bn = 128, warps = 4;
  TileEngine engine = TileEngine::mma_sync;
};
std::string tile_name(const TileConfig& t);  // "64x128w4", "wg64x128", "ws64x128", "wr64x128", "wt128x256", "wm64x64"
void set_forward_tiles(TileConfig t);  // process-wide; validated against the compiled set
TileConfig forward_tiles();
// Every compiled endpoint-fused tensor-core tile (the calibration's candidates; the conformance
// test runs each).
std::vector<TileConfig> compiled_forward_tiles();
// The compiled tiles that run as themselves on a plan of this vector width (DevicePlan::
// vector_width(): 8 = every width a multiple of 8, all of them; 4 = multiples of 4, the 8-byte-copy
// tiles 64x128w4, 128x64w4, 128x128w8; others: none, the CUDA-core kernel runs). Any other tile
// set there runs one of these instead (sixth session: a warp-specialised form with 8-byte copies
// ran the Qwen3-32B q = 256 row in 9993 µs against 2645 for 64x128w4 and was dropped).
std::vector<TileConfig> forward_tiles_for_vector_width(uint32_t vector_width);
// The narrow-group law tiles "nl64x128" and "nl64x64" (TileEngine::narrow_law; 4 warps of 128
// accumulator columns or 8 of 64): the complete-graph law with equal widths s <= 64 and r, both
// multiples of 4, and rows in closed form (cyclic or interval types, q | M). One CTA owns 64 rows
// of one type and a run of whole output groups (pieces of at most 120 columns). Where it does not
// apply (other plans, FP32), the forward runs the 64x128w4 tile.
bool narrow_law_applies(const DeviceBatch& batch);
// Whether the forward of this batch with tile t (a "wsp" tile) runs as pairs of CTAs sharing W
// (WorkList::pairs: each type's rows in an even number of 64-row chunks, every input width a
// multiple of 64, widths multiples of 8, some output group wider than 32); false for any other
// tile. Where false, a wsp tile runs as the wsl tile of its shape. (The 16-bit dtypes only: FP32
// runs the CUDA-core kernel whatever the tile.)
bool paired_tiles_apply(const DeviceBatch& batch, TileConfig t);
// The term stride of the forward list that tile t's warp-specialised kernel walks on this batch (in
// the process's item order): the terms per item slot (work_list.hpp terms_in_item_order), 0 where the
// list has none. With set_ws_term_stride on, such a kernel reads its first item's terms beside the item.
uint32_t forward_term_stride(const DeviceBatch& batch, TileConfig t);
// Whether the forward of this batch with tile t (a "wsg" tile) runs as group pairs: equal output
// widths r with 32 < r <= 64, multiples of 8, rows in closed form (cyclic or interval types, q | M),
// every input width a multiple of 64, the TMA stores of 128-row tiles on (set_ws_tma_store and
// set_ws_tma_store_tall). False for any other tile; where false, a wsg tile runs as ws128x64.
bool group_pair_tiles_apply(const DeviceBatch& batch, TileConfig t);
// Whether the forward of this batch with tile t (a "wsm" tile) runs as row pairs: equal output
// widths r > 32, multiples of 8, rows in closed form (cyclic or interval types, q | M), every term
// whole 64-row steps (input widths multiples of 64) or equal input widths s that are multiples of 8
// but not of 64 (the grouped maps: Qwen3-4B's s = 80, Qwen3-32B's 160), the TMA stores on
// (set_ws_tma_store).
// False for any other tile; where false, a wsm tile runs as ws64x128.
bool row_pair_tiles_apply(const DeviceBatch& batch, TileConfig t);
// The most CTAs (clusters × 2) of the paired tile t resident at once on this device, bf16: the
// persistent grid a wsp launch uses at most. std::invalid_argument for a tile that is not wsp.
uint32_t paired_tile_ctas(TileConfig t);
// The paired tiles' synchronisation at cluster scope (release on the remote arrivals, acquire on
// the producers' waits) instead of the default CTA scope (to compare; the bench's QALG_PAIR_SCOPE=1).
void set_paired_cluster_scope(bool on);
// The order in which the warp-specialised tiles (ws, wr, wsl, wsp) walk their forward items:
// columns = (output group j, column tile) outer, type inner (the default; CTAs running together
// share W_jj); types = type outer, then (j, column tile), row chunks innermost (whole row blocks of
// X and Y at a time, as the Triton peer's grid). Process-wide (the bench's QALG_WS_ORDER=types).
enum class WsItemOrder { columns, types };
// The warp-specialised 64-row tiles (and the gated FFN's gate/up on them) write each finished tile
// through shared memory and TMA stores where the batch's rows have a closed form (wgs_gemm.cuh
// kTmaStore), else by their threads. On by default (nineteenth session: the square n = 32768
// 1867 against 2245 µs, Qwen3-8B 51.9 against 62.1, warm); results are the same either way.
// Process-wide; the bench's QALG_WS_TMA_STORE=0|1.
void set_ws_tma_store(bool on);
bool ws_tma_store();
// With set_ws_tma_store on, the 128-row tiles (ws128x64, ws128x128) store the same way, one 128-row
// box per 64 columns (twenty-ninth session). On by default since the thirtieth: the Qwen3-30B
// expert's projection 9.4-9.5 against 9.8-10.1 µs warm on an H200 (flushed 2 % slower), every other
// row within the same call's spread, level on an H100; the tests and sanitizers passed on both cards. Results are
// the same either way. Process-wide; the bench's QALG_WS_TMA_STORE_TALL=0|1.
void set_ws_tma_store_tall(bool on);
bool ws_tma_store_tall();
// The row-pair tiles (wsm128x128) with 3 stages and two CTAs per SM (on) instead of 6 stages and
// one (off, the default). Why (thirty-second session, call 1 on an H100): at one CTA per SM wsm's
// copies were cheaper than wsl64x128's on Qwen3-32B (loads only 129.2 against 137.5 µs) but its
// hand-over skeleton dearer (80.5 against 51.7), one chain of steps per SM. Results are the same
// either way. Process-wide; the bench's QALG_WSM_TWO_PER_SM=0|1.
void set_row_pairs_two_per_sm(bool on);
bool row_pairs_two_per_sm();
// The plain warp-specialised 128x128 tile (ws128x128, either item order) with 3 stages and two CTAs
// per SM (on) instead of 6 stages and one (off, the default). Why (thirty-fourth session): on the
// DeepSeek-V3 expert (256 items of 14 steps) the Triton peer, two 128x128 CTAs per SM at 3 stages,
// holds every tile resident at once and was 4 % faster than qalg with the L2 flushed (27.1 against
// 28.1 µs, H200), where qalg's tile runs two waves of 132 items. Measured (thirty-fourth session,
// call 5, H100, DeepSeek-V3): level warm (31.3-31.4 against 31.3-31.4 µs alternating; -types 31.0
// against 31.3) and slower flushed (36.0-36.2 against 35.0-35.7): off. Only where every step's x
// rows go by TMA (launch_forward.cu); elsewhere the 6-stage tile runs. Results are the same either
// way. Process-wide; the bench's QALG_WS128_TWO_PER_SM=0|1.
void set_ws128_two_per_sm(bool on);
bool ws128_two_per_sm();
// The warp-specialised tiles read their first item's terms beside the item instead of after it,
// where the forward list has a copy with every item's terms in a slot of the same number of terms
// (at most 32, padded; work_list.hpp terms_in_item_order, forward_term_stride), which they then read
// instead of the list (with the switch off no kernel reads the copy). Why (thirty-third session):
// Nsight Compute's PM sampling of DeepSeek-V3's projection (H100) showed the first ~2-3 µs of the
// kernel without DRAM traffic, and the producer's item → terms loads are two dependent round trips
// before a CTA's first copy (the Qwen3-30B expert runs one item per CTA). Off by default: written
// after the session's last device call, NOT yet run on a GPU. Results are the same either way.
// Process-wide; the bench's QALG_WS_TERM_STRIDE=0|1.
void set_ws_term_stride(bool on);
bool ws_term_stride();
// Diagnostics (thirty-seventh session): where the start of a warp-specialised forward's CTA goes.
// In a build configured with -DQALG_WS_STAMPS=ON (never the measured one: the kernels then carry the
// stamping code), every such kernel launched while a buffer is set writes 16 %globaltimer stamps
// (ns) per CTA to stamps[cta · 16 + slot] (wgs_gemm.cuh kWsStampSlots lists the slots; a slot the
// kernel's path does not pass stays as it was); the buffer needs 16 × (the launch's CTAs) entries. A launch captured into a CUDA graph keeps the
// buffer set at capture. nullptr (the default) turns it off; in other builds nothing is written.
void set_ws_stamps(unsigned long long* stamps);
bool ws_stamps_compiled();
// The warp-specialised tiles issue their first item's first term's whole steps (all but the item's
// last step) straight from the item and its terms, before the rest of the item's work, where x comes
// by TMA (plain widths; wgs_gemm.cuh kPrimeFirst). Why (thirty-seventh session): the kernel's
// stamps put the first copies ~1 µs of one warp's instructions after the first item had arrived,
// and every consumer waits for that first stage. On by default since the thirty-eighth session
// (results/gpu/history/session38/call1, H100, residue suite, two rounds): the Qwen3-30B expert 9.06-9.22
// -> 8.96-8.99 µs after dense, 13.05-13.18 -> 12.70-12.73 flushed; Qwen3-1.7B level to 0.7 µs faster;
// DeepSeek-V3 level in the table's protocols (after dense, flushed, after itself); the stamps put the
// first stage's copies 0.5-0.9 µs earlier. Results are the same either way (GPU test WsPrimeFirst).
// Process-wide; the bench's QALG_WS_PRIME=0|1.
void set_ws_prime_first(bool on);
bool ws_prime_first();
// With set_ws_prime_first on, the producers prime their first item's whole steps, not only its first
// term's: every term's in order, the item's last step among them, up to the first partly empty step
// (wgs_gemm.cuh kPrimeItem). Why (forty-second session): with prime the Qwen3-30B expert's CTAs (one
// item of two 128-row terms: four steps) still issue the second term's steps only after the per-item
// work (the last step's votes, the next items' loads), and the first stage's copies go out 1.1-1.5 µs
// after the CTA starts of a kernel that computes for ~3 µs. Off by default: timed level on the 30B
// expert (H100, residue suite, two rounds, results/gpu/history/session42/call3: 8.6-8.7 µs after
// dense either way), DeepSeek-V3 0.2-0.5 µs faster, Qwen3-1.7B level to 0.6 µs slower. Results are
// the same either way (GPU test WsPrimeItem). Process-wide; the bench's QALG_WS_PRIME_ITEM=0|1.
void set_ws_prime_item(bool on);
bool ws_prime_item();
// The warp-specialised 128-row tiles of the plain forward (ws128x64, ws128x128) compute their first
// item and its terms from the CTA index where the work list is the complete-graph law's in closed
// form (checked item by item when the list is built), instead of loading them before their first
// copies (wgs_gemm.cuh kLawFirst); other tiles and lists are unchanged. On by default since the
// fifty-third session (results/gpu/history/session53/h100_law, H100, residue suite, three rounds): the
// Qwen3-30B expert flushed 12.96-13.06 -> 12.67-12.83 µs, level after dense (8.80-9.25 both ways);
// DeepSeek-V3 0.2-0.4 µs faster flushed and after itself. Results are the same either way (GPU test
// WsLawFirst). Process-wide; the bench's QALG_WS_LAW_FIRST=0|1.
void set_ws_law_first(bool on);
bool ws_law_first();
// Launches so far that computed their first items so (for tests: that the switch reaches a kernel).
uint64_t ws_law_first_launches();
// The warp-specialised tiles with the TMA stores end once their last stores have read the tile
// from shared memory instead of once they are written (wgs_gemm.cuh kExitAfterRead; the grid still
// completes only when every write has). Why (thirty-third session): the PM sampling of DeepSeek-V3's
// projection showed ~3 µs at the end of each run with no DRAM reads. Off by default: written after
// the session's last device call, NOT yet run on a GPU. Results are the same either way.
// Process-wide; the bench's QALG_WS_EXIT_AFTER_READ=0|1.
void set_ws_exit_after_read(bool on);
bool ws_exit_after_read();
// The warp-specialised tiles on plans whose equal input widths s are multiples of 8 but not of 64
// (Qwen3-4B s = 80, Qwen3-32B s = 160 at q = 32, the DeepSeek-V3 FFN's s = 224): a term's last,
// partly empty step loads only the W rows it needs, in 16-row boxes, and its wgmma reduces only
// over those rows (wgs_gemm.cuh kTrimTail), instead of a whole 64-row box the copy engine pads with
// zeros. On by default; results are the same either way. Process-wide; the bench's QALG_WS_TRIM=0|1.
void set_ws_trim_tail(bool on);
bool ws_trim_tail();
// The warp-specialised tiles copy only the W boxes (64-column blocks) that an item narrower than
// the tile reaches (wgs_gemm.cuh kNarrowW). On by default (twenty-first session, call 1: Qwen3-4B
// 44.8 -> 43.7 us warm, no row slower beyond the spread); results are the same either way.
// Process-wide; the bench's QALG_WS_NARROW_W=0|1.
void set_ws_narrow_w(bool on);
bool ws_narrow_w();
// wsl64x128 packs a term's partly filled last step with the next term's first rows (wgs_gemm.cuh
// PACK) where the plan's input groups share one width s that is not a multiple of 64, the rows have
// a closed form and the trimmed last steps are on; results are the same either way.
//   off: never; whole_steps (the default): only where s mod 64 = 32, so that two terms' last steps
//   make one whole step (Qwen3-32B, s = 160: 6 -> 5 steps per item, the same copies); always: every
//   such width (Qwen3-4B, s = 80: 4 -> 3 steps, but 21 copies instead of 12, the second term's rows
//   48-79 as slices).
// Twenty-fourth session, call 4 (then `always`): Qwen3-32B 147.1 -> 140.2 and 156.6 -> 142.2 µs,
// Qwen3-4B 44.0 -> 43.8 and 43.4 -> 43.6 (level), the table's 4B 43.4 µs against 42.5-42.8 unpacked
// in calls 1-3; so by default only the widths where no copy is added. Process-wide; the bench's
// QALG_WS_PACK=0|1|2 (off, whole_steps, always).
enum class WsPackTerms { off, whole_steps, always };
void set_ws_pack_terms(WsPackTerms m);
WsPackTerms ws_pack_terms();
// The gated FFN's gate/up on ws64x64 (the default gate engine) packs terms too, where the mode above
// packs the width (DeepSeek-V3's s = 224 under whole_steps: 8 -> 7 steps per item). On by default:
// in one call (session 25 call 1) DeepSeek-V3's FFN went 67.4 -> 65.1 us with it and no FFN shape was
// slower. The bench's QALG_FFN_PACK=0|1.
void set_ffn_pack_terms(bool on);
bool ffn_pack_terms();
// Timing experiments only (the bench's ablate suite): the warp-specialised forward tiles leave out
// their copies (ws_ablate_no_load), their wgmma (ws_ablate_no_mma) and/or their epilogue stores
// (ws_ablate_no_store), so that timing what is left shows what bounds a kernel. WHILE ANY BIT IS SET
// THE RESULTS ARE WRONG (outputs unwritten or garbage). Other bits are refused with
// std::invalid_argument. Process-wide; 0 restores the kernels.
enum WsAblation : uint32_t { ws_ablate_no_load = 1, ws_ablate_no_mma = 2, ws_ablate_no_store = 4 };
void set_ws_ablation(uint32_t mask);
uint32_t ws_ablation();
void set_ws_item_order(WsItemOrder o);
WsItemOrder ws_item_order();
// The warp-specialised tiles' forward items walked last item first (on) instead of first item first
// (off, the default), where no calibration entry names the order. Why (thirty-fifth session, the
// residue suite on an H100): the DeepSeek-V3 expert's tile ran 27.5 µs after a read of X or of W and
// 26.5 after both, but 30.7 after the dense GEMM on the same X and W, no faster than after itself
// (30.5); the Triton peer gains from that GEMM's residue. A GEMM streams K upwards, so what it leaves
// in the L2 is the high input groups; in the ascending order qalg's first items read the low ones and
// evict that residue before they reach it. Measured: shape- and card-dependent (CalibrationEntry::
// descending), so it is calibrated per shape, off by default. Results are the same either way.
// Process-wide; the bench's QALG_WS_DESCENDING=0|1.
void set_ws_items_descending(bool on);
bool ws_items_descending();
// The item order of the gated FFN's gate/up on its warp-specialised kernel (columns by default).
// Its own setting, not the projections' set_ws_item_order or calibration: a gate/up step carries two
// W tiles against one x tile, so what an order shares between CTAs running together weighs
// differently. Results are the same either way. Process-wide; the bench's QALG_FFN_GATE_ORDER.
void set_ffn_gate_item_order(WsItemOrder o);
WsItemOrder ffn_gate_item_order();
// (group, piece) units per CTA: 1..4096, or 0 (the default) = automatic: enough for about two
// CTAs per SM, rounded up to even, at most 16 (M = 2048 at q = 32 gets 4-8). Above 4096:
// std::invalid_argument.
void set_narrow_run(uint32_t units);
uint32_t narrow_run();  // the setting (0 = automatic)
// The CTA order: false (default) = the row blocks of one (type, run) adjacent, then runs, then
// types; true = types fastest (the CTAs running at once cover adjacent rows).
void set_narrow_types_first(bool on);
// Input groups of at most 32 (nl64x128) or 24 (nl64x64): 3 stages and 2 (nl64x64: 3) CTAs per SM
// (1) or 2 stages and 3 (4) CTAs (0); -1, the start: each tile's default (0 for nl64x128, 1 for
// nl64x64). Anything else throws std::invalid_argument.
void set_narrow_deep(int deep);
// nl64x64 with s = 17..24 or 33..40: a reduction of 24 or 40 (an m16n8k8 last step; true, the
// default) or of 32 or 48 (false).
void set_narrow_tail(bool on);
// nl64x64 stores Y with the evict-first hint (true) or plainly (false, the default).
void set_narrow_streaming_stores(bool on);
// Each unit's first mma step with a zero accumulator (true) or after zeroing it (false, the default).
void set_narrow_zero_accumulator(bool on);
// nl64x64 writes Y by TMA tensor stores where that fits: mode 1 (the default), a box of two
// adjacent output groups for r ≡ 4 mod 8 in one piece (r <= 112) with q and the run even; mode 2,
// also a box per piece of an output group for r ≡ 0 mod 8 (an experiment: slower on both shapes
// measured, Qwen3-32B M = 8192 373-377 against 341-344 us with lanes, Qwen3-1.7B M = 2048 35.6
// against 33.7); mode 3 (twenty-seventh session; slower, 339.6 against 330.0 us warm and 389.5
// against 339.6 flushed at Qwen3-32B M = 8192, twenty-ninth session), as mode 1 and for r ≡ 0 mod 8 in
// several pieces at s = 33..40 (Qwen3-32B at q = 128) a box per whole output group, stored after
// its last piece (row runs of r columns), where the pieces' W boxes are at most 104 columns and the
// run a multiple of the pieces; always the leading dimension of Y a multiple of 8 and the box within the shared
// memory of the shape's CTAs per SM (not with set_narrow_deep(0) at s <= 24). Mode 0, or where it
// does not fit: the lanes store. Other modes are refused.
void set_narrow_tma_store(int mode);
// nl64x64 at s = 33..40 (Qwen3-32B at q = 128) prefetches into L2 the W boxes and x rows of the
// `units` units past the ones its stages hold (twenty-seventh session, 0 = none, the default;
// 2 measured 1.47 / 1.40 times slower warm / flushed at Qwen3-32B M = 8192, twenty-ninth session):
// more of a CTA's DRAM reads in flight than its shared memory holds. Compiled into that
// shape with lane stores and with mode 3's group boxes; ignored elsewhere. Throws
// std::invalid_argument above 8.
void set_narrow_prefetch(uint32_t units);
// Which units each CTA of a (type, 64-row block) takes (twenty-eighth session; strided measured
// 1.47 / 1.43 times slower warm / flushed at Qwen3-32B M = 8192, twenty-ninth session):
// false (the default), a contiguous run of them; true, strided: CTA c of the row block takes
// c, c + CTAs, c + 2 · CTAs, … (in boxes of two groups or of a group's pieces, as its TMA stores
// write them), so the CTAs of one row block write adjacent columns at the same time (one long
// stretch of each row instead of short runs a run apart). Applies where the run and the units per
// row block are multiples of that box (else the contiguous runs).
void set_narrow_unit_order(bool strided);
bool narrow_unit_order_strided();
// Whether nl64x64 would store Y by TMA for this batch now (a contiguous Y; set_narrow_tma_store,
// the run and the other switches as they are).
bool narrow_stores_by_tma(const DeviceBatch& batch);

// The engines of dX and dW for 16-bit plans with widths multiples of 8: wgmma_many (one CTA per
// tile, 3-stage pipeline, several per SM; the fastest kernel on every measured shape),
// wgmma_many_lean (the same with 2 stages, 4-6 CTAs per SM) or wgmma (persistent CTAs; for widths
// <= 32 the mma.sync 64x32 tiles, where the other two run 64-wide wgmma tiles), or
// cublas_batched (the default): strided-batched cuBLAS GEMMs where batched_backward_applies(batch)
// and the dtype is bf16 or f16, wgmma_many otherwise.
// Process-wide, like set_forward_tiles; any other engine is refused (std::invalid_argument).
struct BackwardEngines {
  TileEngine dx = TileEngine::cublas_batched, dw = TileEngine::cublas_batched;
};
void set_backward_engines(BackwardEngines e);
BackwardEngines backward_engines();
// True when the batch's plan is the complete-graph law (every B(i, j) = {i, j}, coefficients 1)
// with equal widths and its rows have a closed form with q | M (cyclic or interval types): then
// cublas_batched runs dX and dW as strided-batched GEMMs. Computed once per batch.
bool batched_backward_applies(const DeviceBatch& batch);

// Experimental, off by default (fifth session: compiled and conformance-tested, not yet timed): the
// wgmma kernels (tiles wg, wm, wmr, wl; dX and dW) compute row indices from the batch's closed form
// (interval types, or cyclic types with q | M) instead of loading them from its row list.
// Process-wide, like set_forward_tiles. The `rows` bench suite times both.
void set_row_formula(bool on);
bool row_formula_enabled();

// The forward of the wg_gemm.cuh tiles (wg, wm, wmr, wl) on the complete-graph law with equal widths
// and rows in closed form (q | M): each CTA computes its item and terms from its index
// (work_list.hpp LawGrid) instead of loading them from the work list. On by default;
// process-wide, like set_row_formula (the bench's QALG_LAW_GRID=0 turns it off to compare).
void set_law_grid(bool on);
bool law_grid_enabled();

// The warp-specialised forward (wgs_gemm.cuh) fences the generic proxy against the async proxy
// only before steps whose x rows came by cp.async (twelfth session); on = before every step, as
// before (the bench's QALG_WS_FENCE=1 compares them). Process-wide, like set_law_grid.
void set_ws_fence_every_step(bool on);

// Decode engines (ninth session), process-wide. staging: `registers` = each thread's W rows in
// registers (the default); `cp_async` / `bulk` = 16-bit decodes copy each CTA's whole W tile into
// shared memory first, by 16-byte cp.async or by one cp.async.bulk per row (decode_gemv.cuh
// gemv_staged_kernel), where the widths allow (else registers). dependent_launch (default on):
// gated_ffn_decode's down projection by programmatic dependent launch. The bench's
// QALG_DECODE_STAGING=registers|cp_async|bulk and QALG_DECODE_PDL=0|1 compare them.
// deep_batches (default on): register decodes whose grid is at most one CTA per SM and whose
// reduction is deeper than 256 rows issue 8 (gate and up) or 12 rows per lane at once instead of 4
// (QALG_DECODE_DEEP=0|1).
enum class DecodeStaging { registers, cp_async, bulk };
void set_decode_engines(DecodeStaging staging, bool dependent_launch, bool deep_batches = true);
// gated_ffn_decode's hand-over by counters (twenty-seventh session; off: measured 1.16-1.68 times
// slower than the programmatic dependent launch on the five FFN decodes, twenty-ninth session): on
// the complete-graph law in the register form, each down-projection CTA of output group j reads h
// as soon as gate/up has stored groups `type` and j (counters in the up plan, zero between calls),
// instead of after the whole gate/up grid (griddepcontrol.wait). Like a split-K list's counters,
// one call per plan at a time: two streams must not decode on one up plan at once with it on.
// The bench's QALG_DECODE_READY=0|1.
void set_decode_ready_counters(bool on);
bool decode_ready_counters();
// gated_ffn_decode in one launch (thirty-ninth session; gpu/cuda/ffn_decode_fused.cuh): on the
// complete-graph law for both plans with equal widths, s = D/q and r = F/q multiples of 8, 16-bit
// types, a cluster of `chunks` CTAs per output group k each computes a chunk of h's groups k and
// the row's type (the latter redundantly in every group), multiplies them into y_k's partial sums
// and the cluster adds those in a fixed order: no CTA waits for another's results, and every
// weight byte is requested at the kernel's start. h is written as by the two launches; y is
// deterministic but sums h in another order than decode() does. Off by default: on an H100 it was
// slower on four of the five paper decodes (Qwen3-8B 13.3 -> 26.4 µs, 1.7B 8.6 -> 10.3; the 30B
// expert 6.9 -> 6.6), results/gpu/README.md "Thirty-ninth session", and with 16-byte sums on all
// five (8B 21.4, 1.7B 11.6, 30B 8.4 µs; "Fortieth session"). chunks: -1 = off (two launches,
// the default), 0 = the launcher's rule (among the counts whose q clusters are resident at once,
// the fewest that keep all but 1/16 of the SMs busy), 1 … 8 = that many where it fits in shared
// memory. Process-wide; the bench's QALG_DECODE_FUSED.
// decode_fused_chunks: what gated_ffn_decode would launch for these plans (0: two launches).
void set_decode_fused(int chunks);
int decode_fused();
uint32_t decode_fused_chunks(const DevicePlan& up, const DevicePlan& down, DType dtype);

// The CTA of a register decode (twelfth session): `cols` output columns (8 per thread across),
// `lanes` threads down the reduction, `unroll` rows per lane whose loads are all issued before the
// first is used. decode_shapes(m) lists those compiled for m = 1 matrix (decode(), the FFN decode's
// down projection) and m = 2 (its gate and up); 16-column tiles only on the complete-graph law
// (their tiles come from the CTA index; the other plans have lists of 64- and 32-column tiles).
struct DecodeShape {
  uint32_t cols = 0, lanes = 0, unroll = 0;
  bool operator==(const DecodeShape& o) const { return cols == o.cols && lanes == o.lanes && unroll == o.unroll; }
};
std::vector<DecodeShape> decode_shapes(int matrices);
std::string decode_shape_name(DecodeShape s);  // "64x32x8" (cols × lanes × unroll)
// The launcher's rule: `fit` (default) takes, of the shapes that apply, the fewest dependent
// round trips per SM (waves of the grid at its occupancy × batches of rows per lane), then the most
// SMs busy (up to 1/16 idle counts as busy), then tiles of 32 or more columns, then the most SMs
// busy exactly, then the widest tiles, then 64 lanes, then the shallowest batches; `session10` = the
// tenth session's rule (64-column tiles unless fewer than the SMs, then 32; deep batches for
// 32-column grids of at most one wave). deep_batches = false (set_decode_engines) leaves both rules
// batches of 4. The bench's QALG_DECODE_RULE=fit|session10 compares them.
enum class DecodeRule { fit, session10 };
void set_decode_rule(DecodeRule r);
// Forces the shapes of one- and two-matrix register decodes ({} = the rule's); process-wide, for
// comparisons (QALG_DECODE_SHAPES=ONE,TWO in the bench, e.g. 16x64x12,64x32x8) and tests. A forced
// shape that does not apply to a plan (16 columns off the law) falls back to the rule's choice.
// Throws std::invalid_argument for a shape not in decode_shapes(m).
void set_decode_shapes(DecodeShape one_matrix, DecodeShape two_matrices);
// The shape a register decode of `type` with `matrices` W matrices takes on this plan now.
DecodeShape decode_shape(const DevicePlan& p, uint32_t type, int matrices, DType dtype = DType::bf16);

// Per-shape calibration (issue 7), a CSV written from a benchmark run (results/gpu/calibration.csv):
//   K,N,q,M,schedule,bm,bn,warps[,engine[,order]]   schedule: endpoint-fused | diagonal-first;
//   engine: mma | wgmma | wgmma_ws | wgmma_ws_resident | wgmma_ws_types | wgmma_many | wgmma_many_rows | wgmma_many_lean | wgmma_ws_lean | narrow_law (absent: mma, the files written before the wgmma kernel existed)
//   order: columns | types | columns-descending | types-descending, the warp-specialised tiles' item
//   order (WsItemOrder, and CalibrationEntry::descending; absent: the process-wide set_ws_item_order
//   and set_ws_items_descending)
// Once loaded, forward() with the endpoint-fused schedule uses the tiles (and item order) of the row
// matching (K, N, q, M) instead of the process-wide ones; calibrated_schedule() names the faster
// schedule.
struct CalibrationEntry {
  uint64_t K = 0, N = 0, M = 0;
  uint32_t q = 0;
  ForwardSchedule schedule = ForwardSchedule::endpoint_fused;
  TileConfig tiles;
  std::optional<WsItemOrder> order;  // why per shape: types gained 1-5 % on most rows, lost up to 6 % on Qwen3-32B
  // With an order: its items last first (the order field's "columns-descending", "types-descending";
  // set_ws_items_descending). Why per shape (thirty-fifth session, H200, residue suite): Qwen3-8B's
  // wsl64x128-types 50.7 against 51.9-52.1 µs after the dense call and 51.3-51.6 against 52.5-52.7
  // alone; Qwen3-4B 1-2 µs and Qwen3-32B 3-4 µs slower alone.
  bool descending = false;
};
// Throws std::invalid_argument naming file:line for a malformed row or an uncompiled tile.
std::vector<CalibrationEntry> read_forward_calibration(const std::string& path);
void use_forward_calibration(std::vector<CalibrationEntry> entries);  // process-wide
std::optional<CalibrationEntry> find_calibration(uint64_t K, uint64_t N, uint32_t q, uint64_t M);
ForwardSchedule calibrated_schedule(const DeviceBatch& batch);

}  // namespace qalg::gpu
