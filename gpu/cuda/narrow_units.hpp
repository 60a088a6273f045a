#pragma once
// Which (group, piece) units a CTA of the narrow-group law kernel takes, and in what order. Shared
// by the kernel (narrow_law.cuh) and a CPU test (tests/gpu/narrow_run_test.cpp), so plain integers.
//
// A type's row block owns `total` units (q · pieces, in column order); `runs` CTAs share them, at
// most `run` units each. Contiguous order (the default): CTA c takes units c · run … c · run + run − 1.
// Strided order (set_narrow_unit_order, twenty-eighth session; slower, twenty-ninth session): the units go in boxes
// of 2^bs consecutive units (a pair of groups stored by one TMA box, or a group's pieces) and CTA c
// takes boxes c, c + runs, c + 2 · runs, …; so at its n-th unit every CTA of the row block is at the
// same box step, and together they write one contiguous stretch of Y's rows (runs · 2^bs units:
// 3200 bytes per row at Qwen3-32B M = 32768) instead of `runs` row runs of 200-400 bytes spaced a
// run apart. Why: the kernel's two wide rows reach 0.57 of the copy bandwidth with every unit's Y
// and W traffic in such short row runs at a 51 200-byte pitch; if that is the DRAM's access pattern
// (the bench suite `segments` decides), the strided order lets the L2 write back whole stretches.
#include <cstdint>

#if defined(__CUDACC__)
#define QALG_NARROW_HD __host__ __device__ __forceinline__
#else
#define QALG_NARROW_HD inline
#endif

namespace qalg::gpu::detail {

// Either order as one formula without a branch (so that the kernel keeps one register for it,
// the CTA's base, as it kept the run's start): unit n of CTA c is
//   c · base_step + (n >> shift) · stride + (n & mask),
// contiguous: base_step = run, stride 1, shift 0, mask 0 (c · run + n); strided: base_step = 2^bs,
// stride = runs · 2^bs, shift bs, mask 2^bs − 1.
struct NarrowOrder {
  uint32_t base_step = 1, stride = 1, shift = 0, mask = 0;
};
QALG_NARROW_HD NarrowOrder narrow_order(uint32_t run, uint32_t runs, uint32_t bs, uint32_t strided) {
  NarrowOrder o;
  if (strided) o.base_step = 1u << bs, o.stride = runs << bs, o.shift = bs, o.mask = (1u << bs) - 1u;
  else o.base_step = run;
  return o;
}
// The n-th unit of the CTA whose base is c · o.base_step (n below narrow_unit_count).
QALG_NARROW_HD uint32_t narrow_unit_at(uint32_t n, uint32_t base, const NarrowOrder& o) {
  return base + (n >> o.shift) * o.stride + (n & o.mask);
}
// The same for CTA c, from the order's parameters.
QALG_NARROW_HD uint32_t narrow_unit(uint32_t n, uint32_t c, uint32_t run, uint32_t runs, uint32_t bs, uint32_t strided) {
  const NarrowOrder o = narrow_order(run, runs, bs, strided);
  return narrow_unit_at(n, c * o.base_step, o);
}

// How many units CTA c takes (c < runs = ceil(total / run); strided: run and total multiples of 2^bs).
QALG_NARROW_HD uint32_t narrow_unit_count(uint32_t total, uint32_t c, uint32_t run, uint32_t runs, uint32_t bs,
                                          uint32_t strided) {
  if (!strided) return c * run < total ? (run < total - c * run ? run : total - c * run) : 0u;
  const uint32_t boxes = total >> bs, per = run >> bs;
  if (c >= boxes) return 0u;
  const uint32_t mine = (boxes - c + runs - 1) / runs;
  return (mine < per ? mine : per) << bs;
}

// Whether the strided order applies to (total, run) with boxes of 2^bs units: both multiples of
// the box, and more than one CTA per row block (else the orders are the same).
QALG_NARROW_HD bool narrow_strided_fits(uint32_t total, uint32_t run, uint32_t bs) {
  const uint32_t box = 1u << bs;
  return bs < 8 && run % box == 0 && total % box == 0 && run < total;
}

// The box of the strided order as a shift: the units one output box holds (TMA stores: a pair of
// groups, tma_groups = 2 with one piece each, or a group's pieces), else a group's pieces (kept
// together: they read the same x_j); -1 where that is not a power of two (then the runs stay).
QALG_NARROW_HD int narrow_box_shift(bool ts, uint32_t tma_groups, uint32_t pieces) {
  const uint32_t box = (ts ? tma_groups : 1u) * pieces;
  for (int bs = 0; bs < 8; ++bs)
    if ((1u << bs) == box) return bs;
  return -1;
}

}  // namespace qalg::gpu::detail
