// GPU dense reference from the table (cuda_dense_reference.hpp): gather the rows of each type,
// materialise T_i(W) from the structure constants, GEMM in FP32 (cuBLAS, or the plain loop below),
// scatter back.
#include <cublas_v2.h>

#include <stdexcept>
#include <string>

#include "device_impl.hpp"
#include "launch_common.cuh"
#include "qalg/gpu/cuda_dense_reference.hpp"

namespace qalg::gpu {
using namespace detail;

namespace {

void check_cublas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuBLAS error in ") + what + ": " + std::to_string(int(s)));
}

template <typename T>
__global__ void gather_rows(const T* src, uint64_t cols, const uint32_t* rows, uint32_t n, T* dst) {
  for (uint64_t e = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; e < n * cols;
       e += uint64_t(gridDim.x) * blockDim.x)
    dst[e] = src[uint64_t(rows[e / cols]) * cols + e % cols];
}
__global__ void scatter_rows(const float* src, uint64_t cols, const uint32_t* rows, uint32_t n,
                             float* dst) {
  for (uint64_t e = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; e < n * cols;
       e += uint64_t(gridDim.x) * blockDim.x)
    dst[uint64_t(rows[e / cols]) * cols + e % cols] = src[e];
}
// dst block (dr0.., dc0..) of a ld-wide matrix += coef · src block (sr0.., sc0..), h × w.
template <typename TD, typename TS>
__global__ void add_block(TD* dst, const TS* src, uint64_t ld, uint64_t dr0, uint64_t dc0,
                          uint64_t sr0, uint64_t sc0, uint32_t h, uint32_t w, float coef) {
  for (uint64_t e = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; e < uint64_t(h) * w;
       e += uint64_t(gridDim.x) * blockDim.x) {
    const uint64_t r = e / w, c = e % w;
    TD& d = dst[(dr0 + r) * ld + dc0 + c];
    d = from_float<TD>(to_float(d) + coef * to_float(src[(sr0 + r) * ld + sc0 + c]));
  }
}

// out (m×n, row-major) = Σ_l A(i, l) · B(l, j) in FP32, A(i, l) = a[i·a_i + l·a_l] and
// B(l, j) = b[l·b_l + j·b_j] (the strides say which operand is transposed). One thread per output
// and no shared memory: slow, but racecheck has nothing to track in it (reference_gemm.hpp).
template <typename T>
__global__ void plain_gemm(const T* a, uint64_t a_i, uint64_t a_l, const T* b, uint64_t b_l,
                           uint64_t b_j, float* out, uint64_t m, uint64_t n, uint64_t k) {
  for (uint64_t e = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; e < m * n;
       e += uint64_t(gridDim.x) * blockDim.x) {
    const uint64_t i = e / n, j = e % n;
    float acc = 0.0f;
    for (uint64_t l = 0; l < k; ++l) acc += to_float(a[i * a_i + l * a_l]) * to_float(b[l * b_l + j * b_j]);
    out[e] = acc;
  }
}

cudaDataType cuda_type(DType t) {
  return t == DType::bf16 ? CUDA_R_16BF : t == DType::f16 ? CUDA_R_16F : CUDA_R_32F;
}
unsigned grid_for(uint64_t n) { return unsigned(std::min<uint64_t>((n + 255) / 256, 65535)); }

}  // namespace

