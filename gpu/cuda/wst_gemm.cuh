#pragma once
// Warp-specialised Hopper forward kernel over GROUPS of row types (issue 7), engine `wt`.
// Why: Nsight Compute put the `ws` kernel (wgs_gemm.cuh, one 64-row item per consumer) at 69 % of
// the L2's throughput, L2-bound. For Qwen3-8B at q = 32 a third of its L2→SM bytes were W_jj
// tiles re-read once per row type, and another third x rows re-read once per column tile. Here a
// CTA takes G items of one (output group j, column tile), i.e. G row types, one consumer
// warpgroup each, and walks the DISTINCT W blocks of their terms (work_list.hpp group_items,
// built on the host): a block that several of the G items use (x_j W_jj for every type; all
// blocks for two items of one type) is loaded once and multiplied by every warpgroup that uses
// it, each with its own gathered x rows. With G = 2 and 256 columns the L2→SM traffic per output
// is 2/3 of `ws64x128`'s.
//   producer (the last warp): per group, each 64-deep step of each block: one W tile by TMA, the
//     x rows of each using warpgroup by cp.async, a stage header with the mask of warpgroups that
//     multiply it. The next group's record, rows and blocks are loaded while this one's stages
//     are issued (a first version that derived the blocks on the device, with dependent loads of
//     terms, was 1.6x slower than `ws`: the producer is the critical path).
//   consumers: wgmma on the steps in their mask; a consumer that skips a stage first releases the
//     stage it still holds (else a long skip could leave the producer waiting on it for ever)
#include "wgs_gemm.cuh"

namespace qalg::gpu::detail {

template <int G>
struct GroupStageHeader {
  uint32_t flags;                         // kDone
  uint32_t mask, first_mask, last_mask;  // warpgroups that multiply / start / finish at this stage
  uint32_t zero_mask;                     // warpgroups with rows but no terms: store zeros
  uint32_t n_begin, n_count;
  uint32_t m_begin[G], m_count[G];
  float coef[G];
};

template <int G, int BN, int STAGES>
constexpr size_t wst_smem_bytes() {
  return STAGES * (wg_stage_bytes<G * 64, BN>() + 2 * sizeof(uint64_t) + sizeof(GroupStageHeader<G>)) +
         G * 64 * sizeof(int32_t) + 1024;
}

// Lane k's copy of block k of a group (k < 32), or an empty one.
__device__ __forceinline__ GroupBlock lane_block(const GemmArgs& g, const ItemGroup& gr, int lane) {
  return uint32_t(lane) < gr.block_count ? g.blocks[gr.block_begin + lane] : GroupBlock{};
}
// Block k of a group: from lane k's register copy (k < 32) or memory.
template <int G>
__device__ __forceinline__ GroupBlock block_at(const GemmArgs& g, const ItemGroup& gr, const GroupBlock& mine,
                                               uint32_t k) {
  if (k >= 32) return g.blocks[gr.block_begin + k];
  GroupBlock b;
  b.a = __shfl_sync(~0u, mine.a, k), b.len = __shfl_sync(~0u, mine.len, k);
  b.mask = __shfl_sync(~0u, mine.mask, k), b.first_mask = __shfl_sync(~0u, mine.first_mask, k);
  b.last_mask = __shfl_sync(~0u, mine.last_mask, k);
#pragma unroll
  for (int i = 0; i < G; ++i) b.coef[i] = __shfl_sync(~0u, mine.coef[i], k);
  return b;
}

// Forward only (A = gathered rows of X, K-major; B = W, N-major). g.groups / g.blocks: `count`
// groups (work_list.hpp). MINB: CTAs per SM the register allocation must allow.
template <typename T, int G, int BN, int STAGES, int MINB>
__global__ void __launch_bounds__(G * 128 + 32, MINB)
    wst_forward_kernel(GemmArgs g, uint32_t count, uint32_t K, const __grid_constant__ CUtensorMap tmap64,
                       const __grid_constant__ CUtensorMap tmap8) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __trap();
#endif
  constexpr int R = BN / 2, BM = G * 64;
  constexpr uint32_t kStage = wg_stage_bytes<BM, BN>(), kABytes = BM * 128;
  using Header = GroupStageHeader<G>;
  extern __shared__ unsigned char wst_smem_raw[];
  unsigned char* smem = wst_smem_raw + ((1024u - (smem_addr(wst_smem_raw) & 1023u)) & 1023u);
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + STAGES * kStage);
  uint64_t* empty = full + STAGES;
  Header* header = reinterpret_cast<Header*>(empty + STAGES);
  // The producer's gathered rows of the current group (item g's row r at [64 g + r], −1 past its
  // end): in shared memory, not registers, so that the consumers keep the register file.
  int32_t* group_rows = reinterpret_cast<int32_t*>(header + STAGES);
  constexpr int kConsumers = G * 128;
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(&full[s], 1 + 32);  // the producer's expect_tx arrival + 32 cp.async arrivals
      mbar_init(&empty[s], kConsumers);
    }
    mbar_init_fence();
  }
  __syncthreads();

  // The role through a shuffle (kConsumers is a multiple of 32: every lane holds lane 0's value), so
  // ptxas can tell the branch is warp-uniform, as CUTLASS's canonical_warp_group_idx does: with a
  // plain threadIdx test it serialised every wgmma of the consumers (ptxas C7518, "WG.DP in
  // divergent path"; seen in the fifth session's build log, in every wgs and wst instantiation).
  if (__shfl_sync(0xffffffffu, threadIdx.x >= kConsumers, 0)) {  // ---- producer warp ----
    const int lane = threadIdx.x % 32;
    const T* A = static_cast<const T*>(g.A);
    uint32_t stage = 0, phase = 0;
    auto begin_stage = [&](const Header& h) {
      mbar_wait(&empty[stage], phase ^ 1);
      if (lane == 0) header[stage] = h;
    };
    auto finish_stage = [&]() {
      cp_async_arrive(&full[stage]);
      if (++stage == STAGES) stage = 0, phase ^= 1;
    };
    // Lane l holds rows l and l + 32 of each item of a group.
    auto load_rows = [&](const ItemGroup& gr, int32_t (&r)[G][2]) {
#pragma unroll
      for (int gi = 0; gi < G; ++gi)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const uint32_t m = lane + 32 * h;
          r[gi][h] = m < gr.m_count[gi] ? int32_t(g.rows[gr.m_begin[gi] + m]) : -1;
        }
    };
    const uint32_t stride = gridDim.x;
    ItemGroup cur = blockIdx.x < count ? g.groups[blockIdx.x] : ItemGroup{};
    int32_t rows_next[G][2];
    load_rows(cur, rows_next);
    GroupBlock blk_next = lane_block(g, cur, lane);
