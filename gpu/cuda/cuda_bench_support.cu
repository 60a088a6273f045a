// Dense SiLU(g)·u for the dense gated-FFN peer of the benchmarks (cuda_bench_support.hpp).
#include <cuda_bf16.h>

#include <stdexcept>
#include <string>

#include "device_impl.hpp"
#include "mma_primitives.cuh"
#include "narrow_units.hpp"
#include "qalg/gpu/cuda_bench_support.hpp"

namespace qalg::gpu {
namespace {
__global__ void silu_mul_rows(const __nv_bfloat162* GU, __nv_bfloat162* H, uint64_t M, uint64_t F2) {
  for (uint64_t e = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; e < M * F2;
       e += uint64_t(gridDim.x) * blockDim.x) {
    const uint64_t m = e / F2, f = e % F2;
    const float2 g = __bfloat1622float2(GU[m * 2 * F2 + f]);
    const float2 u = __bfloat1622float2(GU[m * 2 * F2 + F2 + f]);
    H[e] = __floats2bfloat162_rn(detail::silu_mul(g.x, u.x), detail::silu_mul(g.y, u.y));
  }
}
}  // namespace

void dense_silu_mul_bf16(const void* GU, void* H, uint64_t M, uint64_t F, cudaStream_t stream) {
  const uint64_t n = M * (F / 2);
  const unsigned blocks = unsigned(std::min<uint64_t>((n + 255) / 256, 132 * 16));
  silu_mul_rows<<<blocks, 256, 0, stream>>>(static_cast<const __nv_bfloat162*>(GU),
                                            static_cast<__nv_bfloat162*>(H), M, F / 2);
  detail::check_cuda(cudaGetLastError(), "silu_mul_rows launch");
}

namespace {
__global__ void null_kernel() {}
}  // namespace

void device_null_kernel(uint32_t ctas, cudaStream_t stream) {
  if (ctas == 0) throw std::invalid_argument("device_null_kernel: ctas must be at least 1");
  null_kernel<<<ctas, 32, 0, stream>>>();
  detail::check_cuda(cudaGetLastError(), "null_kernel launch");
}

namespace {
__global__ void hold_kernel(uint64_t ns) {
  uint64_t t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    __nanosleep(200);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}
}  // namespace

void device_hold(uint64_t ns, cudaStream_t stream) {
  if (ns == 0 || ns > 1000000000ull)
    throw std::invalid_argument("device_hold: ns must be in [1, 1e9], got " + std::to_string(ns));
  hold_kernel<<<1, 1, 0, stream>>>(ns);
  detail::check_cuda(cudaGetLastError(), "hold_kernel launch");
}

namespace {
__device__ uint64_t mix(uint64_t x) {
  x ^= x >> 33, x *= 0xff51afd7ed558ccdull, x ^= x >> 33, x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}
__global__ void fill_kernel(__nv_bfloat16* p, uint64_t n, uint64_t seed, float scale) {
  for (uint64_t e = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; e < n; e += uint64_t(gridDim.x) * blockDim.x) {
    const uint64_t h = mix(e * 0x9e3779b97f4a7c15ull + seed);
    // Sum of four uniforms on [-0.5, 0.5): mean 0, variance 1/3; scaled to unit variance.
    float s = 0;
    for (int k = 0; k < 4; ++k) s += float((h >> (16 * k)) & 0xffff) / 65536.0f - 0.5f;
    p[e] = __float2bfloat16_rn(s * 1.7320508f * scale);
  }
}
__global__ void l2_kernel(const __nv_bfloat16* out, const float* ref, uint64_t n, double* acc) {
  double num = 0, den = 0;
  for (uint64_t e = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; e < n; e += uint64_t(gridDim.x) * blockDim.x) {
    const double d = double(__bfloat162float(out[e])) - double(ref[e]);
    num += d * d;
    den += double(ref[e]) * double(ref[e]);
  }
  for (int o = 16; o > 0; o /= 2) num += __shfl_down_sync(0xffffffffu, num, o), den += __shfl_down_sync(0xffffffffu, den, o);
  if (threadIdx.x % 32 == 0) atomicAdd(&acc[0], num), atomicAdd(&acc[1], den);
}
__global__ void copy_kernel(const uint4* src, uint4* dst, uint64_t n) {
  for (uint64_t e = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; e < n; e += uint64_t(gridDim.x) * blockDim.x)
    dst[e] = src[e];
}
// Sums every 16-byte chunk of src (two 64-bit words, wrapping), `passes` times over, loaded from
// L2 (ld.global.cg, past L1); one atomicAdd per CTA. The sum is what makes the loads observable,
// and lets a test check that every byte was read `passes` times.
__global__ void l2_read_kernel(const uint4* src, uint64_t n, int passes, unsigned long long* sum) {
  unsigned long long s = 0;
  for (int p = 0; p < passes; ++p)
    for (uint64_t e = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; e < n; e += uint64_t(gridDim.x) * blockDim.x) {
      const uint4 v = __ldcg(src + e);
      s += (uint64_t(v.y) << 32 | v.x) + (uint64_t(v.w) << 32 | v.z);
    }
  for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
  __shared__ unsigned long long warp_sum[32];
  if (threadIdx.x % 32 == 0) warp_sum[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long t = 0;
    for (unsigned w = 0; w < blockDim.x / 32; ++w) t += warp_sum[w];
    atomicAdd(sum, t);
  }
}
// device_tile_copy: vectors of 16 bytes; a tile is 64 × seg16 of them, PER (= ceil(64 · seg16 /
// 256)) per thread of 256; AHEAD tiles' loads are all issued before the first of their stores (the
// narrow kernel at M = 8192 holds one unit's operands in flight per CTA: AHEAD = 1), at most 16
// vectors in registers. 72 KB of dynamic shared memory (unused) holds the SM at the narrow kernel's
// 3 CTAs.
constexpr int kTileThreads = 256, kTileVecs = 16;
template <int PER, int AHEAD>
__global__ void __launch_bounds__(kTileThreads, 3)
    tile_copy_kernel(const uint4* src, uint4* dst, uint32_t row_blocks, uint64_t pitch16, uint32_t seg16, uint32_t tiles,
                     uint32_t run, uint32_t strided) {
  static_assert(PER * AHEAD <= kTileVecs, "at most 16 vectors per thread in flight");
  // The narrow kernel's unit order (narrow_units.hpp): a run of consecutive tiles, or strided over
  // the row block's CTAs.
  const uint32_t rb = blockIdx.x % row_blocks, c = blockIdx.x / row_blocks, runs = gridDim.x / row_blocks;
  const uint32_t count = detail::narrow_unit_count(tiles, c, run, runs, 0, strided), n = 64 * seg16;
  // (The store loop repeats the load loop's address arithmetic on purpose: one shared lambda, or
  // offsets kept from the loads, spilled up to 96 bytes per thread under ptxas: 1024-byte rows.)
  for (uint32_t k = 0; k < count; k += AHEAD) {
    uint4 v[AHEAD][PER];
#pragma unroll
    for (int g = 0; g < AHEAD; ++g) {
      const uint64_t t = detail::narrow_unit(k + g, c, run, runs, 0, strided);
#pragma unroll
      for (int i = 0; i < PER; ++i) {
        const uint32_t e = threadIdx.x + i * kTileThreads;
        if (k + g < count && e < n) v[g][i] = src[uint64_t(rb * 64 + e / seg16) * pitch16 + t * seg16 + e % seg16];
      }
    }
#pragma unroll
    for (int g = 0; g < AHEAD; ++g) {
      const uint64_t t = detail::narrow_unit(k + g, c, run, runs, 0, strided);
#pragma unroll
      for (int i = 0; i < PER; ++i) {
        const uint32_t e = threadIdx.x + i * kTileThreads;
        if (k + g < count && e < n) dst[uint64_t(rb * 64 + e / seg16) * pitch16 + t * seg16 + e % seg16] = v[g][i];
      }
    }
  }
}
constexpr int kTileSmem = 72 * 1024;
// The compiled (vectors per thread, tiles ahead): 208-byte rows (4 per thread) 1, 2 and 4 ahead;
// 400 (7) 1 and 2; 832 (13) and 1024 (16) 1. f(kernel) with the one for (per, ahead); false if none.
template <class F>
bool with_tile_copy_kernel(uint32_t per, uint32_t ahead, F&& f) {
  const auto pick = [&](auto kernel) { return f(kernel), true; };
  if (per <= 4 && ahead == 1) return pick(tile_copy_kernel<4, 1>);
  if (per <= 4 && ahead == 2) return pick(tile_copy_kernel<4, 2>);
  if (per <= 4 && ahead == 4) return pick(tile_copy_kernel<4, 4>);
  if (per <= 7 && ahead == 1) return pick(tile_copy_kernel<7, 1>);
  if (per <= 7 && ahead == 2) return pick(tile_copy_kernel<7, 2>);
  if (per <= 16 && ahead == 1) return pick(tile_copy_kernel<16, 1>);
  return false;
}
}  // namespace

void device_tile_copy(const void* src, void* dst, uint32_t rows, uint32_t seg_bytes, uint64_t pitch_bytes, uint32_t runs,
                      uint32_t ahead, cudaStream_t stream, bool strided) {
  if (src == nullptr || dst == nullptr) throw std::invalid_argument("device_tile_copy: src and dst must be device pointers, got null");
  if (rows == 0 || rows % 64 != 0)
    throw std::invalid_argument("device_tile_copy: rows must be a positive multiple of 64, got " + std::to_string(rows));
  if (seg_bytes < 16 || seg_bytes > 1024 || seg_bytes % 16 != 0)
    throw std::invalid_argument("device_tile_copy: seg_bytes must be a multiple of 16 in [16, 1024], got " + std::to_string(seg_bytes));
  if (pitch_bytes % 16 != 0 || pitch_bytes < seg_bytes)
    throw std::invalid_argument("device_tile_copy: pitch_bytes must be a multiple of 16 and at least seg_bytes (" +
                                std::to_string(seg_bytes) + "), got " + std::to_string(pitch_bytes));
  if (runs == 0) throw std::invalid_argument("device_tile_copy: runs must be positive, got 0");
  const uint32_t per = (64 * (seg_bytes / 16) + kTileThreads - 1) / kTileThreads;
  const uint32_t tiles = uint32_t(pitch_bytes / seg_bytes), row_blocks = rows / 64;
  const uint32_t run = (tiles + runs - 1) / runs;
  const uint32_t grid = row_blocks * ((tiles + run - 1) / run);
  const bool compiled = with_tile_copy_kernel(per, ahead, [&](auto kernel) {
    detail::check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kTileSmem),
                       "cudaFuncSetAttribute(tile_copy_kernel)");
    kernel<<<grid, kTileThreads, kTileSmem, stream>>>(static_cast<const uint4*>(src), static_cast<uint4*>(dst), row_blocks,
                                                      pitch_bytes / 16, seg_bytes / 16, tiles, run, strided ? 1u : 0u);
    detail::check_cuda(cudaGetLastError(), "tile_copy_kernel launch");
  });
  if (!compiled)
    throw std::invalid_argument("device_tile_copy: " + std::to_string(ahead) + " tiles ahead of " + std::to_string(seg_bytes) +
                                "-byte rows are not compiled (208-byte rows and narrower: 1, 2 or 4; up to 400: 1 or 2; "
                                "up to 1024: 1)");
}

