#pragma once
// The files `qalg export` copies into a kernel package, embedded into the binary at build time
// (export/embed_files.cmake): kernel sources of gpu/ and the package templates of
// export/templates/, each under its repository path.
#include <string_view>
#include <vector>

namespace qalg::exporter {

struct EmbeddedFile {
  std::string_view path;  // repository-relative, e.g. "gpu/cuda/tc_gemm.cuh"
  std::string_view text;
};

const std::vector<EmbeddedFile>& embedded_files();

}  // namespace qalg::exporter
