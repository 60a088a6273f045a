// The forward of the complete-graph law for SMALL blocks (twelfth session): input and output groups
// of at most 64 (s, r multiples of 8), rows in closed form with q | M. Why: the Qwen3-30B expert's
// FFN down projection at q = 32 (768 → 2048: s = 24, r = 64) took 13.0 µs on the best calibrated
// tile, as long as dense cuBLAS (13.5), and its gate/up (r = 24) 16.8 µs: every tile of the
// general kernels is one (type, output group) pair with two terms of at most 64 rows, so a CTA
// spends its time on one short pipeline, one 64 × 64 store and its fixed costs per tile.
// Here one CTA takes 64 rows of type i and a chunk of G output groups j: it copies x_i, every x_j
// of the chunk, the block row W_ij of the chunk and each W_jj into shared memory at once (16-byte
// cp.async, zeros past s and r), then each warp multiplies 16 rows by its groups with mma.sync
// (x_i W_ij + x_j W_jj; x_i W_ii alone where j = i) and stores them. EPI = kSiluMul: gate (B0)
// and up (B1) in one pass, H = SiLU(gate)·up.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <type_traits>

#include "batched_law.hpp"
#include "law_block.hpp"
#include "launch_common.cuh"

namespace qalg::gpu {
namespace detail {
namespace {

constexpr size_t kLawBlockSmemMax = 227 * 1024;
constexpr int kLawBlockThreads = 256, kLawBlockRows = 64;

// SP, RP: s and r rounded up to 32 or 64 (the staged widths); XP, WP: the staged row pitches in
// elements (+ 8: rows 16 bytes apart in the banks, so ldmatrix's eight rows do not collide; the
// 32-wide W rows stay unpadded, so that eight gate/up groups fit). G: output groups per CTA.
template <int NB, int SP, int RP>
struct LawBlockShape {
  static constexpr int XP = SP + 8, WP = RP == 32 ? 32 : RP + 8;
  static constexpr size_t bytes(int g) {
    return size_t(g + 1) * kLawBlockRows * XP * 2 + size_t(2) * NB * g * SP * WP * 2;
  }
  static constexpr int G = NB == 1 ? 4 : bytes(8) <= kLawBlockSmemMax ? 8 : bytes(4) <= kLawBlockSmemMax ? 4 : 2;
  static constexpr size_t kBytes = bytes(G);
  static_assert(kBytes <= kLawBlockSmemMax, "law block staging exceeds shared memory");
};

template <typename T, int NB, int EPI, int SP, int RP>
__global__ void __launch_bounds__(kLawBlockThreads) law_block_kernel(GemmArgs g, uint32_t q, uint32_t s, uint32_t r,
                                                                     uint32_t c) {
  using S = LawBlockShape<NB, SP, RP>;
  constexpr int G = S::G, XP = S::XP, WP = S::WP, XC = SP / 8, WC = RP / 8;
  extern __shared__ __align__(16) unsigned char law_smem[];
  T* sX = reinterpret_cast<T*>(law_smem);       // [G + 1][64][XP]: x_i, then x_j for the chunk's groups
  T* sW = sX + (G + 1) * kLawBlockRows * XP;    // [2][NB][G][SP][WP]: W_ij, then W_jj
  const uint32_t chunks = (q + G - 1) / G, mt = (c + kLawBlockRows - 1) / kLawBlockRows;
  const uint32_t chunk = blockIdx.x % chunks, rest = blockIdx.x / chunks, mtile = rest % mt, i = rest / mt;
  const uint32_t j0 = chunk * G, jn = q - j0 < uint32_t(G) ? q - j0 : uint32_t(G);
  const uint32_t m_begin = i * c + mtile * kLawBlockRows;
  const uint32_t m_count = c - mtile * kLawBlockRows < uint32_t(kLawBlockRows) ? c - mtile * kLawBlockRows
                                                                                : uint32_t(kLawBlockRows);
  const int tid = threadIdx.x;
  const T* X = static_cast<const T*>(g.A);
  for (int e = tid; e < (G + 1) * kLawBlockRows * XC; e += kLawBlockThreads) {
    const int slot = e / (kLawBlockRows * XC), m = (e / XC) % kLawBlockRows, ch = e % XC;
    const uint32_t grp = slot == 0 ? i : j0 + slot - 1;
    const bool ok = (slot == 0 || uint32_t(slot - 1) < jn) && uint32_t(m) < m_count && uint32_t(ch * 8) < s;
    const T* src = ok ? X + uint64_t(list_row(g, m_begin + m)) * g.lda + uint64_t(grp) * s + ch * 8 : X;
    cp_async16(sX + (slot * kLawBlockRows + m) * XP + ch * 8, src, ok);
  }
  for (int e = tid; e < 2 * NB * G * SP * WC; e += kLawBlockThreads) {
    const int ch = e % WC, kk = (e / WC) % SP, gg = (e / (WC * SP)) % G, b = (e / (WC * SP * G)) % NB,
              diag = e / (WC * SP * G * NB);
    const uint32_t j = j0 + gg, krow = (diag ? j : i) * s + kk;
    const bool ok = uint32_t(gg) < jn && uint32_t(kk) < s && uint32_t(ch * 8) < r;
    const T* W = static_cast<const T*>(b == 0 ? g.B0 : g.B1);
    const T* src = ok ? W + uint64_t(krow) * g.ldb + uint64_t(j) * r + ch * 8 : W;
    cp_async16(sW + (((diag * NB + b) * G + gg) * SP + kk) * WP + ch * 8, src, ok);
  }
  cp_async_commit();
  cp_async_wait<0>();
  __syncthreads();
  const int warp = tid / 32, lane = tid % 32, ms = (warp % 4) * 16;
  for (int gg = warp / 4; gg < int(jn); gg += kLawBlockThreads / 32 / 4) {
    const uint32_t j = j0 + gg;
    float acc[NB][RP / 8][4] = {};
    // x_i W_ij, then x_j W_jj (j != i): the diagonal's one term is not added twice (a zero block
    // would not do: 0 · Inf is NaN where the reference has Inf)
    for (int term = 0; term < (j == i ? 1 : 2); ++term) {
      const T* a = sX + (term == 0 ? 0 : 1 + gg) * kLawBlockRows * XP;
#pragma unroll
      for (int k16 = 0; k16 < SP; k16 += 16) {
        uint32_t af[4];
        ldmatrix_x4(af, a + (ms + lane % 16) * XP + k16 + (lane / 16) * 8);
#pragma unroll
        for (int b = 0; b < NB; ++b) {
          const T* w = sW + ((term * NB + b) * G + gg) * SP * WP;
#pragma unroll
          for (int np = 0; np < RP / 16; ++np) {
            uint32_t bf[4];
            ldmatrix_x4_trans(bf, w + (k16 + lane % 8 + ((lane / 8) % 2) * 8) * WP + np * 16 + (lane / 16) * 8);
            mma16816<T>(acc[b][2 * np], af, bf[0], bf[1]);
            mma16816<T>(acc[b][2 * np + 1], af, bf[2], bf[3]);
          }
        }
      }
    }
    // m16n8 accumulators: rows ms + lane / 4 (+ 8), columns 8 · nt + 2 · (lane % 4) (+ 1)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const uint32_t m = ms + lane / 4 + h * 8;
      if (m >= m_count) continue;
      T* C = static_cast<T*>(g.C) + uint64_t(list_row(g, m_begin + m)) * g.ldc + uint64_t(j) * r;
#pragma unroll
      for (int nt = 0; nt < RP / 8; ++nt) {
        const uint32_t n = nt * 8 + 2 * (lane % 4);
        if (n >= r) continue;
        float v0 = acc[0][nt][2 * h], v1 = acc[0][nt][2 * h + 1];
        if constexpr (EPI == kSiluMul) v0 = silu_mul(v0, acc[NB - 1][nt][2 * h]), v1 = silu_mul(v1, acc[NB - 1][nt][2 * h + 1]);
        *reinterpret_cast<uint32_t*>(C + n) = pack2<T>(v0, v1);
      }
    }
  }
}

std::atomic<bool> g_law_blocks{false};

template <typename T, int NB, int EPI, int SP, int RP>
void launch_shape(GemmArgs a, uint32_t q, uint32_t s, uint32_t r, uint32_t c, cudaStream_t stream) {
  using S = LawBlockShape<NB, SP, RP>;
  auto kernel = law_block_kernel<T, NB, EPI, SP, RP>;
  static const cudaError_t attr =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(S::kBytes));
  check_cuda(attr, "cudaFuncSetAttribute(law_block_kernel)");
  const uint64_t ctas = uint64_t(q) * ((c + kLawBlockRows - 1) / kLawBlockRows) * ((q + S::G - 1) / S::G);
  kernel<<<uint32_t(ctas), kLawBlockThreads, S::kBytes, stream>>>(a, q, s, r, c);
  check_cuda(cudaGetLastError(), "law_block_kernel launch");
}

template <typename T, int NB, int EPI>
void launch_widths(GemmArgs a, uint32_t q, uint32_t s, uint32_t r, uint32_t c, cudaStream_t stream) {
  if (s <= 32) {
    if (r <= 32) return launch_shape<T, NB, EPI, 32, 32>(a, q, s, r, c, stream);
    return launch_shape<T, NB, EPI, 32, 64>(a, q, s, r, c, stream);
  }
  if (r <= 32) return launch_shape<T, NB, EPI, 64, 32>(a, q, s, r, c, stream);
  return launch_shape<T, NB, EPI, 64, 64>(a, q, s, r, c, stream);
}

bool aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; }

}  // namespace