#pragma unroll 1
    for (uint32_t c = blockIdx.x; c < count; c += stride) {
      __syncwarp();  // the previous group's steps have read group_rows
#pragma unroll
      for (int gi = 0; gi < G; ++gi)
#pragma unroll
        for (int h = 0; h < 2; ++h) group_rows[gi * 64 + lane + 32 * h] = rows_next[gi][h];
      __syncwarp();
      const GroupBlock mine = blk_next;
      const ItemGroup nxt = c + stride < count ? g.groups[c + stride] : ItemGroup{};
      bool prefetched = false;
      Header h{};
      h.n_begin = cur.n_begin, h.n_count = cur.n_count;
#pragma unroll
      for (int gi = 0; gi < G; ++gi) h.m_begin[gi] = cur.m_begin[gi], h.m_count[gi] = cur.m_count[gi];
#pragma unroll 1
      for (uint32_t k = 0; k < cur.block_count; ++k) {
        const GroupBlock b = block_at<G>(g, cur, mine, k);
        if (b.len == 0) {  // items with rows and no terms: one empty stage on which they store zeros
          h.mask = h.first_mask = h.last_mask = 0, h.zero_mask = b.first_mask;
          begin_stage(h);
          if (lane == 0) mbar_arrive_expect_tx(&full[stage], 0);
          finish_stage();
          continue;
        }
        h.mask = b.mask, h.zero_mask = 0;
#pragma unroll
        for (int gi = 0; gi < G; ++gi) h.coef[gi] = b.coef[gi];
#pragma unroll 1
        for (uint32_t kk = 0; kk < b.len; kk += kWgBK) {
          h.first_mask = kk == 0 ? b.first_mask : 0;
          h.last_mask = kk + kWgBK >= b.len ? b.last_mask : 0;
          begin_stage(h);
          unsigned char* sA = smem + stage * kStage;
          if (lane == 0) mbar_arrive_expect_tx(&full[stage], BN * kWgBK * 2);
          if (lane < BN / 64)  // one lane per 64-column block of the W tile
            tma_w_block(sA + kABytes + lane * kWgChunk, &tmap64, &tmap8, int32_t(h.n_begin + lane * 64), b.a + kk,
                        b.len - kk, K, &full[stage]);
#pragma unroll
          for (int gi = 0; gi < G; ++gi) {
            if (!(b.mask >> gi & 1)) continue;
#pragma unroll
            for (int i = 0; i < 16; ++i) {  // chunk lane % 8 of rows lane / 8 + 4 i
              const uint32_t r = lane / 8 + 4 * i, kc = lane % 8;
              const int32_t row = group_rows[gi * 64 + r];
              const bool ok = row >= 0 && kk + kc * 8 < b.len;
              cp_async16(sA + swz128(gi * 64 + r, kc), ok ? A + int64_t(row) * int64_t(g.lda) + b.a + kk + kc * 8 : A,
                         ok);
            }
          }
          finish_stage();
          if (!prefetched) {  // the next group's rows and blocks load while this group's stages wait
            load_rows(nxt, rows_next);
            blk_next = lane_block(g, nxt, lane);
            prefetched = true;
          }
        }
      }
      if (!prefetched) load_rows(nxt, rows_next), blk_next = lane_block(g, nxt, lane);
      cur = nxt;
    }
    Header done{};
    done.flags = kDone;
    begin_stage(done);
    if (lane == 0) mbar_arrive_expect_tx(&full[stage], 0);
    finish_stage();
    cp_async_wait<0>();
    return;
  }

  // ---- consumer warpgroups: warpgroup wg multiplies item wg of each group ----
  // wg by a shuffle too: the branches on this warpgroup's bit of a mask are then warp-uniform to
  // ptxas (without it: C7518, every wgmma serialised).
  const int wg = __shfl_sync(0xffffffffu, threadIdx.x / 128, 0), lane = threadIdx.x % 32,
            warp = (threadIdx.x % 128) / 32;
  const uint32_t m0 = warp * 16 + lane / 4, m1 = m0 + 8;
  const uint32_t smem_base = smem_addr(smem);
  float acc[R];
  uint32_t stage = 0, phase = 0, prev = 0;
  bool have_prev = false, first = true;
  float coef = 1.0f;
  uint32_t m_count = 0;
  uint64_t row0 = 0, row1 = 0;
  auto rows_of = [&](const Header& h) {  // rows of this thread's two outputs
    m_count = h.m_count[wg];
    row0 = m0 < m_count ? g.rows[h.m_begin[wg] + m0] : 0;
    row1 = m1 < m_count ? g.rows[h.m_begin[wg] + m1] : 0;
  };
