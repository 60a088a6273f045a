#pragma once
// Pieces the dense peers of the benchmarks need besides cuBLAS (bench/gpu).
#include <cstdint>

#include <cuda_runtime.h>

namespace qalg::gpu {

// Dense gated FFN middle step: H[m][f] = SiLU(GU[m][f]) · GU[m][F + f], GU = X·[Wg | Wu] (M×2F),
// all BF16, FP32 arithmetic.
void dense_silu_mul_bf16(const void* GU, void* H, uint64_t M, uint64_t F, cudaStream_t stream);

// Copies `bytes` (a multiple of 16) with 16-byte loads and stores: the copy-bandwidth probe.
void device_copy(const void* src, void* dst, uint64_t bytes, cudaStream_t stream);

// The L2 read-bandwidth probe: reads `bytes` (a multiple of 16, small enough to stay in L2) from
// L2 `passes` times with 16-byte ld.global.cg loads over every SM, adding their 64-bit words
// (wrapping) into *sum (device memory, not cleared): sum += passes · Σ words. Throws
// std::invalid_argument, before any launch, for null pointers, a size that is 0 or not a multiple
// of 16, or passes < 1.
void device_l2_read(const void* src, uint64_t bytes, int passes, unsigned long long* sum, cudaStream_t stream);

// The narrow-group law kernel's memory traffic without its math (bench suite `segments`, twenty-
// seventh session): copies, src to dst at the same places, the rows × (tiles · seg_bytes) bytes at
// the start of each of `rows` rows (pitch_bytes apart) as 64-row × seg_bytes tiles, the way that
// kernel writes Y (and reads W): CTA b takes row block b mod (rows / 64) and a run of consecutive
// tiles along it, `ahead` tiles at a time with every load of those issued before their stores (the
// kernel at M = 8192: one); `runs` runs per row block, at most 3 CTAs per SM (the kernel's
// occupancy). Whether the kernel's 208-byte row runs at a 51 200-byte pitch cost DRAM efficiency is
// then a measurement against wider tiles, and whether more loads in flight would help one against
// more tiles ahead. Compiled: ahead 1, 2 or 4 for rows of at most 208 bytes, 1 or 2 up to 400, 1 up
// to 1024. Throws std::invalid_argument, before any launch, for null pointers, rows not a positive
// multiple of 64, seg_bytes not a multiple of 16 in [16, 1024], pitch_bytes not a multiple of 16 or
// below seg_bytes, runs = 0, or an `ahead` not compiled for seg_bytes. strided (twenty-eighth
// session): the CTAs of a row block take its tiles in the narrow kernel's strided order instead
// (CTA c of them: tiles c, c + runs, …; set_narrow_unit_order), so they copy adjacent tiles at once.
void device_tile_copy(const void* src, void* dst, uint32_t rows, uint32_t seg_bytes, uint64_t pitch_bytes, uint32_t runs,
                      uint32_t ahead, cudaStream_t stream, bool strided = false);

// Launches `ctas` CTAs of 32 threads that do nothing: the launch probe (what a graph replay of one
// kernel costs before any work, the part of a small kernel's time no kernel can remove). Throws
// std::invalid_argument, before any launch, for ctas = 0.
void device_null_kernel(uint32_t ctas, cudaStream_t stream);

// Holds the stream for `ns` nanoseconds of %globaltimer: one thread spins, touching no memory, so
// the L2 stays as the previous call left it. The benchmark's held warm protocol (bench/gpu/
// gpu_timing.hpp) enqueues it before a timed replay: the host then submits the replay and its closing
// event while the GPU spins, and the replay's time is the GPU's own, without the wait for the host's
// cudaGraphLaunch that a replay timed on an idle GPU includes (the forty-fourth session). Throws
// std::invalid_argument, before any launch, for ns = 0 or ns above one second.
void device_hold(uint64_t ns, cudaStream_t stream);

// Fills n BF16 values with a hashed pseudo-random N(0, 1)-like sequence times `scale` (uniform
// sums, no cuRAND needed); different seeds give independent data.
void fill_random_bf16(void* p, uint64_t n, uint64_t seed, float scale, cudaStream_t stream);

// ‖out − ref‖ / ‖ref‖ over n elements, out BF16, ref FP32 (computed on the device, in double).
// NaN anywhere in out makes the result NaN.
double rel_l2_bf16(const void* out, const float* ref, uint64_t n);

}  // namespace qalg::gpu
