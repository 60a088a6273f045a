// QALG_REFERENCE_GEMM: see reference_gemm.hpp for why the dense reference has two GEMMs.
#include "qalg/gpu/reference_gemm.hpp"

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace qalg::gpu {

ReferenceGemm parse_reference_gemm(std::string_view name) {
  if (name == "cublas") return ReferenceGemm::cublas;
  if (name == "plain") return ReferenceGemm::plain;
  throw std::invalid_argument("QALG_REFERENCE_GEMM: '" + std::string(name) +
                              "' is not a reference GEMM (cublas or plain)");
}

ReferenceGemm reference_gemm_from_env() {
  const char* v = std::getenv("QALG_REFERENCE_GEMM");
  return v && *v ? parse_reference_gemm(v) : ReferenceGemm::cublas;
}

}  // namespace qalg::gpu