void device_l2_read(const void* src, uint64_t bytes, int passes, unsigned long long* sum, cudaStream_t stream) {
  if (src == nullptr || sum == nullptr) throw std::invalid_argument("device_l2_read: src and sum must be device pointers, got null");
  if (bytes == 0 || bytes % 16 != 0)
    throw std::invalid_argument("device_l2_read: bytes must be a positive multiple of 16, got " + std::to_string(bytes));
  if (passes < 1) throw std::invalid_argument("device_l2_read: passes must be at least 1, got " + std::to_string(passes));
  int dev = 0, sms = 0;
  detail::check_cuda(cudaGetDevice(&dev), "cudaGetDevice");
  detail::check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "multiprocessor count");
  l2_read_kernel<<<unsigned(sms) * 2, 1024, 0, stream>>>(static_cast<const uint4*>(src), bytes / 16, passes, sum);
  detail::check_cuda(cudaGetLastError(), "l2_read_kernel launch");
}

void device_copy(const void* src, void* dst, uint64_t bytes, cudaStream_t stream) {
  copy_kernel<<<132 * 16, 512, 0, stream>>>(static_cast<const uint4*>(src), static_cast<uint4*>(dst), bytes / 16);
  detail::check_cuda(cudaGetLastError(), "copy_kernel launch");
}

void fill_random_bf16(void* p, uint64_t n, uint64_t seed, float scale, cudaStream_t stream) {
  fill_kernel<<<132 * 8, 256, 0, stream>>>(static_cast<__nv_bfloat16*>(p), n, seed, scale);
  detail::check_cuda(cudaGetLastError(), "fill_kernel launch");
}

double rel_l2_bf16(const void* out, const float* ref, uint64_t n) {
  detail::DeviceBuffer<double> acc(std::vector<double>{0.0, 0.0});
  l2_kernel<<<132 * 8, 256>>>(static_cast<const __nv_bfloat16*>(out), ref, n, acc.get());
  detail::check_cuda(cudaGetLastError(), "l2_kernel launch");
  double h[2];
  detail::check_cuda(cudaMemcpy(h, acc.get(), sizeof(h), cudaMemcpyDeviceToHost), "l2 result");
  return std::sqrt(h[0] / h[1]);
}

}  // namespace qalg::gpu
