#pragma once
// Host/device shared records of the CUDA kernels: a tile of work and one term of its sum.
// A work item is one output tile (m rows × n columns) and the list of terms summed into it
// (SPEC §4 B(i, j) for forward, its transpose for dX, the types that use a block for dW).
#include <cstddef>
#include <cstdint>
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
  uint32_t pad = 0;
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

enum GemmMode : int { kForward = 0, kGradX = 1, kGradW = 2 };
enum Epilogue : int { kStore = 0, kStoreF32 = 1, kDiagAdd = 2, kSiluMul = 3 };

// Kernel arguments (by value). Leading dimensions in elements.
struct GemmArgs {
  const WorkItem* items = nullptr;
  const Term* terms = nullptr;
  const uint32_t* rows = nullptr;  // grouped row list (rows of type 0, then type 1, ...)
  const void* A = nullptr;
  uint64_t lda = 0;
  const void* B0 = nullptr;
  const void* B1 = nullptr;  // the up projection of a gated FFN (kSiluMul)
  uint64_t ldb = 0;
  void* C = nullptr;
  uint64_t ldc = 0;
  const float* ws = nullptr;  // diagonal-first: x_j W_jj for every row, FP32, ld = ldc
};

}  // namespace qalg::gpu::detail