#pragma unroll 1
  while (true) {
    mbar_wait(&full[stage], phase);
    const Header& hs = header[stage];
    // Both paths below that leave the wgmma pipeline wait first: ptxas otherwise cannot prove that
    // no wgmma is in flight there (the zero store reads the accumulator registers, if only to
    // discard them) and injects "warpgroup.wait 0" before every step (C7517; see wgs_gemm.cuh).
    if (hs.flags & kDone) {
      wgmma_wait<0>();
      break;
    }
    const uint32_t bit = 1u << wg;
    if (!(hs.mask & bit)) {
      if (have_prev) wgmma_wait<0>(), mbar_arrive(&empty[prev]), have_prev = false;
      if (hs.zero_mask & bit) {
        wgmma_wait<0>();
        rows_of(hs);
        store_fragments<T, BN>(acc, g.C, g.ldc, row0, row1, m0 < m_count, m1 < m_count, hs.n_begin, hs.n_count,
                               1.0f, true);
      }
      mbar_arrive(&empty[stage]);
    } else {
      const float c = hs.coef[wg];
      const bool last = hs.last_mask & bit;
      const uint32_t n_begin = hs.n_begin, n_count = hs.n_count;
      if (hs.first_mask & bit) {
        rows_of(hs);
        first = true;
        coef = c;
      } else if (c != coef) {
        rescale_accumulators(acc, coef, c);
      }
      fence_proxy_async();
      const uint32_t sa = smem_base + stage * kStage, sb = sa + kABytes;
      forward_step<T, BN>(acc, sa + wg * 64 * 128, sb, first);
      first = false;
      wgmma_wait<1>();
      if (have_prev) mbar_arrive(&empty[prev]);
      prev = stage, have_prev = true;
      if (last) {
        wgmma_wait<0>();
        fence_operands(acc);
        mbar_arrive(&empty[prev]), have_prev = false;
        store_fragments<T, BN>(acc, g.C, g.ldc, row0, row1, m0 < m_count, m1 < m_count, n_begin, n_count, coef,
                               false);
      }
    }
    if (++stage == STAGES) stage = 0, phase ^= 1;
  }
}

}  // namespace qalg::gpu::detail
