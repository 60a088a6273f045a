// Conformance of the CUDA kernels (issue 6), label gpu: every kernel × tables (complete q = 2, 4,
// 8, 32; Q_2^{⊗2}; Q_2^{⊗3}; a cycle; a random quiver; unequal and odd widths) × dtypes ×
// integer/random inputs, small shapes; then paper-sized shapes. References: cuBLAS on T_i(W)
// materialised from the table (cuda_dense_reference.hpp).
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cuda_conformance.hpp"
#include "qalg/gpu/cuda_bench_support.hpp"
#include "qalg/gpu/lowering.hpp"
#include "qalg/gpu/table_data.hpp"
#include "gpu/table_builders.hpp"

namespace qalg::gpu::test {
namespace {

std::vector<uint32_t> same(uint32_t q, uint32_t w) { return std::vector<uint32_t>(q, w); }

TableData q2_power(int L) {
  TableData t = complete_table(2);
  for (int l = 1; l < L; ++l) t = tensor_table(t, complete_table(2));
  return t;
}

std::vector<TableCase> small_cases() {
  std::mt19937_64 rng(20261129);
  std::vector<TableCase> cs;
  cs.push_back({"complete:2", complete_table(2), same(2, 32), same(2, 32)});
  cs.push_back({"complete:4", complete_table(4), same(4, 32), same(4, 32)});
  cs.push_back({"complete:8", complete_table(8), same(8, 16), same(8, 16)});
  cs.push_back({"complete:32", complete_table(32), same(32, 8), same(32, 8)});
  cs.push_back({"Q2^2", q2_power(2), same(4, 16), same(4, 16)});
  cs.push_back({"Q2^3", q2_power(3), same(8, 16), same(8, 16)});
  cs.push_back({"cycle:4", quiver_table(4, {{0, 1}, {1, 2}, {2, 3}, {3, 0}}), same(4, 16), same(4, 16)});
  cs.push_back({"random:5", quiver_table(5, random_simple_arrows(rng, 5, 0.4)), same(5, 24), same(5, 24)});
  cs.push_back({"complete:4/unequal", complete_table(4), {16, 32, 8, 64}, {24, 8, 40, 16}});
  cs.push_back({"complete:4/vec4", complete_table(4), {12, 20, 4, 28}, {12, 4, 20, 36}});
  cs.push_back({"complete:3/odd", complete_table(3), {3, 9, 5}, {7, 4, 10}});
  return cs;
}

class SmallConformance : public ::testing::TestWithParam<DType> {};

TEST_P(SmallConformance, EveryKernelMatchesTheTableReference) {
  uint64_t seed = 1;
  for (const TableCase& c : small_cases())
    for (bool integer : {true, false}) run_conformance(c, GetParam(), integer, 203, seed++);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, SmallConformance,
                         ::testing::Values(DType::bf16, DType::f16, DType::f32),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

// Small shapes under compute-sanitizer (memcheck, racecheck): few cases, every kernel.
TEST(SanitizerSmall, EveryKernelOnFewCases) {
  std::mt19937_64 rng(3);
  const std::vector<TableCase> cs = {
      {"complete:4/unequal", complete_table(4), {16, 32, 8, 64}, {24, 8, 40, 16}},
      {"Q2^2", q2_power(2), same(4, 16), same(4, 16)},
      {"complete:4/vec4", complete_table(4), {12, 20, 4, 28}, {12, 4, 20, 36}},
      {"complete:3/odd", complete_table(3), {3, 9, 5}, {7, 4, 10}}};
  for (const TableCase& c : cs)
    for (DType t : {DType::bf16, DType::f32}) run_conformance(c, t, false, 37, 99);
  // 600 rows: the diagonal dW blocks and x̄_i tiles are split-K chunks (FP32 slots, atomics), on
  // the mma.sync (24 wide), wgmma (72 wide; both engines) and CUDA-core (FP32) paths.
  for (TileEngine e : {TileEngine::wgmma, TileEngine::wgmma_many, TileEngine::wgmma_many_lean}) {
    set_backward_engines({e, e});
    run_conformance({"complete:4/split", complete_table(4), same(4, 24), same(4, 72)}, DType::bf16, false, 600, 98,
                    kGradX | kGradW);
  }
  set_backward_engines({});
  run_conformance({"complete:4/split", complete_table(4), same(4, 24), same(4, 72)}, DType::f32, false, 600, 97,
                  kGradX | kGradW);
}

// The type-group kernel (wst_gemm.cuh) under the sanitizers: mbarrier hand-offs between its
// producer warp and 2 or 4 consumer warpgroups, groups padded with empty items, skipped stages.
TEST(SanitizerSmall, TypeGroupTiles) {
  for (const TileConfig& t : compiled_forward_tiles()) {
    if (t.engine != TileEngine::wgmma_ws_types) continue;
    set_forward_tiles(t);
    run_conformance({"complete:4/unequal-" + tile_name(t), complete_table(4), {16, 32, 8, 64}, {24, 8, 40, 16}},
                    DType::bf16, false, 150, 5, kFwdFused);
    run_conformance({"Q2^2-" + tile_name(t), q2_power(2), same(4, 16), same(4, 16)}, DType::f16, true, 77, 6,
                    kFwdFused);
  }
  set_forward_tiles({64, 128, 5, TileEngine::wgmma_ws});  // the process default
}

// The narrow-group law tiles under the sanitizers (gpu_check.sh runs SanitizerSmall.* under
// memcheck, racecheck and initcheck): TMA boxes starting 4 columns early, the per-warp staging, k8
// last steps, a partial row block, units of one and two pieces.
// The one-kernel FFN under the sanitizers: a partial row block (c = 37) and two row blocks (c =
// 100), 2 and 3 stages, runs of 1, 3 and automatic (one unit is the diagonal's, j = i).
TEST(SanitizerSmall, NarrowFfnOneKernel) {
  set_narrow_ffn(1);
  uint64_t seed = 990;
  for (const auto& [stages, run] : std::vector<std::pair<int, uint32_t>>{{2, 0}, {3, 3}, {2, 1}}) {
    set_narrow_ffn_stages(stages);
    set_narrow_ffn_run(run);
    const std::string at = "-s" + std::to_string(stages) + "-run" + std::to_string(run);
    run_conformance({"complete:8/ffn-one-kernel-c37" + at, complete_table(8), same(8, 64), same(8, 24)}, DType::bf16, false,
                    8 * 37, seed++, kFfn);
    run_conformance({"complete:4/ffn-one-kernel-c100" + at, complete_table(4), same(4, 32), same(4, 16)}, DType::f16, false,
                    4 * 100, seed++, kFfn);
  }
  set_narrow_ffn_stages(2);
  set_narrow_ffn_run(0);
}
// The packed-terms kernels (wgs_gemm.cuh PACK, both on by default where s mod 64 = 32) under the
// sanitizers: 16-row slices of x and W packed across terms, slices half past a group (zero-filled
// by the copy engine), a rescaled basis (a packed step stops at the next coefficient), the gated
// FFN's gate/up with both W tiles as slices; a partial row block (c = 37) per type.
TEST(SanitizerSmall, PackedTerms) {
  uint64_t seed = 2600;
  const WsPackTerms before = ws_pack_terms();
  set_ws_pack_terms(WsPackTerms::always);
  set_forward_tiles({64, 128, 5, TileEngine::wgmma_ws_lean});
  const TableData c4 = complete_table(4);
  std::vector<Fraction> lambda(c4.dim);
  for (uint32_t b = 0; b < c4.dim; ++b) lambda[b] = {int64_t(1) << (b % 3), 1};
  for (uint32_t s : {80u, 24u})
    run_conformance({"sanitize-pack/complete:4-s" + std::to_string(s), c4, same(4, s), same(4, 136)}, DType::bf16, false,
                    4 * 37, seed++, kFwdFused);
  run_conformance({"sanitize-pack/complete:4-rescaled-s160", rescaled_table(c4, lambda), same(4, 160), same(4, 72)},
                  DType::f16, false, 4 * 37, seed++, kFwdFused);
  set_forward_tiles({64, 128, 5, TileEngine::wgmma_ws});  // the process default
  set_ffn_gate_engine(FfnGateEngine::ws64x64);
  set_ffn_pack_terms(true);
  for (uint32_t s : {96u, 80u})
    run_conformance({"sanitize-pack/ffn-complete:4-s" + std::to_string(s), c4, same(4, s), same(4, 64)}, DType::bf16,
                    false, 4 * 37, seed++, kFfn);
  set_ws_pack_terms(before);
}
// set_ws_tma_store_tall: the 128-row warp-specialised tiles (ws128x64, ws128x128) stage their
// finished tiles and store them by TMA, one 128-row box per 64 columns (twenty-ninth session), under
// the sanitizers: rows in closed form with 100 per type (each type's one tile partial, the box
// clipped at the type's end), equal output widths 48 (the Qwen3-30B expert's r: a 64-column box
// clipped at the group's end) and 128 (ws128x128's tile reaching the stage's W block), exactly on
// integers as well.
TEST(SanitizerSmall, TallTilesTmaStore) {
  ASSERT_TRUE(ws_tma_store());  // the default, which the tall tiles' switch only extends
  const bool before = ws_tma_store_tall();
  set_ws_tma_store_tall(true);
  uint64_t seed = 2700;
  for (const TileConfig& t : compiled_forward_tiles()) {
    if (t.engine != TileEngine::wgmma_ws || t.bm != 128) continue;
    set_forward_tiles(t);
    for (uint32_t r : {48u, 128u})
      for (bool integer : {false, true})
        run_conformance({"sanitize-tall/rows100-r" + std::to_string(r) + "-" + tile_name(t), complete_table(4),
                         same(4, 128), same(4, r)},
                        integer ? DType::f16 : DType::bf16, integer, 400, seed++, kFwdFused);
  }
  set_forward_tiles({64, 128, 5, TileEngine::wgmma_ws});  // the process default
  set_ws_tma_store_tall(before);
}
// set_ws_law_first (the 128-row warp-specialised tiles computing their first item and terms from the
// CTA index) under the sanitizers: WsLawFirst's cases (M = 2048, 16 types) take longer than
// racecheck's deadline (fifty-fifth and fifty-sixth sessions, cut while checking cuBLAS's reference),
// so the same code runs here on 4 types of c rows, c = 128 (one full row tile) and c = 100 (the tile
// clipped at the type's end), s = 128, r = 48 and 128, both item orders, bf16 and fp16, and for each
// tile, order and type the four (descending, prime) settings (the reversed closed form, kLawReversed,
// where c = 100; prime off where r = 48); every case must take the law-first path, which the launch
// counter shows. Random values only: the runner's integer mode draws uneven types, which have no
// closed form and so never take law first (the first H100 run of this test, fifty-sixth session,
// found its integer cases not taken).
TEST(SanitizerSmall, LawFirstTiles) {
  const bool law = ws_law_first(), prime = ws_prime_first(), descending = ws_items_descending();
  const WsItemOrder order0 = ws_item_order();
  set_ws_law_first(true);
  uint64_t seed = 5600;
  for (const TileConfig& t : {TileConfig{128, 64, 9, TileEngine::wgmma_ws}, TileConfig{128, 128, 9, TileEngine::wgmma_ws}}) {
    set_forward_tiles(t);
    for (WsItemOrder order : {WsItemOrder::columns, WsItemOrder::types})
      for (uint32_t c : {128u, 100u})
        for (uint32_t r : {48u, 128u})
          for (DType dtype : {DType::bf16, DType::f16}) {
            set_ws_item_order(order);
            set_ws_items_descending(c == 100);
            set_ws_prime_first(r != 48);
            const std::string name = "sanitize-law-first/" + tile_name(t) +
                                     (order == WsItemOrder::types ? "-types" : "-columns") + "-c" + std::to_string(c) +
                                     "-r" + std::to_string(r) + "-" + dtype_name(dtype) + (c == 100 ? "-desc" : "") +
                                     (r == 48 ? "-noprime" : "");
            const uint64_t before = ws_law_first_launches();
            run_conformance({name, complete_table(4), same(4, 128), same(4, r)}, dtype, false, 4 * c, seed++, kFwdFused);
            EXPECT_GT(ws_law_first_launches(), before) << name;
          }
  }
  set_ws_item_order(order0);
  set_ws_items_descending(descending);
  set_forward_tiles({64, 128, 5, TileEngine::wgmma_ws});  // the process defaults
  set_ws_prime_first(prime);
  set_ws_law_first(law);
}
// LawFirstTiles gives every CTA one item, so a CTA never goes on from its closed-form first item to
// an item read from the list. Here the complete graph on 16 types (c = 128 rows each, s = 128) has
// 16 × 12 items on ws128x64 (r = 48) and 16 × 16 on ws128x128 (r = 128), more than the SMs, each
// holding one CTA of these tiles (6 or 9 stages fill its shared memory; set_ws128_two_per_sm off), so
// CTAs take further items after the first: WsLawFirst's expert shapes in one order each, ascending
// and descending, small enough for racecheck (WsLawFirst.* did not finish under racecheck in 330 s
// with cuBLAS's reference, nor in 180 s with the plain one, fifty-sixth and fifty-seventh sessions).
TEST(SanitizerSmall, LawFirstManyItems) {
  const bool law = ws_law_first(), descending = ws_items_descending();
  const WsItemOrder order0 = ws_item_order();
  ASSERT_FALSE(ws128_two_per_sm());
  int sms = 0;
  cuda_ok(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "multiprocessor count");
  set_ws_law_first(true);
  uint64_t seed = 5700;
  for (const auto& [t, r] : {std::pair{TileConfig{128, 64, 9, TileEngine::wgmma_ws}, 48u},
                             std::pair{TileConfig{128, 128, 9, TileEngine::wgmma_ws}, 128u}}) {
    ASSERT_GT(16 * ((16 * r + t.bn - 1) / t.bn), uint32_t(sms)) << tile_name(t);
    set_forward_tiles(t);
    for (const auto& [order, desc] : {std::pair{WsItemOrder::types, false}, std::pair{WsItemOrder::columns, true}}) {
      set_ws_item_order(order);
      set_ws_items_descending(desc);
      const std::string name = "sanitize-law-first-many/" + tile_name(t) +
                               (order == WsItemOrder::types ? "-types" : "-columns-desc") + "-r" + std::to_string(r);
      const uint64_t before = ws_law_first_launches();
      run_conformance({name, complete_table(16), same(16, 128), same(16, r)}, DType::bf16, false, 16 * 128, seed++,
                      kFwdFused);
      EXPECT_GT(ws_law_first_launches(), before) << name;
    }
  }
  set_ws_item_order(order0);
  set_ws_items_descending(descending);
  set_forward_tiles({64, 128, 5, TileEngine::wgmma_ws});  // the process defaults
  set_ws_law_first(law);
}
// The bench's L2 read-bandwidth probe reads what it claims: the sum it returns is `passes` times
// the wrapping sum of the buffer's 64-bit words, computed here on the host, for a chunk count that
// no grid stride divides (65539 chunks of 16 bytes) and for one pass.
TEST(BenchProbes, L2ReadSumsEveryChunkPassesTimes) {
  std::mt19937_64 rng(77);
  for (const auto& [chunks, passes] : std::vector<std::pair<uint64_t, int>>{{65539, 3}, {4096, 1}}) {
    std::vector<uint64_t> words(2 * chunks);
    unsigned long long expect = 0;
    for (uint64_t& w : words) w = rng(), expect += w;
    expect *= unsigned(passes);
    void* src = nullptr;
    unsigned long long* sum = nullptr;
    cuda_ok(cudaMalloc(&src, words.size() * 8), "cudaMalloc");
    cuda_ok(cudaMalloc(&sum, 8), "cudaMalloc");
    cuda_ok(cudaMemcpy(src, words.data(), words.size() * 8, cudaMemcpyHostToDevice), "upload");
    cuda_ok(cudaMemset(sum, 0, 8), "cudaMemset");
    device_l2_read(src, chunks * 16, passes, sum, nullptr);
    unsigned long long got = 0;
    cuda_ok(cudaMemcpy(&got, sum, 8, cudaMemcpyDeviceToHost), "download");
    EXPECT_EQ(got, expect) << chunks << " chunks, " << passes << " passes";
    cudaFree(src), cudaFree(sum);
  }
  // Bad input is refused before any launch, naming what is wrong.
  void* p = nullptr;
  unsigned long long* s = nullptr;
  cuda_ok(cudaMalloc(&p, 64), "cudaMalloc");
  cuda_ok(cudaMalloc(&s, 8), "cudaMalloc");
  EXPECT_EQ(error_of([&] { device_l2_read(p, 40, 1, s, nullptr); }),
            "device_l2_read: bytes must be a positive multiple of 16, got 40");
  EXPECT_EQ(error_of([&] { device_l2_read(p, 0, 1, s, nullptr); }),
            "device_l2_read: bytes must be a positive multiple of 16, got 0");
  EXPECT_EQ(error_of([&] { device_l2_read(p, 64, 0, s, nullptr); }), "device_l2_read: passes must be at least 1, got 0");
  EXPECT_EQ(error_of([&] { device_l2_read(nullptr, 64, 1, s, nullptr); }),
            "device_l2_read: src and sum must be device pointers, got null");
  cudaFree(p), cudaFree(s);
}
// The bench's hold (the held warm protocol, bench/gpu/gpu_timing.hpp) keeps its stream for its time
// and not much longer: CUDA events around it measure at least the hold less 1 µs (%globaltimer may
// tick in microseconds) and at most twice it plus 100 µs, from 5 µs to 2 ms. Bad input is refused
// before any launch.
TEST(BenchProbes, HoldKeepsTheStreamForItsTime) {
  cudaStream_t s = nullptr;
  cudaEvent_t a = nullptr, b = nullptr;
  cuda_ok(cudaStreamCreate(&s), "stream");
  cuda_ok(cudaEventCreate(&a), "event");
  cuda_ok(cudaEventCreate(&b), "event");
  device_hold(1000, s);  // the first launch loads the module: not timed
  cuda_ok(cudaStreamSynchronize(s), "sync");
  for (uint64_t us : {5ull, 50ull, 500ull, 2000ull}) {
    cuda_ok(cudaEventRecord(a, s), "record");
    device_hold(us * 1000, s);
    cuda_ok(cudaEventRecord(b, s), "record");
    cuda_ok(cudaEventSynchronize(b), "sync");
    float ms = 0;
    cuda_ok(cudaEventElapsedTime(&ms, a, b), "elapsed");
    EXPECT_GE(ms * 1e3, double(us) - 1.0) << us << " us hold";
    EXPECT_LE(ms * 1e3, 2.0 * double(us) + 100.0) << us << " us hold";
  }
  EXPECT_EQ(error_of([&] { device_hold(0, s); }), "device_hold: ns must be in [1, 1e9], got 0");
  EXPECT_EQ(error_of([&] { device_hold(1000000001ull, s); }), "device_hold: ns must be in [1, 1e9], got 1000000001");
  cudaEventDestroy(a), cudaEventDestroy(b), cudaStreamDestroy(s);
}
// The bench's tile copy (suite `segments`) copies exactly the first (pitch / seg) · seg bytes of
// every row, at the same places, and nothing else: dst starts as a byte pattern that src never has
// (src from a generator, its 0xA5 bytes replaced), so a missed byte or a stray write shows; 192
// rows (3 row blocks), pitches that seg divides and that it does not, runs that split a row's tiles
// unevenly.
TEST(BenchProbes, TileCopyCopiesTheTilesAndNothingElse) {
  std::mt19937_64 rng(78);
  struct Case {
    uint32_t seg, runs;
    uint64_t pitch;
    uint32_t ahead;
    bool strided = false;  // the narrow kernel's strided unit order (every tile still copied once)
  };
  for (const Case& c : {Case{208, 3, 51200 / 16, 1}, Case{208, 2, 51200 / 16, 4}, Case{208, 3, 3328, 2},
                        Case{1024, 2, 4096, 1}, Case{400, 5, 8016, 2}, Case{400, 1, 8016, 1}, Case{16, 1, 48, 4},
                        Case{208, 3, 51200 / 16, 1, true}, Case{400, 5, 8016, 2, true}, Case{16, 2, 48, 4, true},
                        Case{208, 16, 51200 / 16, 1, true}}) {
    const uint32_t rows = 192;
    std::vector<unsigned char> src(rows * c.pitch), before(rows * c.pitch, 0xA5), got(rows * c.pitch);
    for (auto& b : src) b = static_cast<unsigned char>(rng()), b = b == 0xA5 ? 0x5A : b;
    void *s = nullptr, *d = nullptr;
    cuda_ok(cudaMalloc(&s, src.size()), "cudaMalloc");
    cuda_ok(cudaMalloc(&d, src.size()), "cudaMalloc");
    cuda_ok(cudaMemcpy(s, src.data(), src.size(), cudaMemcpyHostToDevice), "upload");
    cuda_ok(cudaMemcpy(d, before.data(), src.size(), cudaMemcpyHostToDevice), "upload");
    device_tile_copy(s, d, rows, c.seg, c.pitch, c.runs, c.ahead, nullptr, c.strided);
    cuda_ok(cudaMemcpy(got.data(), d, src.size(), cudaMemcpyDeviceToHost), "download");
    const uint64_t copied = c.pitch / c.seg * c.seg;
    size_t wrong = 0;
    for (uint64_t r = 0; r < rows; ++r)
      for (uint64_t b = 0; b < c.pitch; ++b) wrong += got[r * c.pitch + b] != (b < copied ? src[r * c.pitch + b] : 0xA5);
    EXPECT_EQ(wrong, 0u) << "seg " << c.seg << ", pitch " << c.pitch << ", runs " << c.runs << ", ahead " << c.ahead
                         << (c.strided ? ", strided" : "");
    cudaFree(s), cudaFree(d);
  }
  void* p = nullptr;
  cuda_ok(cudaMalloc(&p, 4096), "cudaMalloc");
  EXPECT_EQ(error_of([&] { device_tile_copy(p, p, 100, 16, 64, 1, 1, nullptr); }),
            "device_tile_copy: rows must be a positive multiple of 64, got 100");
  EXPECT_EQ(error_of([&] { device_tile_copy(p, p, 64, 24, 64, 1, 1, nullptr); }),
            "device_tile_copy: seg_bytes must be a multiple of 16 in [16, 1024], got 24");
  EXPECT_EQ(error_of([&] { device_tile_copy(p, p, 64, 2048, 4096, 1, 1, nullptr); }),
            "device_tile_copy: seg_bytes must be a multiple of 16 in [16, 1024], got 2048");
  EXPECT_EQ(error_of([&] { device_tile_copy(p, p, 64, 64, 48, 1, 1, nullptr); }),
            "device_tile_copy: pitch_bytes must be a multiple of 16 and at least seg_bytes (64), got 48");
  EXPECT_EQ(error_of([&] { device_tile_copy(p, p, 64, 16, 64, 0, 1, nullptr); }), "device_tile_copy: runs must be positive, got 0");
  EXPECT_EQ(error_of([&] { device_tile_copy(nullptr, p, 64, 16, 64, 1, 1, nullptr); }),
            "device_tile_copy: src and dst must be device pointers, got null");
  EXPECT_EQ(error_of([&] { device_tile_copy(p, p, 64, 832, 4096, 1, 2, nullptr); }),
            "device_tile_copy: 2 tiles ahead of 832-byte rows are not compiled (208-byte rows and narrower: 1, 2 or 4; "
            "up to 400: 1 or 2; up to 1024: 1)");
  cudaFree(p);
}
TEST(SanitizerSmall, NarrowLawTiles) {
  struct Variant {
    uint32_t bn;
    bool tail;
    int deep;
    // nl64x64's TMA stores: mode 2 (the first shape: a box per pair, r = 100, run 8; the second a box
    // per piece, r = 200) and mode 3 at runs of 2 (the pairs; a box per group of 104 + 96 columns)
    int tma;
    bool strided = false;  // the strided unit order (runs of 2: pairs, and a group's two pieces, as boxes)
  };
  const Variant variants[] = {{128, true, -1, 0}, {128, true, 1, 0},  {64, true, -1, 0}, {64, true, 0, 0},
                              {64, false, -1, 0}, {64, true, -1, 2}, {64, true, -1, 3}, {64, true, -1, 3, true}};
  for (const auto [bn, tail, deep, tma, strided] : variants) {
    set_narrow_unit_order(strided);
    set_narrow_tma_store(tma);
    set_narrow_run(tma == 3 ? 2 : 0);
    set_narrow_prefetch(tma == 3 ? 3 : 0);  // L2 prefetches past a run's end are skipped
    set_narrow_streaming_stores(deep == 0);  // the evict-first stores with one of the variants
    set_narrow_zero_accumulator(deep != -1);  // the zero-accumulator first step with two
    const TileConfig t{64, bn, 4, TileEngine::narrow_law};
    set_forward_tiles(t);
    set_narrow_tail(tail);
    set_narrow_deep(deep);
    const std::string name = tile_name(t) + (tail ? "" : "-no-tail") + (deep == -1 ? "" : "-deep" + std::to_string(deep)) +
                             (tma ? "-tma-store" + std::to_string(tma) : "") + (strided ? "-strided" : "");
    run_conformance({"complete:8/narrow-law-" + name, complete_table(8), same(8, 20), same(8, 100)}, DType::bf16,
                    false, 8 * 70, 11, kFwdFused);
    run_conformance({"complete:4/narrow-law-" + name, complete_table(4), same(4, 40), same(4, 200)}, DType::f16,
                    false, 4 * 64, 12, kFwdFused);
  }
  set_narrow_tail(true);
  set_narrow_deep(-1);
  set_narrow_streaming_stores(false);
  set_narrow_zero_accumulator(false);
  set_narrow_tma_store(1);  // the default
  set_narrow_run(0);
  set_narrow_prefetch(0);
  set_narrow_unit_order(false);
  set_forward_tiles({64, 128, 5, TileEngine::wgmma_ws});  // the process default
}

// Every compiled endpoint-fused tile shape (the calibration's candidates) on unequal widths.
TEST(TileConfigs, EveryForwardTileMatchesTheReference) {
  const std::vector<TileConfig> tiles = compiled_forward_tiles();
  ASSERT_GE(tiles.size(), 24u);
  uint64_t seed = 40;
  for (const TileConfig& t : tiles) {
    set_forward_tiles(t);
    for (bool integer : {true, false}) {
      run_conformance({"complete:4/tiles-" + tile_name(t),
                       complete_table(4), {64, 128, 40, 200}, {200, 384, 72, 136}},
                      DType::bf16, integer, 301, seed++, kFwdFused);
      // Input widths <= 128: the resident-diagonal kernel keeps W_jj (partial 40- and 96-row
      // steps included); Q_2^{⊗2} has 4 terms per tile, 2 of them not diagonal.
      run_conformance({"complete:4/narrow-" + tile_name(t), complete_table(4), {64, 128, 40, 96},
                       {200, 384, 72, 136}},
                      DType::f16, integer, 517, seed++, kFwdFused);
      run_conformance({"Q2^2/" + tile_name(t), q2_power(2), {64, 24, 128, 56}, {64, 136, 72, 192}},
                      DType::bf16, integer, 333, seed++, kFwdFused);
      // Output groups all <= 32 wide: the mma.sync tiles clamp to 64x32, the wg_gemm tiles keep
      // their width with zero-filled columns (the Qwen3-30B expert's r = 24 at q = 32).
      run_conformance({"complete:4/narrow-out-" + tile_name(t), complete_table(4), {64, 40, 128, 24},
                       {24, 16, 32, 8}},
                      DType::bf16, integer, 150, seed++, kFwdFused);
      // Widths multiples of 4, not 8: the 8-byte-copy mma.sync tiles (64x128, 128x64, 128x128w8,
      // chosen by the tile's shape).
      run_conformance({"complete:4/vec4-" + tile_name(t), complete_table(4), {12, 20, 4, 28}, {12, 4, 20, 100}},
                      DType::bf16, integer, 290, seed++, kFwdFused);
    }
  }
  set_forward_tiles({64, 128, 5, TileEngine::wgmma_ws});  // the process default
}

// Split-K in the backward (work_list.hpp split_long_items): at M = 2048 the diagonal blocks of dW
// and the x̄_i tiles of dX are split into chunks that add into FP32 slots, on every path (mma.sync
// for widths <= 32, wgmma 64x64 / 64x128 in both engines, the CUDA-core kernel for FP32), with
// the Qwen3-30B expert's shape among them (widths 64 → 24 and 24 → 64 at q = 32).
TEST(SplitK, BackwardOnEveryPathAndEngine) {
  uint64_t seed = 70;
  for (TileEngine e : {TileEngine::wgmma, TileEngine::wgmma_many, TileEngine::wgmma_many_lean}) {
    set_backward_engines({e, e});
    const std::string en = e == TileEngine::wgmma ? "wg" : e == TileEngine::wgmma_many ? "wm" : "wl";
    for (bool integer : {true, false}) {
      run_conformance({"complete:8/narrow-" + en, complete_table(8), same(8, 24), same(8, 24)}, DType::bf16, integer,
                      2048, seed++, kGradX | kGradW);
      run_conformance({"complete:8/wide-" + en, complete_table(8), same(8, 64), same(8, 128)}, DType::f16, integer,
                      2048, seed++, kGradX | kGradW);
      run_conformance({"Q2^2/split-" + en, q2_power(2), same(4, 48), same(4, 136)}, DType::bf16, integer, 1500,
                      seed++, kGradX | kGradW);
    }
    run_conformance({"complete:32/30B-up-" + en, complete_table(32), same(32, 64), same(32, 24)}, DType::bf16, false,
                    2048, seed++, kGradX | kGradW);
    run_conformance({"complete:32/30B-down-" + en, complete_table(32), same(32, 24), same(32, 64)}, DType::bf16,
                    false, 2048, seed++, kGradX | kGradW);
  }
  set_backward_engines({});
  run_conformance({"complete:8/f32-split", complete_table(8), same(8, 24), same(8, 40)}, DType::f32, true, 2048, seed++,
                  kGradX | kGradW);
}

// cublas_batched (gpu/cuda/batched_law.hpp): dX and dW of the complete-graph law as strided-batched
// cuBLAS GEMMs where the widths are equal and the rows cyclic with q | M (random mode), against the
// reference; where they are not (unequal widths, explicit random types, Q_2 ⊗ Q_2, M not a
// multiple of q, FP32) the engine falls back to the wgmma_many kernels, also checked.
TEST(BatchedLaw, CublasBackwardMatchesTheReference) {
  {
    DevicePlan c32(lower_table(complete_table(32), same(32, 64), same(32, 24)));
    DeviceBatch cyc(c32, cyclic_types(2048, 32)), odd(c32, cyclic_types(2047, 32));
    DeviceBatch iv(c32, interval_types(2048, 32, 64));
    EXPECT_TRUE(batched_backward_applies(cyc));
    EXPECT_TRUE(batched_backward_applies(iv));
    EXPECT_FALSE(batched_backward_applies(odd));
    DevicePlan q22(lower_table(q2_power(2), same(4, 16), same(4, 16)));
    DeviceBatch b22(q22, cyclic_types(64, 4));
    EXPECT_FALSE(batched_backward_applies(b22));
  }
  set_backward_engines({TileEngine::cublas_batched, TileEngine::cublas_batched});
  uint64_t seed = 900;
  for (bool integer : {true, false}) {
    run_conformance({"complete:32/30B-up-cb", complete_table(32), same(32, 64), same(32, 24)}, DType::bf16, integer,
                    2048, seed++, kGradX | kGradW);
    run_conformance({"complete:32/30B-down-cb", complete_table(32), same(32, 24), same(32, 64)}, DType::f16, integer,
                    2048, seed++, kGradX | kGradW);
    run_conformance({"complete:8/odd-cb", complete_table(8), same(8, 20), same(8, 12)}, DType::bf16, integer, 96,
                    seed++, kGradX | kGradW);
    run_conformance({"complete:4/unequal-cb", complete_table(4), {16, 32, 8, 64}, {24, 8, 40, 16}}, DType::bf16,
                    integer, 400, seed++, kGradX | kGradW);
    run_conformance({"Q2^2/cb", q2_power(2), same(4, 48), same(4, 136)}, DType::bf16, integer, 512, seed++,
                    kGradX | kGradW);
    run_conformance({"complete:8/rows-not-multiple-cb", complete_table(8), same(8, 64), same(8, 64)}, DType::bf16,
                    integer, 2047, seed++, kGradX | kGradW);
  }
  run_conformance({"complete:8/f32-cb", complete_table(8), same(8, 24), same(8, 40)}, DType::f32, false, 512, seed++,
                  kGradX | kGradW);
  set_backward_engines({});
}

// The wg_gemm.cuh tiles (wg, wm, wmr, wl) on the complete-graph law with rows in closed form take
// their forward items from the index (work_list.hpp LawGrid; set_law_grid, on by default): cyclic
// types with q | M (random mode; M = 8 · 37 leaves a partial 64-row tile per type) and the square's
// interval types, against the reference; and the same tiles with the switch off read the list.
TEST(LawGrid, WgTilesMatchTheReference) {
  ASSERT_TRUE(law_grid_enabled());
  uint64_t seed = 950;
  for (bool on : {true, false}) {
    set_law_grid(on);
    for (const TileConfig& t : compiled_forward_tiles()) {
      if (t.engine != TileEngine::wgmma && t.engine != TileEngine::wgmma_many &&
          t.engine != TileEngine::wgmma_many_rows && t.engine != TileEngine::wgmma_many_lean)
        continue;
      set_forward_tiles(t);
      const std::string name = tile_name(t) + (on ? "-law" : "-list");
      run_conformance({"complete:8/" + name, complete_table(8), same(8, 40), same(8, 192)}, DType::bf16, false, 8 * 37,
                      seed++, kFwdFused);
      run_conformance({"complete:8/wide-" + name, complete_table(8), same(8, 128), same(8, 72)}, DType::f16, false,
                      8 * 80, seed++, kFwdFused);
      run_conformance({"complete:4/square-" + name, complete_table(4), same(4, 64), same(4, 64)}, DType::bf16, false,
                      256, seed++, kSquare);
      if (!on) break;  // the list path: one tile is enough here (every other test runs it)
    }
  }
  set_law_grid(true);
  set_forward_tiles({64, 128, 5, TileEngine::wgmma_ws});  // the process default
}

// Table files written by `qalg table` (FLINT path), if $QALG_GPU_TABLES names their folder.
TEST(TableFiles, ForwardAndBackwardOnQalgTables) {
  const char* dir = std::getenv("QALG_GPU_TABLES");
  if (!dir) GTEST_SKIP() << "QALG_GPU_TABLES not set";
  int n = 0;
  for (const auto& f : std::filesystem::directory_iterator(dir)) {
    if (f.path().extension() != ".json") continue;
    TableData t = read_table_data(f.path().string());
    if (!t.slot_grid || *t.slot_grid > 64) continue;
    const uint32_t q = *t.slot_grid;
    run_conformance({"file:" + f.path().filename().string(), t, same(q, 16), same(q, 8)}, DType::bf16,
                    true, 301, 7, kFwdFused | kFwdDiag | kGradX | kGradW);
    ++n;
  }
  EXPECT_GT(n, 0) << "no table files in " << dir;
}

// Paper-sized shapes (SPEC §6), BF16: Qwen3-8B projection at q = 32, a Q_2^{⊗3} projection,
// the square product n = 4096 (b = 128), the Qwen3-1.7B gated FFN at q = 32.
TEST(PaperConformance, Qwen3_8B_q32) {
  run_conformance({"complete:32/8B", complete_table(32), same(32, 128), same(32, 384)}, DType::bf16,
                  false, 2048, 11, kFwdFused | kFwdDiag | kDecode | kGradX | kGradW);
  run_conformance({"complete:32/8B", complete_table(32), same(32, 128), same(32, 384)}, DType::bf16,
                  true, 2048, 12, kFwdFused | kFwdDiag | kGradX | kGradW);
}
// Decodes whose 32-column grid is one wave and whose reduction is deeper than 256 rows take the
// deep batches (launch_ffn.cu): Qwen3-8B's down projection (768 rows, 12 per lane) and the
// DeepSeek-V3 expert's gate/up (448 rows, 8 per lane), the latter through gated_ffn_decode.
TEST(PaperConformance, DeepDecodes) {
  run_conformance({"complete:32/8B-down", complete_table(32), same(32, 384), same(32, 128)}, DType::bf16, false,
                  64, 16, kDecode);
  run_conformance({"complete:32/8B-down", complete_table(32), same(32, 384), same(32, 128)}, DType::bf16, true,
                  64, 17, kDecode);
  run_conformance({"complete:32/8B-down", complete_table(32), same(32, 384), same(32, 128)}, DType::f32, false,
                  64, 18, kDecode);
  run_conformance({"complete:32/DS-V3-ffn", complete_table(32), same(32, 224), same(32, 64)}, DType::bf16, false,
                  64, 19, kFfn);
}
TEST(PaperConformance, Q2Cubed) {
  run_conformance({"Q2^3/1.7B", q2_power(3), same(8, 256), same(8, 768)}, DType::bf16, false, 2048,
                  13, kFwdFused | kFwdDiag | kGradX | kGradW);
}
TEST(PaperConformance, SquareProductN4096) {
  run_conformance({"complete:32/square", complete_table(32), same(32, 128), same(32, 128)},
                  DType::bf16, false, 64, 14, kSquare);
}
TEST(PaperConformance, GatedFfnQwen3_1_7B_q32) {
  run_conformance({"complete:32/1.7B-ffn", complete_table(32), same(32, 64), same(32, 192)},
                  DType::bf16, false, 2048, 15, kFfn);
}

}  // namespace
}  // namespace qalg::gpu::test

namespace qalg::gpu::test {
namespace {
// set_row_formula (experimental): the wgmma kernels compute row indices from the batch's closed
// form. Random mode uses cyclic types with q | M (the form exists), integer mode random types (it
// does not: the list is read); the square products use interval types, checked exactly with
// integer inputs. Forward on four tiles of the wg_gemm kernel, dX and dW on all three engines.
// The warp-specialised tiles load the x rows of full 64-deep steps by TMA through a 3-D map of X
// when the batch's rows have a closed form (cyclic types with q | M in random mode, interval types
// in the square product; integer mode's random types keep the cp.async gather): input widths 40 and
// 200 end in partial steps, which stay on cp.async.
// f(tile, integer) for every compiled warp-specialised tile (ws, wr, wsl, wsp, wsg, wsm) set as the
// forward tile, integer and random inputs; the process default afterwards.
template <class F>
void each_warp_specialised_tile(F&& f) {
  for (const TileConfig& t : compiled_forward_tiles()) {
    if (t.engine != TileEngine::wgmma_ws && t.engine != TileEngine::wgmma_ws_resident &&
        t.engine != TileEngine::wgmma_ws_lean && t.engine != TileEngine::wgmma_ws_pair &&
        t.engine != TileEngine::wgmma_ws_group_pairs && t.engine != TileEngine::wgmma_ws_row_pairs)
      continue;
    set_forward_tiles(t);
    for (bool integer : {true, false}) f(t, integer);
  }
  set_forward_tiles({64, 128, 5, TileEngine::wgmma_ws});
}

TEST(TypedRowsTma, WarpSpecialisedTilesMatchTheReference) {
  uint64_t seed = 600;
  each_warp_specialised_tile([&](const TileConfig& t, bool integer) {
    run_conformance({"complete:4/typed-rows-" + tile_name(t), complete_table(4), {64, 128, 40, 200},
                     {200, 384, 72, 136}},
                    integer ? DType::bf16 : DType::f16, integer, 512, seed++, kFwdFused);
    run_conformance({"complete:4/typed-rows-square-" + tile_name(t), complete_table(4), same(4, 128), same(4, 128)},
                    DType::bf16, integer, 512, seed++, kSquare);
  });
}

// The paired tiles (wsp: clusters of two CTAs that share every W step by TMA multicast) run as
// pairs exactly where the forward list pairs, and match the reference there (rows per type 128,
// 100 = 64 + 36, the DeepSeek-V3 expert's widths; 64- and 128-column tiles, partial column tiles)
// and where they run the lean tile instead (three chunks per type, partial reduction steps).
// Random inputs on cyclic types (a W half from the wrong rows or columns is far outside the
// tolerance), and the square product exactly on integers.
// A forward shape on cyclic types, and whether a special tile (wsp, wsg) runs as itself there.
struct TileShape {
  std::string name;
  TableData table;
  std::vector<uint32_t> s, r;
  uint64_t M;
  bool applies;
};
// complete:4 in the basis b'_i = 2^(i mod 3) b_i: the two terms of an item differ in coefficient.
TableData rescaled_complete4() {
  const TableData c4 = complete_table(4);
  std::vector<Fraction> lambda(c4.dim);
  for (uint32_t b = 0; b < c4.dim; ++b) lambda[b] = {int64_t(1) << (b % 3), 1};
  return rescaled_table(c4, lambda);
}

TEST(PairedTiles, PairWhereTheListPairsAndMatchTheReference) {
  const std::vector<TileShape> shapes = {
      {"rows128", complete_table(4), same(4, 128), same(4, 128), 512, true},
      {"rows100", complete_table(4), same(4, 128), {200, 384, 72, 136}, 400, true},
      {"rows192", complete_table(4), same(4, 128), same(4, 128), 768, false},
      {"partial-steps", complete_table(4), {64, 128, 40, 200}, same(4, 128), 512, false},
      {"ds-v3", complete_table(16), same(16, 448), same(16, 128), 2048, true},
  };
  uint64_t seed = 1100;
  for (const TileConfig& t : {TileConfig{64, 64, 5, TileEngine::wgmma_ws_pair}, TileConfig{64, 128, 5, TileEngine::wgmma_ws_pair}}) {
    for (const TileShape& sh : shapes) {
      DevicePlan plan(lower_table(sh.table, sh.s, sh.r));
      DeviceBatch batch(plan, cyclic_types(sh.M, uint32_t(sh.s.size())));
      EXPECT_EQ(paired_tiles_apply(batch, t), sh.applies) << sh.name << " " << tile_name(t);
      EXPECT_FALSE(paired_tiles_apply(batch, TileConfig{t.bm, t.bn, 5, TileEngine::wgmma_ws_lean}));
      set_forward_tiles(t);
      run_conformance({"pairs/" + sh.name + "-" + tile_name(t), sh.table, sh.s, sh.r}, DType::bf16, false, sh.M,
                      seed++, kFwdFused);
    }
    run_conformance({"pairs/square-" + tile_name(t), complete_table(4), same(4, 128), same(4, 128)}, DType::bf16, true,
                    64, seed++, kSquare);
    int sms = 0;
    cuda_ok(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "multiprocessor count");
    const uint32_t ctas = paired_tile_ctas(t);  // whole clusters, at least one CTA per SM
    EXPECT_EQ(ctas % 2, 0u);
    EXPECT_GE(ctas, uint32_t(sms));
  }
  set_forward_tiles({64, 128, 5, TileEngine::wgmma_ws});
  // Not a paired tile: refused by name.
  EXPECT_NE(error_of([] { paired_tile_ctas({64, 128, 5, TileEngine::wgmma_ws_lean}); }).find("wsl64x128 is not a compiled paired tile"),
            std::string::npos);
  EXPECT_NE(error_of([] { set_forward_tiles({64, 192, 5, TileEngine::wgmma_ws_pair}); }).find("wsp64x192 is not compiled"),
            std::string::npos);
}

// The group-pair tiles (wsg128x128: two output groups of at most 64 columns per item, the row term
// read once for both) run as themselves exactly where group_pair_tiles_apply says, and match the
// reference there and where they run ws128x64 instead. At random on cyclic types (rows in closed
// form): the Qwen3-30B expert's widths at q = 4 (s = 128, r = 48); five groups (each type ends with
// a one-group item); 100 rows per type (every tile partial, its box clipped at the type's end); 192
// (a whole tile and a partial one per type); a rescaled basis (the two items' row terms differ in
// coefficient, so nothing is shared and every step reaches one box); Q_2^{⊗2} (tiles with one term,
// and with none: both groups' zeros stored by TMA). Not applying: r = 128, s = 40 (partial steps),
// r = 24 (the mma.sync tile), unequal output widths. And exactly on integers, the square product
// with 64-wide blocks (interval types) at q = 4 and 5.
TEST(GroupPairTiles, PairWhereTheyApplyAndMatchTheReference) {
  const TileConfig t{128, 128, 9, TileEngine::wgmma_ws_group_pairs};
  ASSERT_EQ(tile_name(t), "wsg128x128");
  const TableData c4 = complete_table(4);
  const std::vector<TileShape> shapes = {
      {"30b-q4", c4, same(4, 128), same(4, 48), 512, true},
      {"groups5", complete_table(5), same(5, 64), same(5, 64), 640, true},
      {"rows100-r40", c4, same(4, 128), same(4, 40), 400, true},
      {"rows192-r56", c4, same(4, 64), same(4, 56), 768, true},
      {"rescaled", rescaled_complete4(), same(4, 128), same(4, 48), 512, true},
      {"Q2^2", q2_power(2), same(4, 64), same(4, 48), 512, true},
      {"r128", c4, same(4, 128), same(4, 128), 512, false},
      {"s40", c4, same(4, 40), same(4, 48), 512, false},
      {"r24", c4, same(4, 128), same(4, 24), 512, false},
      {"unequal-r", c4, same(4, 128), {48, 64, 48, 40}, 512, false},
  };
  uint64_t seed = 3100;
  set_forward_tiles(t);
  for (const TileShape& sh : shapes) {
    DevicePlan plan(lower_table(sh.table, sh.s, sh.r));
    DeviceBatch batch(plan, cyclic_types(sh.M, uint32_t(sh.s.size())));
    EXPECT_EQ(group_pair_tiles_apply(batch, t), sh.applies) << sh.name;
    for (DType dt : {DType::bf16, DType::f16})
      run_conformance({"group-pairs/" + sh.name, sh.table, sh.s, sh.r}, dt, false, sh.M, seed++, kFwdFused);
  }
  for (uint32_t q : {4u, 5u})
    run_conformance({"group-pairs/square-q" + std::to_string(q), complete_table(q), same(q, 64), same(q, 64)},
                    DType::bf16, true, 64, seed++, kSquare);
  set_forward_tiles({64, 128, 5, TileEngine::wgmma_ws});  // the process default
  EXPECT_NE(error_of([] { set_forward_tiles({128, 64, 9, TileEngine::wgmma_ws_group_pairs}); }).find("wsg128x64 is not compiled"),
            std::string::npos);
  // Without the 128-row tiles' TMA stores (the only epilogue that writes two groups) the tile is ws128x64.
  const bool tall = ws_tma_store_tall();
  set_ws_tma_store_tall(false);
  {
    DevicePlan plan(lower_table(c4, same(4, 128), same(4, 48)));
    DeviceBatch batch(plan, cyclic_types(512, 4));
    EXPECT_FALSE(group_pair_tiles_apply(batch, t));
    set_forward_tiles(t);
    run_conformance({"group-pairs/no-tall-stores", c4, same(4, 128), same(4, 48)}, DType::bf16, false, 512, seed++,
                    kFwdFused);
    set_forward_tiles({64, 128, 5, TileEngine::wgmma_ws});
  }
  set_ws_tma_store_tall(tall);
}

// The group-pair tiles under the sanitizers: 100 rows per type (boxes clipped at the type's end),
// five groups (a one-group item per type), Q_2^{⊗2} (items without terms: zero tiles by TMA), the
// rescaled basis (steps reaching one box, the accumulators rescaled between terms).
TEST(SanitizerSmall, GroupPairTiles) {
  const TileConfig t{128, 128, 9, TileEngine::wgmma_ws_group_pairs};
  set_forward_tiles(t);
  const std::vector<TileShape> shapes = {
      {"rows100-r48", complete_table(4), same(4, 128), same(4, 48), 400, true},
      {"groups5", complete_table(5), same(5, 64), same(5, 64), 5 * 37, true},
      {"Q2^2", q2_power(2), same(4, 64), same(4, 48), 4 * 37, true},
      {"rescaled", rescaled_complete4(), same(4, 64), same(4, 40), 4 * 37, true},
  };
  uint64_t seed = 3200;
  for (const TileShape& sh : shapes) {
    DevicePlan plan(lower_table(sh.table, sh.s, sh.r));
    DeviceBatch batch(plan, cyclic_types(sh.M, uint32_t(sh.s.size())));
    EXPECT_TRUE(group_pair_tiles_apply(batch, t)) << sh.name;  // (else this sanitises ws128x64)
    run_conformance({"sanitize-wsg/" + sh.name, sh.table, sh.s, sh.r}, seed % 2 ? DType::f16 : DType::bf16, false, sh.M,
                    seed, kFwdFused);
    ++seed;
  }
  set_forward_tiles({64, 128, 5, TileEngine::wgmma_ws});  // the process default
}

// The row-pair tiles (wsm128x128: two row ranges of at most 64 rows per item, one consumer
// warpgroup each, a term both have, x_j W_jj for two types, read once for both) run as themselves
// exactly where row_pair_tiles_apply says, and match the reference there and where they run
// ws64x128 instead. At random on cyclic types (rows in closed form): 64 rows per type, as Qwen3-8B
// at q = 32 (two types per item, r = 192: a whole column tile and one clipped at the group); five
// types (each column range ends with a one-half item); 100 rows per type (64 + a 36-row tail: both
// halves of one type, the tail's box clipped at the type's end); 150 (a 22-row tail as the first
// half, the next type's first 64 rows as the second); 192 (three chunks per type); a
// rescaled basis (the two types' diagonal terms differ in coefficient, so nothing is shared and
// every step reaches one half); Q_2^{⊗2} (items with one term and with none: zeros stored by TMA);
// grouped input widths (the grouped maps, zero-filled past a group; trimmed last steps of 32, 16
// and 40 rows as 16-row slices, a 56-row one as a whole box): Qwen3-32B's s = 160 and 4B's
// s = 80 with their r at q = 4, s = 40 and 120, and with one-half items (five types) and 36-row
// tails as halves (100 rows per type). Not applying: unequal input widths with partial
// steps, r = 24 (the mma.sync tile), unequal output widths. And
// exactly on integers, the square product with 64-wide blocks (interval types, 64 rows per type) at
// q = 4 and 5.
TEST(RowPairTiles, PairWhereTheyApplyAndMatchTheReference) {
  const TileConfig t{128, 128, 9, TileEngine::wgmma_ws_row_pairs};
  ASSERT_EQ(tile_name(t), "wsm128x128");
  const TableData c4 = complete_table(4);
  const std::vector<TileShape> shapes = {
      {"8b-q4", c4, same(4, 128), same(4, 192), 256, true},
      {"types5", complete_table(5), same(5, 64), same(5, 64), 320, true},
      {"rows100", c4, same(4, 128), same(4, 128), 400, true},
      {"rows150", c4, same(4, 64), same(4, 64), 600, true},
      {"rows192-r56", c4, same(4, 64), same(4, 56), 768, true},
      {"rescaled", rescaled_complete4(), same(4, 128), same(4, 128), 256, true},
      {"Q2^2", q2_power(2), same(4, 64), same(4, 48), 256, true},
      {"32b-q4", c4, same(4, 160), same(4, 200), 256, true},
      {"4b-q4", c4, same(4, 80), same(4, 304), 256, true},
      {"s40", c4, same(4, 40), same(4, 128), 256, true},
      {"s120", c4, same(4, 120), same(4, 64), 256, true},
      {"s80-types5", complete_table(5), same(5, 80), same(5, 72), 320, true},
      {"s160-rows100", c4, same(4, 160), same(4, 72), 400, true},
      {"partial-unequal-s", c4, {64, 128, 40, 200}, same(4, 128), 256, false},
      {"r24", c4, same(4, 128), same(4, 24), 256, false},
      {"unequal-r", c4, same(4, 128), {48, 64, 48, 40}, 256, false},
  };
  uint64_t seed = 3300;
  set_forward_tiles(t);
  for (const TileShape& sh : shapes) {
    DevicePlan plan(lower_table(sh.table, sh.s, sh.r));
    DeviceBatch batch(plan, cyclic_types(sh.M, uint32_t(sh.s.size())));
    EXPECT_EQ(row_pair_tiles_apply(batch, t), sh.applies) << sh.name;
    for (DType dt : {DType::bf16, DType::f16})
      run_conformance({"row-pairs/" + sh.name, sh.table, sh.s, sh.r}, dt, false, sh.M, seed++, kFwdFused);
  }
  for (uint32_t q : {4u, 5u})
    run_conformance({"row-pairs/square-q" + std::to_string(q), complete_table(q), same(q, 64), same(q, 64)},
                    DType::bf16, true, 64, seed++, kSquare);
  set_forward_tiles({64, 128, 5, TileEngine::wgmma_ws});  // the process default
  EXPECT_NE(error_of([] { set_forward_tiles({64, 128, 5, TileEngine::wgmma_ws_row_pairs}); }).find("wsm64x128 is not compiled"),
            std::string::npos);
  // Without the TMA stores (the only epilogue that writes two row ranges) the tile is ws64x128.
  const bool tma = ws_tma_store();
  set_ws_tma_store(false);
  {
    DevicePlan plan(lower_table(c4, same(4, 128), same(4, 192)));
    DeviceBatch batch(plan, cyclic_types(256, 4));
    EXPECT_FALSE(row_pair_tiles_apply(batch, t));
    set_forward_tiles(t);
    run_conformance({"row-pairs/no-tma-stores", c4, same(4, 128), same(4, 192)}, DType::bf16, false, 256, seed++,
                    kFwdFused);
    set_forward_tiles({64, 128, 5, TileEngine::wgmma_ws});
  }
  set_ws_tma_store(tma);
}

// The row-pair tiles under the sanitizers: 100 rows per type (a 36-row tail clipped at the type's
// end), five types (one-half items), Q_2^{⊗2} (items without terms: zero tiles by TMA), the
// rescaled basis (steps reaching one half, the accumulators rescaled between terms), grouped
// widths s = 80 (trimmed last steps: 16-row slices of both halves).
TEST(SanitizerSmall, RowPairTiles) {
  const TileConfig t{128, 128, 9, TileEngine::wgmma_ws_row_pairs};
  set_forward_tiles(t);
  const std::vector<TileShape> shapes = {
      {"rows100", complete_table(4), same(4, 128), same(4, 48), 400, true},
      {"types5", complete_table(5), same(5, 64), same(5, 64), 5 * 64, true},
      {"Q2^2", q2_power(2), same(4, 64), same(4, 48), 4 * 37, true},
      {"rescaled", rescaled_complete4(), same(4, 64), same(4, 40), 4 * 64, true},
      {"s80-r72", complete_table(4), same(4, 80), same(4, 72), 4 * 64, true},
  };
  uint64_t seed = 3400;
  for (const TileShape& sh : shapes) {
    DevicePlan plan(lower_table(sh.table, sh.s, sh.r));
    DeviceBatch batch(plan, cyclic_types(sh.M, uint32_t(sh.s.size())));
    EXPECT_TRUE(row_pair_tiles_apply(batch, t)) << sh.name;  // (else this sanitises ws64x128)
    run_conformance({"sanitize-wsm/" + sh.name, sh.table, sh.s, sh.r}, seed % 2 ? DType::f16 : DType::bf16, false, sh.M,
                    seed, kFwdFused);
    ++seed;
  }
  set_forward_tiles({64, 128, 5, TileEngine::wgmma_ws});  // the process default
}

// set_ws_item_order(types): every warp-specialised tile walks its items type outer; the results are
// the reference's (the square exactly on integers; cyclic rows with 100 per type at random), and the
// paired tiles still pair there.
TEST(WsItemOrder, TypesOuterMatchesTheReference) {
  set_ws_item_order(WsItemOrder::types);
  uint64_t seed = 1200;
  each_warp_specialised_tile([&](const TileConfig& t, bool integer) {
    if (integer)
      run_conformance({"types-outer/square-" + tile_name(t), complete_table(4), same(4, 128), same(4, 128)},
                      DType::bf16, true, 64, seed++, kSquare);
    else
      run_conformance({"types-outer/rows100-" + tile_name(t), complete_table(4), same(4, 128), {200, 384, 72, 136}},
                      DType::bf16, false, 400, seed++, kFwdFused);
  });
  DevicePlan plan(lower_table(complete_table(4), same(4, 128), same(4, 128)));
  DeviceBatch batch(plan, cyclic_types(512, 4));
  EXPECT_TRUE(paired_tiles_apply(batch, TileConfig{64, 128, 5, TileEngine::wgmma_ws_pair}));
  set_ws_item_order(WsItemOrder::columns);
}

// The item order of a calibration row (its tenth field) overrides the process-wide one for its shape
// only: a row naming types under the process-wide columns, and one naming columns under types, each
// on Qwen3-4B's widths at q = 4 (s = 80, r = 304: partial column tiles, trimmed last steps).
TEST(WsItemOrder, CalibratedOrderMatchesTheReference) {
  uint64_t seed = 2100;
  for (WsItemOrder process : {WsItemOrder::columns, WsItemOrder::types}) {
    set_ws_item_order(process);
    const WsItemOrder row = process == WsItemOrder::columns ? WsItemOrder::types : WsItemOrder::columns;
    for (TileConfig t : {TileConfig{64, 128, 5, TileEngine::wgmma_ws_lean}, TileConfig{64, 64, 5, TileEngine::wgmma_ws}}) {
      CalibrationEntry e;
      e.K = 4 * 80, e.N = 4 * 304, e.q = 4, e.M = 400, e.tiles = t, e.order = row;
      use_forward_calibration({e});
      const std::string name = std::string("calibrated-") + (row == WsItemOrder::types ? "types/" : "columns/") + tile_name(t);
      run_conformance({name, complete_table(4), same(4, 80), same(4, 304)}, DType::bf16, false, 400, seed++, kFwdFused);
    }
  }
  use_forward_calibration({});
  set_ws_item_order(WsItemOrder::columns);
}

// set_ffn_gate_item_order(types): the gated FFN's gate/up walks its items type outer. Each gate/up
// engine on partial column tiles (f = 48, 192 at q = 4) and on the trimmed widths s = 80, 224 at
// q = 32 with 2048 cyclic rows; the process-wide projection order stays columns, so only gate/up moves.
TEST(WsItemOrder, GateUpTypesOuterMatchesTheReference) {
  uint64_t seed = 2200;
  set_ffn_gate_item_order(WsItemOrder::types);
  EXPECT_EQ(ffn_gate_item_order(), WsItemOrder::types);
  EXPECT_EQ(ws_item_order(), WsItemOrder::columns);
  for (FfnGateEngine e : {FfnGateEngine::ws64x64, FfnGateEngine::ws64x128, FfnGateEngine::wsl64x64}) {
    set_ffn_gate_engine(e);
    for (uint32_t f : {192u, 48u})
      run_conformance({"gate-types/ffn-f" + std::to_string(f), complete_table(4), same(4, 128), same(4, f)}, DType::bf16,
                      false, 512, seed++, kFfn);
    for (uint32_t s : {80u, 224u})
      run_conformance({"gate-types/ffn-s" + std::to_string(s), complete_table(32), same(32, s), same(32, 64)},
                      DType::bf16, false, 2048, seed++, kFfn);
  }
  set_ffn_gate_engine(FfnGateEngine::ws64x64);  // the process defaults
  set_ffn_gate_item_order(WsItemOrder::columns);
}

// Every warp-specialised tile (the square exactly on integers; partial column tiles and 100 rows per
// type at random) and a gated FFN on both gate/up tiles, under the switch the caller has set: the
// switch changes only how the kernels move data, so the results must be the reference's as without.
void ws_switch_cases(const std::string& prefix, uint64_t seed) {
  each_warp_specialised_tile([&](const TileConfig& t, bool integer) {
    if (integer)
      run_conformance({prefix + "/square-" + tile_name(t), complete_table(4), same(4, 128), same(4, 128)}, DType::bf16,
                      true, 64, seed++, kSquare);
    else
      for (const std::vector<uint32_t>& out : {std::vector<uint32_t>{200, 384, 72, 136}, same(4, 72), same(4, 48)})
        run_conformance({prefix + "/rows100-r" + std::to_string(out[0]) + "-" + tile_name(t), complete_table(4),
                         same(4, 128), out},
                        DType::bf16, false, 400, seed++, kFwdFused);
  });
  for (FfnGateEngine e : {FfnGateEngine::ws64x64, FfnGateEngine::ws64x128}) {
    set_ffn_gate_engine(e);
    for (uint32_t f : {192u, 48u})
      run_conformance({prefix + "/ffn-f" + std::to_string(f), complete_table(4), same(4, 128), same(4, f)}, DType::bf16,
                      false, 512, seed++, kFfn);
  }
  set_ffn_gate_engine(FfnGateEngine::ws64x64);  // the process default
}

// set_ws_tma_store(true), the default, and (false): the 64-row tiles write their tiles through
// shared memory and TMA stores where the rows have a closed form (the square; cyclic rows with 100
// per type, whose last 64-row chunk of each type is partial; unequal output widths, whose partial
// column tiles keep the threads' stores; equal widths 72 and 48, whose partial tiles go by the
// per-group map, clipped at the group's end), and the gated FFN's H the same way; or by threads.
// Runs body(true) with the process-wide switch on, then body(false) off, then restores its setting.
template <typename Body>
void both_ways(bool (*get)(), void (*set)(bool), Body&& body) {
  const bool by_default = get();
  for (bool on : {true, false}) {
    set(on);
    body(on);
  }
  set(by_default);
}

TEST(WsTmaStore, ResultsAsWithout) {
  both_ways(ws_tma_store, set_ws_tma_store,
            [](bool on) { ws_switch_cases(on ? "tma-store" : "thread-store", on ? 1400 : 1500); });
}
// set_row_pairs_two_per_sm: the row-pair tiles with 3 stages and two CTAs per SM give the results
// of the default (6 stages, one CTA per SM): every warp-specialised tile's switch cases both ways.
TEST(RowPairTiles, TwoPerSmResultsAsWithout) {
  both_ways(row_pairs_two_per_sm, set_row_pairs_two_per_sm,
            [](bool on) { ws_switch_cases(on ? "wsm-two-per-sm" : "wsm-one-per-sm", on ? 1470 : 1480); });
}
// set_ws128_two_per_sm: ws128x128 with 3 stages and two CTAs per SM gives the results of the default
// (6 stages, one CTA per SM): every warp-specialised tile's switch cases both ways, grouped input
// widths on ws128x128, and the DeepSeek-V3 expert's shape (q = 16, s = 448, r = 128, 2048 cyclic rows: 256 items of 14 steps, more than one
// wave at one CTA per SM) on ws128x128 in both item orders.
TEST(WsTiles, Ws128TwoPerSmResultsAsWithout) {
  both_ways(ws128_two_per_sm, set_ws128_two_per_sm, [](bool on) {
    const std::string p = on ? "ws128-two-per-sm" : "ws128-one-per-sm";
    uint64_t seed = on ? 1490 : 1495;
    ws_switch_cases(p, seed);
    set_forward_tiles({128, 128, 9, TileEngine::wgmma_ws});
    // grouped widths (s = 80, 208: steps through the grouped maps, the last one partly past the group)
    for (uint32_t w : {80u, 208u})
      run_conformance({p + "/grouped-s" + std::to_string(w), complete_table(4), same(4, w), same(4, 136)}, DType::bf16,
                      false, 400, seed + 90 + w % 7, kFwdFused);
    for (WsItemOrder order : {WsItemOrder::columns, WsItemOrder::types}) {
      set_ws_item_order(order);
      run_conformance({p + (order == WsItemOrder::types ? "/dsv3-types" : "/dsv3-columns"), complete_table(16),
                       same(16, 448), same(16, 128)},
                      DType::bf16, false, 2048, seed + 100 + uint64_t(order == WsItemOrder::types), kFwdFused);
    }
    set_ws_item_order(WsItemOrder::columns);
    set_forward_tiles({64, 128, 5, TileEngine::wgmma_ws});  // the process default
  });
}

// set_ws_items_descending(true) and (false, the default): the forward lists walked last item first.
// Every warp-specialised tile's switch cases (the paired tiles' pairs reversed among them), and the
// DeepSeek-V3 expert's shape on ws64x128 and ws128x128 in both item orders, must give the reference's
// results both ways.
TEST(WsItemsDescending, ResultsAsAscending) {
  both_ways(ws_items_descending, set_ws_items_descending, [](bool on) {
    const std::string p = on ? "items-descending" : "items-ascending";
    const uint64_t seed = on ? 3800 : 3900;
    ws_switch_cases(p, seed);
    for (const TileConfig& t : {TileConfig{64, 128, 5, TileEngine::wgmma_ws}, TileConfig{128, 128, 9, TileEngine::wgmma_ws}})
      for (WsItemOrder order : {WsItemOrder::columns, WsItemOrder::types}) {
        set_forward_tiles(t);
        set_ws_item_order(order);
        run_conformance({p + "/dsv3-" + std::to_string(t.bm) + (order == WsItemOrder::types ? "-types" : "-columns"),
                         complete_table(16), same(16, 448), same(16, 128)},
                        DType::bf16, false, 2048, seed + 100 + t.bm + uint64_t(order == WsItemOrder::types), kFwdFused);
      }
    set_ws_item_order(WsItemOrder::columns);
    set_forward_tiles({64, 128, 5, TileEngine::wgmma_ws});  // the process default
  });
}

// set_ws_term_stride(true) and (false, the default): the warp-specialised producers read their first
// item's terms beside the item where the forward list has a term stride (every item a slot of T
// terms; the complete-graph law's: T = 2, its diagonal items padded). Every warp-specialised tile's
// switch cases (the square and unequal output widths; the resident and paired tiles among them),
// Qwen3-32B's grouped widths on packed wsl64x128 at q = 32 (2048 cyclic rows: many items per CTA)
// and the gated FFN's gate/up at s = 224 must give the reference's results both ways; the lists of
// those shapes must have a stride (else the switch would not reach the kernel's new load), and
// Q_2^{⊗2}'s too (up to four terms per item).
TEST(WsTermStride, ResultsAsWithout) {
  {
    const DevicePlan plan(lower_table(complete_table(32), same(32, 160), same(32, 200)));
    const DeviceBatch batch(plan, cyclic_types(2048, 32));
    EXPECT_EQ(forward_term_stride(batch, {64, 128, 5, TileEngine::wgmma_ws_lean}), 2u);
    const DevicePlan q2(lower_table(q2_power(2), same(4, 128), same(4, 128)));
    const DeviceBatch b2(q2, cyclic_types(4 * 64, 4));
    EXPECT_GE(forward_term_stride(b2, {64, 128, 5, TileEngine::wgmma_ws}), 2u);
  }
  both_ways(ws_term_stride, set_ws_term_stride, [](bool on) {
    const std::string p = on ? "term-stride" : "term-chain";
    const uint64_t seed = on ? 3600 : 3700;
    ws_switch_cases(p, seed);
    set_forward_tiles({64, 128, 5, TileEngine::wgmma_ws_lean});
    run_conformance({p + "/complete:32-s160-wsl64x128", complete_table(32), same(32, 160), same(32, 200)}, DType::bf16,
                    false, 2048, seed + 90, kFwdFused);
    run_conformance({p + "/Q2^2-wsl64x128", q2_power(2), same(4, 128), same(4, 136)}, DType::bf16, false, 4 * 100,
                    seed + 92, kFwdFused);
    set_forward_tiles({64, 128, 5, TileEngine::wgmma_ws});  // the process default
    run_conformance({p + "/ffn-s224", complete_table(32), same(32, 224), same(32, 64)}, DType::bf16, false, 2048,
                    seed + 91, kFfn);
  });
}

// set_ws_exit_after_read(true) and (false, the default): the warp-specialised tiles' CTAs end once
// their last TMA stores have read the tile from shared memory. Every warp-specialised tile's switch
// cases (the results are read after the grid has completed) and the gated FFN at s = 224, also with
// its down projection launched by PDL right after gate/up's grid (it reads H after
// griddepcontrol.wait), both ways.
TEST(WsExitAfterRead, ResultsAsWithout) {
  both_ways(ws_exit_after_read, set_ws_exit_after_read, [](bool on) {
    const std::string p = on ? "exit-after-read" : "exit-after-write";
    const uint64_t seed = on ? 3800 : 3900;
    ws_switch_cases(p, seed);
    run_conformance({p + "/ffn-s224", complete_table(32), same(32, 224), same(32, 64)}, DType::bf16, false, 2048,
                    seed + 91, kFfn);
    const bool pdl = ffn_dependent_launch();  // and with the down projection by PDL after gate/up
    set_ffn_dependent_launch(true);
    run_conformance({p + "/ffn-s224-pdl", complete_table(32), same(32, 224), same(32, 64)}, DType::bf16, false, 2048,
                    seed + 93, kFfn);
    set_ffn_dependent_launch(pdl);
  });
}

// set_ws_prime_first(true, the default since the thirty-eighth session) and (false): the warp-specialised producers
// issue their first item's first term's whole steps (all but the item's last step) before the rest of the item's
// work (thirty-seventh session), where x comes by TMA. Every warp-specialised tile's switch cases (s = 128: two
// whole steps per term, both primed where a second term follows, the first only in a diagonal item; the resident,
// grouped and paired tiles, never primed), and on the plain and lean tiles: the DeepSeek-V3 expert's widths (s =
// 448: 7 steps, more than the lean tiles' 3 stages, 2048 cyclic rows, one or two items per CTA), s = 64 at q = 32 (a
// diagonal item's one 64-row term is its last step: nothing primed; the others' first term is), q = 32 rows that
// leave most CTAs without a second item, and the gated FFN (its gate/up never primed, its down projection primed) —
// the reference's results both ways.
void ws_prime_cases(const std::string& p, uint64_t seed) {
  ws_switch_cases(p, seed);
  for (const TileConfig& t : {TileConfig{64, 128, 5, TileEngine::wgmma_ws}, TileConfig{128, 128, 9, TileEngine::wgmma_ws},
                              TileConfig{128, 64, 9, TileEngine::wgmma_ws},
                              TileConfig{64, 128, 5, TileEngine::wgmma_ws_lean}}) {
    set_forward_tiles(t);
    const std::string name = p + "/" + std::to_string(t.bm) + "x" + std::to_string(t.bn) +
                             (t.engine == TileEngine::wgmma_ws_lean ? "l" : "");
    run_conformance({name + "-dsv3", complete_table(16), same(16, 448), same(16, 128)}, DType::bf16, false, 2048,
                    seed + 100 + t.bm + t.bn, kFwdFused);
    run_conformance({name + "-s64", complete_table(32), same(32, 64), same(32, 192)}, DType::bf16, false, 2048,
                    seed + 200 + t.bm + t.bn, kFwdFused);
    run_conformance({name + "-rows", complete_table(32), same(32, 128), same(32, 64)}, DType::bf16, false, 32 * 64,
                    seed + 300 + t.bm + t.bn, kFwdFused);
  }
  set_forward_tiles({64, 128, 5, TileEngine::wgmma_ws});  // the process default
  run_conformance({p + "/ffn-s128", complete_table(32), same(32, 128), same(32, 64)}, DType::bf16, false, 2048,
                  seed + 91, kFfn);
}

TEST(WsPrimeFirst, ResultsAsWithout) {
  both_ways(ws_prime_first, set_ws_prime_first, [](bool on) {
    ws_prime_cases(on ? "prime-first" : "no-prime", on ? 4200 : 4300);
  });
}

// set_ws_prime_item(true) and (false, the default), with set_ws_prime_first on: the first item's whole
// steps primed, every term's up to the first partly empty step, the item's last step among them
// (forty-second session). The same cases as above (there: the 30B expert's item shape, two 128-row
// terms, s = 128, at q = 4 and 32; s = 448 items longer than the lean tiles' 3 stages, so the primed
// steps wait for the consumers; s = 64 items whose only step is their last), and two that end in a
// partly empty step, with unequal input widths (equal ones that are not multiples of 64 go by the
// grouped maps, never primed): 96 and 160 alternating (each term one or two whole steps, then a
// partly empty one: priming stops there), and 128, 96, 64, 40 in turn (whole terms before and
// after partly empty ones; a 40-row term has no whole step).
TEST(WsPrimeItem, ResultsAsWithout) {
  const bool first = ws_prime_first();
  set_ws_prime_first(true);
  both_ways(ws_prime_item, set_ws_prime_item, [](bool on) {
    const std::string p = on ? "prime-item" : "prime-term";
    const uint64_t seed = on ? 4400 : 4500;
    ws_prime_cases(p, seed);
    std::vector<uint32_t> alternating, cycle;
    for (uint32_t i = 0; i < 16; ++i)
      alternating.push_back(i % 2 ? 160 : 96), cycle.push_back(std::array<uint32_t, 4>{128, 96, 64, 40}[i % 4]);
    for (const TileConfig& t : {TileConfig{128, 64, 9, TileEngine::wgmma_ws}, TileConfig{64, 128, 5, TileEngine::wgmma_ws_lean}}) {
      set_forward_tiles(t);
      const std::string name = p + "/" + std::to_string(t.bm) + "x" + std::to_string(t.bn);
      run_conformance({name + "-96-160", complete_table(16), alternating, same(16, 64)}, DType::bf16, false, 2048,
                      seed + 10 + t.bm, kFwdFused);
      run_conformance({name + "-128-96-64-40", complete_table(16), cycle, same(16, 64)}, DType::bf16, false, 2048,
                      seed + 20 + t.bm, kFwdFused);
    }
    set_forward_tiles({64, 128, 5, TileEngine::wgmma_ws});  // the process default
  });
  set_ws_prime_first(first);
}

// set_ws_law_first(true, the default since the fifty-third session) and (false): the 128-row tiles of the plain forward compute their
// first item and its terms from the CTA index where the list is the complete-graph law's (fifty-third
// session). The Qwen3-30B expert's shape (q = 16, s = 128, r = 48, 2048 cyclic rows: one item of 128 x 48
// per CTA on ws128x64) and DeepSeek-V3's (s = 448, r = 128: about two items per CTA on ws128x128) in
// each item order (columns, types; ascending, descending: the closed form in order and reversed), with
// and without prime; rows of 256 per type on ws128x64 (M = 4096, q = 16: two row tiles per type, the
// types order not the grid's, so the list is read), unequal widths (no closed form), and every
// warp-specialised tile's switch cases — the reference's results both ways. With the switch on, the
// launches that took the closed form are counted (ws_law_first_launches): at least one per expert case,
// none for the cases without one.
TEST(WsLawFirst, ResultsAsWithout) {
  const bool prime = ws_prime_first();
  both_ways(ws_law_first, set_ws_law_first, [](bool on) {
    const std::string p = on ? "law-first" : "law-listed";
    uint64_t seed = on ? 5400 : 5500;
    ws_switch_cases(p, seed);
    auto expect_taken = [&](const std::string& what, uint64_t before, bool taken) {
      if (on) EXPECT_EQ(ws_law_first_launches() > before, taken) << what;
      else EXPECT_EQ(ws_law_first_launches(), before) << what;
    };
    for (const TileConfig& t : {TileConfig{128, 64, 9, TileEngine::wgmma_ws}, TileConfig{128, 128, 9, TileEngine::wgmma_ws}}) {
      set_forward_tiles(t);
      const std::string tile = std::to_string(t.bm) + "x" + std::to_string(t.bn);
      for (bool primed : {true, false})
        for (WsItemOrder order : {WsItemOrder::columns, WsItemOrder::types})
          for (bool descending : {false, true}) {
            set_ws_prime_first(primed);
            set_ws_item_order(order);
            set_ws_items_descending(descending);
            const std::string name = p + "/" + tile + (order == WsItemOrder::types ? "-types" : "-columns") +
                                     (descending ? "-desc" : "") + (primed ? "" : "-noprime");
            uint64_t before = ws_law_first_launches();
            run_conformance({name + "-e30", complete_table(16), same(16, 128), same(16, 48)}, DType::bf16, false, 2048,
                            seed++, kFwdFused);
            expect_taken(name + "-e30", before, true);
            before = ws_law_first_launches();
            run_conformance({name + "-dsv3", complete_table(16), same(16, 448), same(16, 128)}, DType::bf16, false, 2048,
                            seed++, kFwdFused);
            expect_taken(name + "-dsv3", before, true);
          }
      set_ws_prime_first(true);
      set_ws_items_descending(false);
      set_ws_item_order(WsItemOrder::types);
      uint64_t before = ws_law_first_launches();
      run_conformance({p + "/" + tile + "-types-rows256", complete_table(16), same(16, 128), same(16, 48)}, DType::bf16,
                      false, 4096, seed++, kFwdFused);
      expect_taken(tile + "-types-rows256", before, false);
      set_ws_item_order(WsItemOrder::columns);
      before = ws_law_first_launches();
      run_conformance({p + "/" + tile + "-unequal", complete_table(4), std::vector<uint32_t>{128, 64, 192, 128}, same(4, 48)},
                      DType::bf16, false, 512, seed++, kFwdFused);
      expect_taken(tile + "-unequal", before, false);
    }
    set_forward_tiles({64, 128, 5, TileEngine::wgmma_ws});  // the process defaults
  });
  set_ws_prime_first(prime);
}

// The same for set_ws_tma_store_tall (the 128-row tiles' TMA stores, on by default since the
// thirtieth session) both ways; the 64-row tiles store by TMA either way.
TEST(WsTmaStore, TallTilesResultsAsWithout) {
  both_ways(ws_tma_store_tall, set_ws_tma_store_tall,
            [](bool on) { ws_switch_cases(on ? "tma-store-tall" : "tma-store-short", on ? 1450 : 1460); });
}

// set_ws_trim_tail(true), the default, and (false): on equal input widths that are multiples of 8
// but not of 64, a term's last step loads only its W rows in 16-row boxes and reduces over only those
// slices (tails of 16, 24, 32 and 40 rows: one, two and three slices, the last one's rows past the
// group zero-filled; a tail of 56 rows, s = 120, is the whole box: until the thirty-second session
// it went as four slices of which the consumers reduced three), or loads the whole zero-padded
// 64-row box. Every warp-specialised tile
// (the resident one included), exactly on integers and at random on cyclic types (x by the 4-D
// map), and the gated FFN's gate/up on both of its tiles (s = 80 and 224, the Qwen3-4B and
// DeepSeek-V3 experts' widths, and 120 for a 56-row tail): the results must be the reference's either way.
TEST(WsTrimTail, ResultsAsWithout) {
  uint64_t seed = 1600;
  both_ways(ws_trim_tail, set_ws_trim_tail, [&](bool on) {
    const std::string p = on ? "trim-tail" : "whole-tail";
    each_warp_specialised_tile([&](const TileConfig& t, bool integer) {
      for (uint32_t s : {80u, 40u, 24u, 160u, 120u})
        run_conformance({p + "/complete:4-s" + std::to_string(s) + "-" + tile_name(t), complete_table(4), same(4, s),
                         same(4, 72)},
                        integer ? DType::f16 : DType::bf16, integer, 512, seed++, kFwdFused);
    });
    for (FfnGateEngine e : {FfnGateEngine::ws64x64, FfnGateEngine::ws64x128, FfnGateEngine::wsl64x64}) {
      set_ffn_gate_engine(e);
      for (uint32_t s : {80u, 224u, 120u})
        run_conformance({p + "/ffn-s" + std::to_string(s), complete_table(32), same(32, s), same(32, 64)},
                        DType::bf16, false, 2048, seed++, kFfn);
    }
    set_ffn_gate_engine(FfnGateEngine::ws64x64);  // the process default
  });
}

// set_ws_pack_terms off, whole_steps (the default) and always on wsl64x128 (the one packed tile):
// input widths 80 and 160 (packed steps of 1 + 3 and 2 + 2 slices, then whole steps from rows 48
// and 32; 160 packs by default), 40 and 24 (a slice half past the group, zero-filled; a 24-row term
// packs into one step with the next term's rows), 64 (never packed); Q_2^{⊗2} (up to four terms
// per item, every coefficient 1: the packed slices run on through several terms); complete:4 in a
// rescaled basis (λ = 1, 2, 4: the two terms of an item have different coefficients, so a packed
// step stops at the next term and the consumers rescale between steps); cyclic types (rows in
// closed form: packed) and random ones (not). M = 4 · 77: a 13-row block per type.
TEST(WsPackTerms, ResultsAsUnpacked) {
  uint64_t seed = 2400;
  set_forward_tiles({64, 128, 5, TileEngine::wgmma_ws_lean});
  const WsPackTerms before = ws_pack_terms();
  for (WsPackTerms mode : {WsPackTerms::always, WsPackTerms::whole_steps, WsPackTerms::off}) {
    set_ws_pack_terms(mode);
    const std::string p = mode == WsPackTerms::always ? "pack-always" : mode == WsPackTerms::off ? "unpacked" : "pack-whole";
    for (bool integer : {false, true}) {
      for (uint32_t s : {80u, 160u, 40u, 24u, 64u})
        run_conformance({p + "/complete:4-s" + std::to_string(s), complete_table(4), same(4, s), same(4, 200)},
                        integer ? DType::f16 : DType::bf16, integer, 4 * 77, seed++, kFwdFused);
      run_conformance({p + "/Q2^2-s40", q2_power(2), same(4, 40), same(4, 136)}, DType::bf16, integer, 4 * 77, seed++,
                      kFwdFused);
      const TableData c4 = complete_table(4);
      std::vector<Fraction> lambda(c4.dim);
      for (uint32_t b = 0; b < c4.dim; ++b) lambda[b] = {int64_t(1) << (b % 3), 1};
      for (uint32_t s : {80u, 160u})
        run_conformance({p + "/complete:4-rescaled-s" + std::to_string(s), rescaled_table(c4, lambda), same(4, s),
                         same(4, 136)},
                        DType::bf16, integer, 4 * 77, seed++, kFwdFused);
    }
  }
  set_ws_pack_terms(before);
  set_forward_tiles({64, 128, 5, TileEngine::wgmma_ws});  // the process default
}

// set_ffn_pack_terms on (the default) and off for the gated FFN's gate/up on ws64x64 (two W tiles per
// step, both as slices in a packed step), under whole_steps (s = 224 and 96 pack: DeepSeek-V3's
// width and a 32-row tail at 96; 80 does not) and always (80 packs, 1 + 3 slices), q = 32, 2048 rows.
TEST(WsPackTerms, GatedFfnResultsAsUnpacked) {
  uint64_t seed = 2500;
  const WsPackTerms before = ws_pack_terms();
  set_ffn_gate_engine(FfnGateEngine::ws64x64);
  for (bool ffn : {true, false})
    for (WsPackTerms mode : {WsPackTerms::whole_steps, WsPackTerms::always}) {
      set_ffn_pack_terms(ffn);
      set_ws_pack_terms(mode);
      const std::string p = std::string(ffn ? "ffn-pack" : "ffn-unpacked") + (mode == WsPackTerms::always ? "-always" : "-whole");
      for (uint32_t s : {224u, 96u, 80u})
        run_conformance({p + "/s" + std::to_string(s), complete_table(32), same(32, s), same(32, 64)}, DType::bf16, false,
                        2048, seed++, kFfn);
    }
  set_ffn_pack_terms(true);  // the process default
  set_ws_pack_terms(before);
}

// set_ffn_dependent_launch(true) and (false, the default): the gated FFN's down projection on a
// warp-specialised tile launches by PDL after gate/up and copies H only once that grid is done. Every
// warp-specialised down tile (random inputs in bf16 and f16, the f = 48 down plan on the grouped maps),
// each gate/up engine, and an FFN of Qwen3 proportions at q = 32 with 2048 rows, where gate/up's
// last CTAs overlap the down grid's start.
TEST(FfnDependentLaunch, ResultsAsWithout) {
  uint64_t seed = 2200;
  both_ways(ffn_dependent_launch, set_ffn_dependent_launch, [&](bool on) {
    const std::string p = on ? "pdl" : "stream-order";
    each_warp_specialised_tile([&](const TileConfig& t, bool integer) {
      for (uint32_t f : {192u, 48u})
        run_conformance({p + "/ffn-f" + std::to_string(f) + "-" + tile_name(t), complete_table(4), same(4, 128), same(4, f)},
                        integer ? DType::f16 : DType::bf16, false, 512, seed++, kFfn);  // (SiLU: random inputs only)
    });
    for (FfnGateEngine e : {FfnGateEngine::ws64x64, FfnGateEngine::ws64x128, FfnGateEngine::wsl64x64}) {
      set_ffn_gate_engine(e);
      run_conformance({p + "/ffn-q32-gate" + std::to_string(int(e)), complete_table(32), same(32, 64), same(32, 80)},
                      DType::bf16, false, 2048, seed++, kFfn);
    }
    set_ffn_gate_engine(FfnGateEngine::ws64x64);  // the process default
  });
}

// A 0|1 switch's cases both ways (the switch cases, then every warp-specialised tile on Qwen3-4B's
// widths s = 80, r = 304 at q = 4: last column tiles of 48, trimmed last steps), prefixed on_name /
// off_name: for switches that change only how the kernels move data.
void switch_and_s80_cases(bool (*get)(), void (*set)(bool), const std::string& on_name, const std::string& off_name,
                          uint64_t seed) {
  both_ways(get, set, [&](bool on) {
    const std::string p = on ? on_name : off_name;
    ws_switch_cases(p, seed);
    seed += 100;
    each_warp_specialised_tile([&](const TileConfig& t, bool integer) {
      run_conformance({p + "/complete:4-s80-r304-" + tile_name(t), complete_table(4), same(4, 80), same(4, 304)},
                      integer ? DType::f16 : DType::bf16, integer, 512, seed++, kFwdFused);
    });
  });
}

// set_ws_narrow_w(true, the default) and (false): an item narrower than its tile copies only the W
// boxes its columns reach, and the tile's other accumulator columns (from stale shared memory) must
// never reach Y. Every warp-specialised tile on the switch cases (partial column tiles of 72, 48,
// 136 and 200 columns, the gated FFN with 48-wide groups) and on Qwen3-4B's widths (s = 80,
// r = 304: last tiles of 48 columns, trimmed last steps). First passed in the twenty-first session.
TEST(WsNarrowW, ResultsAsWithout) {
  switch_and_s80_cases(ws_narrow_w, set_ws_narrow_w, "narrow-w", "whole-w", 1900);
}

// set_ws_pack_terms refuses a mode outside the enum by name, and the mode stays as it was.
TEST(WsPackTerms, RefusesUnknownMode) {
  const WsPackTerms mode = ws_pack_terms();
  EXPECT_NE(error_of([] { set_ws_pack_terms(WsPackTerms(3)); }).find("set_ws_pack_terms: unknown mode 3"), std::string::npos);
  EXPECT_EQ(ws_pack_terms(), mode);
}

// set_ws_ablation is for timing only: it refuses unknown bits by name and is read back as set.
TEST(WsAblation, RefusesUnknownBitsAndReadsBack) {
  EXPECT_NE(error_of([] { set_ws_ablation(8); }).find("unknown bits in mask 8"), std::string::npos);
  set_ws_ablation(ws_ablate_no_mma | ws_ablate_no_store);
  EXPECT_EQ(ws_ablation(), uint32_t(ws_ablate_no_mma | ws_ablate_no_store));
  set_ws_ablation(0);
  EXPECT_EQ(ws_ablation(), 0u);
}

// Equal input widths that are multiples of 8 but not of 64 (every term's last step partly empty):
// the warp-specialised tiles load both operands through the grouped tensor maps (wgs_gemm.cuh
// kGroupedTma; the copy engine zero-fills past the group). Random mode: cyclic types with q | M, so
// x comes by the 4-D map too; integer mode: explicit types, x by cp.async, W by the 3-D map.
TEST(GroupedTma, WarpSpecialisedTilesMatchTheReference) {
  uint64_t seed = 700;
  each_warp_specialised_tile([&](const TileConfig& t, bool integer) {
    run_conformance({"complete:4/grouped-40-" + tile_name(t), complete_table(4), same(4, 40), same(4, 72)},
                    DType::bf16, integer, 512, seed++, kFwdFused);
    run_conformance({"complete:8/grouped-24-" + tile_name(t), complete_table(8), same(8, 24), same(8, 64)},
                    integer ? DType::f16 : DType::bf16, integer, 512, seed++, kFwdFused);
    run_conformance({"Q2^2/grouped-80-" + tile_name(t), q2_power(2), same(4, 80), {64, 136, 72, 192}}, DType::bf16,
                    integer, 384, seed++, kFwdFused);
  });
}

// Every gate/up engine of gated_ffn (set_ffn_gate_engine): the law with rows by TMA, unequal
// widths with partly empty steps (x rows by cp.async), Q_2^{⊗2}'s lists, FP16, rows not a
// multiple of 64 per type, and equal widths not multiples of 64 (grouped tensor maps).
TEST(GatedFfn, EveryGateEngineMatchesTheReference) {
  uint64_t seed = 900;
  const char* names[] = {"mma", "ws64x64", "ws64x128", "wsl64x64"};
  for (FfnGateEngine e :
       {FfnGateEngine::mma_sync, FfnGateEngine::ws64x64, FfnGateEngine::ws64x128, FfnGateEngine::wsl64x64}) {
    set_ffn_gate_engine(e);
    const std::string n = names[int(e)];
    run_conformance({"complete:8/ffn-" + n, complete_table(8), same(8, 64), same(8, 128)}, DType::bf16, false, 8 * 37,
                    seed++, kFfn);
    run_conformance({"complete:4/ffn-unequal-" + n, complete_table(4), {64, 128, 40, 200}, {200, 384, 72, 136}},
                    DType::f16, false, 512, seed++, kFfn);
    run_conformance({"Q2^2/ffn-" + n, q2_power(2), same(4, 80), {64, 136, 72, 192}}, DType::bf16, false, 384, seed++,
                    kFfn);
    run_conformance({"complete:32/ffn-8B-" + n, complete_table(32), same(32, 128), same(32, 384)}, DType::bf16, false,
                    2048, seed++, kFfn);
    // s = 80 and 224 (the Qwen3-4B and DeepSeek-V3 experts' shapes): the warp-specialised gate/up
    // takes both W matrices and x through the grouped tensor maps (every term's last step partly empty).
    run_conformance({"complete:32/ffn-4B-" + n, complete_table(32), same(32, 80), same(32, 304)}, DType::bf16, false,
                    2048, seed++, kFfn);
    run_conformance({"complete:32/ffn-DS-V3-" + n, complete_table(32), same(32, 224), same(32, 64)}, DType::bf16,
                    false, 2048, seed++, kFfn);
  }
  set_ffn_gate_engine(FfnGateEngine::ws64x64);
}

// The gated FFN in one kernel (narrow_ffn.cuh, set_narrow_ffn): the Qwen3-30B expert's shape at
// q = 32 (64 → 24) at both stage counts and at runs of 1, 5 (the last run short) and automatic;
// rows per type not a multiple of 64 (37: one partial row block; 100: a full and a partial one),
// FP16, every instantiated width pair; and the two-kernel path on the same shapes. H and Y are
// both checked (Y against the down reference on the kernel's H).
TEST(GatedFfn, OneKernelNarrowFfnMatchesTheReference) {
  uint64_t seed = 950;
  struct Shape {
    const char* name;
    uint32_t q, sd, rf;
    uint64_t M;
    DType t;
  };
  const Shape shapes[] = {{"30B", 32, 64, 24, 2048, DType::bf16}, {"c37", 8, 64, 24, 8 * 37, DType::f16},
                          {"c100", 4, 32, 16, 4 * 100, DType::bf16}, {"32x32", 4, 32, 32, 512, DType::bf16},
                          {"64x16", 4, 64, 16, 256, DType::f16},     {"64x32", 4, 64, 32, 256, DType::bf16},
                          {"32x24", 8, 32, 24, 8 * 70, DType::bf16}};
  for (const Shape& sh : shapes) {
    const TableData t = complete_table(sh.q);
    {  // the predicate: both plans and the same rows in closed form
      DevicePlan up(lower_table(t, same(sh.q, sh.sd), same(sh.q, sh.rf)));
      DevicePlan down(lower_table(t, same(sh.q, sh.rf), same(sh.q, sh.sd)));
      std::vector<uint32_t> types(sh.M);
      for (uint64_t p = 0; p < sh.M; ++p) types[p] = uint32_t(p % sh.q);
      DeviceBatch bu(up, types), bd(down, types);
      EXPECT_TRUE(narrow_ffn_applies(bu, bd)) << sh.name;
      DeviceBatch swapped(down, types);  // down's widths as gate/up: instantiated only where sd = rf
      EXPECT_EQ(narrow_ffn_applies(swapped, bu), sh.sd == sh.rf) << sh.name;
      std::vector<uint32_t> shifted(sh.M);  // the same counts per type, other rows
      for (uint64_t p = 0; p < sh.M; ++p) shifted[p] = uint32_t((p + 1) % sh.q);
      DeviceBatch other(down, shifted);
      EXPECT_FALSE(narrow_ffn_applies(bu, other)) << sh.name;
    }
    for (int mode : {0, 1}) {
      set_narrow_ffn(mode);
      const std::vector<std::pair<int, uint32_t>> settings =
          mode == 0 || std::string(sh.name) != "30B" ? std::vector<std::pair<int, uint32_t>>{{2, 0}}
                                                     : std::vector<std::pair<int, uint32_t>>{{2, 0}, {3, 0}, {2, 1}, {3, 5}};
      for (const auto& [stages, run] : settings) {
        set_narrow_ffn_stages(stages);
        set_narrow_ffn_run(run);
        const std::string n = std::string("complete:") + std::to_string(sh.q) + "/ffn-" + sh.name +
                              (mode ? "-one-kernel-s" + std::to_string(stages) + "-run" + std::to_string(run) : "-two-kernels");
        run_conformance({n, t, same(sh.q, sh.sd), same(sh.q, sh.rf)}, sh.t, false, sh.M, seed++, kFfn);
      }
    }
  }
  set_narrow_ffn(1);
  set_narrow_ffn_stages(2);
  set_narrow_ffn_run(0);
  EXPECT_THROW(set_narrow_ffn(2), std::invalid_argument);
  EXPECT_THROW(set_narrow_ffn_stages(4), std::invalid_argument);
  EXPECT_THROW(set_narrow_ffn_run(5000), std::invalid_argument);
}

TEST(RowFormula, WgmmaKernelsMatchTheReference) {
  set_row_formula(true);
  uint64_t seed = 500;
  for (const TileConfig& t : {TileConfig{64, 128, 4, TileEngine::wgmma}, TileConfig{64, 64, 4, TileEngine::wgmma_many},
                              TileConfig{128, 128, 8, TileEngine::wgmma_many_rows},
                              TileConfig{64, 128, 4, TileEngine::wgmma_many_lean}}) {
    set_forward_tiles(t);
    for (bool integer : {true, false}) {
      run_conformance({"complete:4/rows-" + tile_name(t), complete_table(4), {64, 128, 40, 200}, {200, 384, 72, 136}},
                      DType::bf16, integer, 512, seed++, kFwdFused);
      run_conformance({"complete:4/rows-square-" + tile_name(t), complete_table(4), same(4, 64), same(4, 64)},
                      DType::bf16, integer, 256, seed++, kSquare);
    }
  }
  set_forward_tiles({64, 128, 5, TileEngine::wgmma_ws});  // the process default
  for (TileEngine e : {TileEngine::wgmma, TileEngine::wgmma_many, TileEngine::wgmma_many_lean}) {
    set_backward_engines({e, e});
    run_conformance({"complete:8/rows-backward-" + std::to_string(uint32_t(e)), complete_table(8), same(8, 64),
                     same(8, 128)},
                    DType::bf16, false, 2048, seed++, kGradX | kGradW);
  }
  set_backward_engines({});
  set_row_formula(false);
  EXPECT_FALSE(row_formula_enabled());
}
}  // namespace
}  // namespace qalg::gpu::test