struct CudaDenseReference::Impl {
  cublasHandle_t handle = nullptr;
  Impl() {
    check_cublas(cublasCreate(&handle), "cublasCreate");
    check_cublas(cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
  }
  ~Impl() { cublasDestroy(handle); }
};

CudaDenseReference::CudaDenseReference(const TableData& table, std::vector<uint32_t> in_w,
                                       std::vector<uint32_t> out_w, ReferenceGemm gemm)
    : gemm_(gemm), s_(std::move(in_w)), r_(std::move(out_w)), impl_(std::make_unique<Impl>()) {
  if (!table.slot_grid || table.slots.size() != table.dim)
    throw std::invalid_argument("CudaDenseReference: the table has no slot layout (slot_grid/slots)");
  q_ = *table.slot_grid;
  if (s_.size() != q_ || r_.size() != q_)
    throw std::invalid_argument("CudaDenseReference: expected " + std::to_string(q_) + " widths each");
  in_off_.assign(q_ + 1, 0);
  out_off_.assign(q_ + 1, 0);
  for (uint32_t g = 0; g < q_; ++g) in_off_[g + 1] = in_off_[g] + s_[g], out_off_[g + 1] = out_off_[g] + r_[g];
  blocks_.assign(q_, {});
  for (const TableEntry& e : table.entries) {
    if (e.num == 0) continue;
    if (e.i >= table.dim || e.j >= table.dim || e.k >= table.dim)
      throw std::invalid_argument("CudaDenseReference: table entry index out of range");
    const auto [ai, ak] = table.slots[e.i];
    const auto [bk, bj] = table.slots[e.j];
    const auto [mi, mj] = table.slots[e.k];
    if (ai != mi)
      throw std::invalid_argument("CudaDenseReference: product of basis " + std::to_string(e.i) +
                                  " and " + std::to_string(e.j) + " leaves row " + std::to_string(ai));
    if (s_[ak] != s_[bk] || r_[mj] != r_[bj])
      throw std::invalid_argument("CudaDenseReference: product of basis " + std::to_string(e.i) +
                                  " and " + std::to_string(e.j) + " joins blocks of different sizes");
    blocks_[ai].push_back(BlockTerm{ak, mj, bk, bj, float(double(e.num) / double(e.den))});
  }
}

CudaDenseReference::~CudaDenseReference() = default;

namespace {
std::vector<std::vector<uint32_t>> rows_by_type(const std::vector<uint32_t>& types, uint32_t q) {
  std::vector<std::vector<uint32_t>> rows(q);
  for (size_t p = 0; p < types.size(); ++p) {
    if (types[p] >= q) throw std::invalid_argument("CudaDenseReference: type id out of range at row " + std::to_string(p));
    rows[types[p]].push_back(uint32_t(p));
  }
  return rows;
}
}  // namespace

// Which product: forward Y_i = X_i T_i, dX_i = dY_i T_iᵀ, or G_i = X_iᵀ dY_i folded into dW.
enum class RefOp { forward, grad_x, grad_w };

static void run_reference(CudaDenseReference& ref, cublasHandle_t h, RefOp op,
                          const std::vector<uint32_t>& types, const DeviceMatrix& P,
                          const DeviceMatrix& Q, float* out, uint64_t K, uint64_t N,
                          const std::vector<uint64_t>& in_off, const std::vector<uint64_t>& out_off,
                          const std::vector<uint32_t>& s, const std::vector<uint32_t>& r) {
  const uint32_t q = ref.q();
  const DType dt = P.dtype;
  const size_t es = dtype_size(dt);
  const uint64_t M = types.size();
  auto rows = rows_by_type(types, q);
  // Scratch: rows of one type of both operands, one T_i, one FP32 product.
  void *Pi = nullptr, *Qi = nullptr, *T = nullptr;
  float* Oi = nullptr;
  const uint64_t pc = op == RefOp::grad_x ? N : K;      // columns of P (X or dY)
  const uint64_t qc = op == RefOp::grad_w ? N : 0;      // columns of Q rows (dY for dW)
  const uint64_t oc = op == RefOp::forward ? N : K;     // columns of the output rows
  check_cuda(cudaMalloc(&Pi, std::max<uint64_t>(1, M * pc * es)), "cudaMalloc");
  if (qc) check_cuda(cudaMalloc(&Qi, M * qc * es), "cudaMalloc");
  check_cuda(cudaMalloc(&T, K * N * (op == RefOp::grad_w ? 4 : es)), "cudaMalloc");
  if (op != RefOp::grad_w) check_cuda(cudaMalloc(&Oi, std::max<uint64_t>(1, M * oc * 4)), "cudaMalloc");
  // initcheck flagged every read of cuBLAS's output here (83,076 reports, all in scatter_rows after
  // cublasGemmEx, H200 2026-11-29); cuBLAS on sm_90 stores through TMA, which initcheck does not
  // appear to track. Zeroed once, so initcheck's reports point at qalg's kernels, not cuBLAS's.
  if (Oi) check_cuda(cudaMemset(Oi, 0, std::max<uint64_t>(1, M * oc * 4)), "cudaMemset");
  if (op == RefOp::grad_w) check_cuda(cudaMemset(T, 0, K * N * 4), "cudaMemset");
  if (op == RefOp::grad_w) check_cuda(cudaMemset(out, 0, K * N * 4), "cudaMemset");
  const float one = 1.0f, zero = 0.0f;
  for (uint32_t i = 0; i < q; ++i) {
    const uint32_t n = uint32_t(rows[i].size());
    if (n == 0) continue;
    DeviceBuffer<uint32_t> d_rows(rows[i]);
    dispatch_dtype(dt, [&](auto tag) {
      using E = decltype(tag);
      gather_rows<E><<<grid_for(n * pc), 256>>>(static_cast<const E*>(P.data), pc, d_rows.get(), n, static_cast<E*>(Pi));
      if (qc) gather_rows<E><<<grid_for(n * qc), 256>>>(static_cast<const E*>(Q.data), qc, d_rows.get(), n, static_cast<E*>(Qi));
      if (op != RefOp::grad_w) {  // T_i(W) in the input dtype
        check_cuda(cudaMemset(T, 0, K * N * es), "cudaMemset");
        for (const auto& b : ref.blocks(i))
          add_block<E, E><<<grid_for(uint64_t(s[b.dst_k]) * r[b.dst_j]), 256>>>(
              static_cast<E*>(T), static_cast<const E*>(Q.data), N, in_off[b.dst_k], out_off[b.dst_j],
              in_off[b.src_k], out_off[b.src_j], s[b.dst_k], r[b.dst_j], b.coef);
      }
    });
    check_cuda(cudaGetLastError(), "reference gather/materialise");
    const cudaDataType ct = cuda_type(dt);
    if (ref.gemm() == ReferenceGemm::plain) {
      dispatch_dtype(dt, [&](auto tag) {
        using E = decltype(tag);
        const E* p = static_cast<const E*>(Pi);
        if (op == RefOp::forward)  // Y_i (n×N) = X_i (n×K) T_i (K×N)
          plain_gemm<E><<<grid_for(n * N), 256>>>(p, K, 1, static_cast<const E*>(T), N, 1, Oi, n, N, K);
        else if (op == RefOp::grad_x)  // dX_i (n×K) = dY_i (n×N) T_iᵀ
          plain_gemm<E><<<grid_for(n * K), 256>>>(p, N, 1, static_cast<const E*>(T), 1, N, Oi, n, K, N);
        else  // G (K×N) = X_iᵀ (K×n) dY_i (n×N)
          plain_gemm<E><<<grid_for(K * N), 256>>>(p, 1, K, static_cast<const E*>(Qi), N, 1, static_cast<float*>(T), K, N, n);
      });
    } else if (op == RefOp::forward) {  // Y_i (n×N) = X_i (n×K) T_i (K×N)
      check_cublas(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, int(N), int(n), int(K), &one, T, ct, int(N), Pi, ct, int(K), &zero, Oi, CUDA_R_32F, int(N), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT), "cublasGemmEx(forward)");
    } else if (op == RefOp::grad_x) {  // dX_i (n×K) = dY_i (n×N) T_iᵀ
      check_cublas(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, int(K), int(n), int(N), &one, T, ct, int(N), Pi, ct, int(N), &zero, Oi, CUDA_R_32F, int(K), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT), "cublasGemmEx(grad_x)");
    } else {  // G (K×N) = X_iᵀ dY_i
      check_cublas(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_T, int(N), int(K), int(n), &one, Qi, ct, int(N), Pi, ct, int(K), &zero, T, CUDA_R_32F, int(N), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT), "cublasGemmEx(grad_w)");
    }
    if (op == RefOp::grad_w) {  // dW block (src) += c · G block (dst)
      for (const auto& b : ref.blocks(i))
        add_block<float, float><<<grid_for(uint64_t(s[b.dst_k]) * r[b.dst_j]), 256>>>(
            out, static_cast<const float*>(T), N, in_off[b.src_k], out_off[b.src_j], in_off[b.dst_k],
            out_off[b.dst_j], s[b.dst_k], r[b.dst_j], b.coef);
    }
    if (op != RefOp::grad_w) scatter_rows<<<grid_for(n * oc), 256>>>(Oi, oc, d_rows.get(), n, out);
    check_cuda(cudaGetLastError(), "reference scatter");
    check_cuda(cudaDeviceSynchronize(), "reference");
  }
  cudaFree(Pi);
  if (Qi) cudaFree(Qi);
  cudaFree(T);
  if (Oi) cudaFree(Oi);
}

void CudaDenseReference::forward(const std::vector<uint32_t>& types, const DeviceMatrix& X,
                             const DeviceMatrix& W, float* Y) {
  run_reference(*this, impl_->handle, RefOp::forward, types, X, W, Y, in_off_[q_], out_off_[q_], in_off_, out_off_, s_, r_);
}
void CudaDenseReference::grad_x(const std::vector<uint32_t>& types, const DeviceMatrix& dY,
                            const DeviceMatrix& W, float* dX) {
  run_reference(*this, impl_->handle, RefOp::grad_x, types, dY, W, dX, in_off_[q_], out_off_[q_], in_off_, out_off_, s_, r_);
}
void CudaDenseReference::grad_w(const std::vector<uint32_t>& types, const DeviceMatrix& X,
                            const DeviceMatrix& dY, float* dW) {
  run_reference(*this, impl_->handle, RefOp::grad_w, types, X, dY, dW, in_off_[q_], out_off_[q_], in_off_, out_off_, s_, r_);
}

}  // namespace qalg::gpu
