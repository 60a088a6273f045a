// SHA-256 through OpenSSL's EVP interface when available (table_hash.hpp).
#include "table_hash.hpp"

#ifdef QALG_GPU_HAVE_OPENSSL
#include <openssl/evp.h>
#endif

#include <cstdio>

namespace qalg::gpu {

std::string canonical_table_hash([[maybe_unused]] const nlohmann::json& table) {
#ifdef QALG_GPU_HAVE_OPENSSL
  std::string bytes = table.dump();
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), md, &len, EVP_sha256(), nullptr) != 1) return "";
  std::string hex;
  char buf[3];
  for (unsigned int b = 0; b < len; ++b) {
    std::snprintf(buf, sizeof buf, "%02x", md[b]);
    hex += buf;
  }
  return hex;
#else
  return "";
#endif
}

}  // namespace qalg::gpu