bool launch_law_block(const DeviceBatch& b, GemmArgs a, int matrices, DType dt, cudaStream_t stream) {
  if (!g_law_blocks || dt == DType::f32) return false;
  const KernelPlan& p = b.plan().plan();
  if (!diagonal_plus_row_law(p)) return false;
  const RowFormula& f = b.impl().formula;
  if (f.c == 0 || uint64_t(f.c) * p.q != b.rows()) return false;
  const uint32_t q = p.q, s = p.input_widths[0], r = p.output_widths[0];
  if (s % 8 != 0 || s > 64 || r % 8 != 0 || r > 64) return false;
  if (a.lda % 8 != 0 || a.ldb % 8 != 0 || a.ldc % 8 != 0 || !aligned16(a.A) || !aligned16(a.B0) || !aligned16(a.C) ||
      (matrices == 2 && !aligned16(a.B1)))
    return false;
  // the grid (q · row tiles · chunks of at least 2 groups) within a launch's 2^31 - 1 CTAs
  if (uint64_t(q) * ((f.c + kLawBlockRows - 1) / kLawBlockRows) * ((q + 1) / 2) >= (uint64_t(1) << 31)) return false;
  a.row_formula = f;
  if (dt == DType::bf16) {
    if (matrices == 2) launch_widths<__nv_bfloat16, 2, kSiluMul>(a, q, s, r, f.c, stream);
    else launch_widths<__nv_bfloat16, 1, kStore>(a, q, s, r, f.c, stream);
  } else {
    if (matrices == 2) launch_widths<__half, 2, kSiluMul>(a, q, s, r, f.c, stream);
    else launch_widths<__half, 1, kStore>(a, q, s, r, f.c, stream);
  }
  return true;
}

}  // namespace detail

void set_law_blocks(bool on) { detail::g_law_blocks = on; }
bool law_blocks_enabled() { return detail::g_law_blocks.load(); }

}  // namespace qalg::gpu
