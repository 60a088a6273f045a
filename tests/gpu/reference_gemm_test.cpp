// QALG_REFERENCE_GEMM (reference_gemm.hpp): the two names parse, anything else is refused with a
// message naming the value, and the environment decides with cuBLAS where it is unset or empty.
#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "qalg/gpu/reference_gemm.hpp"

namespace {
using qalg::gpu::ReferenceGemm;

TEST(ReferenceGemm, ParsesItsTwoNames) {
  EXPECT_EQ(qalg::gpu::parse_reference_gemm("cublas"), ReferenceGemm::cublas);
  EXPECT_EQ(qalg::gpu::parse_reference_gemm("plain"), ReferenceGemm::plain);
}

TEST(ReferenceGemm, RefusesOtherNamesByName) {
  for (const char* bad : {"Plain", "cuBLAS", "plain ", "naive", "1"}) {
    try {
      qalg::gpu::parse_reference_gemm(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("QALG_REFERENCE_GEMM"), std::string::npos) << e.what();
    }
  }
}

// Restores QALG_REFERENCE_GEMM as it was, so that the other tests in the binary see the caller's.
struct EnvGuard {
  std::string saved;
  bool had;
  EnvGuard() : had(std::getenv("QALG_REFERENCE_GEMM") != nullptr) {
    if (had) saved = std::getenv("QALG_REFERENCE_GEMM");
  }
  ~EnvGuard() { had ? setenv("QALG_REFERENCE_GEMM", saved.c_str(), 1) : unsetenv("QALG_REFERENCE_GEMM"); }
};

TEST(ReferenceGemm, EnvironmentChoosesCublasUnlessSet) {
  EnvGuard guard;
  unsetenv("QALG_REFERENCE_GEMM");
  EXPECT_EQ(qalg::gpu::reference_gemm_from_env(), ReferenceGemm::cublas);
  setenv("QALG_REFERENCE_GEMM", "", 1);
  EXPECT_EQ(qalg::gpu::reference_gemm_from_env(), ReferenceGemm::cublas);
  setenv("QALG_REFERENCE_GEMM", "plain", 1);
  EXPECT_EQ(qalg::gpu::reference_gemm_from_env(), ReferenceGemm::plain);
  setenv("QALG_REFERENCE_GEMM", "tiled", 1);
  EXPECT_THROW(qalg::gpu::reference_gemm_from_env(), std::invalid_argument);
}

}  // namespace
