// The example consumer (examples/consumer_cmake) configures and compiles against an exported
// package, both ways (issue 8): find_package after `cmake --install`, and add_subdirectory. The
// package's own build (kernels + conformance test) compiles too. Only the consumer's calibration
// loading runs (it needs no GPU); the forward pass needs one.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "export_support.hpp"

namespace fs = std::filesystem;
using namespace qalg::export_test;

TEST(ConsumerProject, ConfiguresAndCompilesAgainstAnExport) {
  if (shell("command -v nvcc || test -x /usr/local/cuda/bin/nvcc || test -n \"$CUDACXX\"").exit_code != 0)
    GTEST_SKIP() << "no CUDA compiler (nvcc): the package cannot be compiled here";
  const fs::path pkg = scratch("consumer_pkg"), build = scratch("consumer_pkg_build"),
                 prefix = scratch("consumer_prefix"), by_find = scratch("consumer_find"),
                 by_subdir = scratch("consumer_subdir");
  for (const fs::path& p : {pkg, build, prefix, by_find, by_subdir}) fs::remove_all(p);
  CommandRun r = qalg_command("export complete:3 --widths 16,8,24 --output-widths 8,16,8 --out " + pkg.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string consumer = std::string(QALG_SOURCE_DIR) + "/examples/consumer_cmake";

  r = shell("cmake -S " + pkg.string() + " -B " + build.string() + " -DCMAKE_BUILD_TYPE=Release && cmake --build " +
            build.string() + " -j2 && cmake --install " + build.string() + " --prefix " + prefix.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(build / "qalg_kernels_conformance")) << r.output;
  EXPECT_TRUE(fs::exists(prefix / "lib/cmake/qalg_kernels/qalg_kernelsConfig.cmake"));
  EXPECT_TRUE(fs::exists(prefix / "share/qalg_kernels/certificate.json"));

  r = shell("cmake -S " + consumer + " -B " + by_find.string() + " -DCMAKE_PREFIX_PATH=" + prefix.string() +
            " && cmake --build " + by_find.string() + " -j2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(by_find / "consumer")) << r.output;

  // The installed calibration (results/gpu/calibration.csv, one row per benchmarked shape) loads
  // through the package API without a GPU; a malformed copy is refused with its file and line.
  const fs::path installed = prefix / "share/qalg_kernels/calibration.csv";
  ASSERT_TRUE(fs::exists(installed));
  size_t rows = 0;
  {
    std::ifstream in(std::string(QALG_SOURCE_DIR) + "/results/gpu/calibration.csv");
    for (std::string line; std::getline(in, line);) rows += !line.empty() && line.rfind("K,", 0) != 0;
  }
  r = shell((by_find / "consumer").string() + " 97 --calibration " + installed.string());
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 2) << r.output;  // 2: no GPU to run the forward
  EXPECT_NE(r.output.find("calibration " + installed.string() + ": " + std::to_string(rows) + " rows"),
            std::string::npos)
      << r.output;
  const fs::path bad = scratch("consumer_bad_calibration.csv");
  {
    std::ofstream out(bad);
    out << "K,N,q,M,schedule,bm,bn,warps,engine\n4096,12288,32,2048,endpoint-fused,64,192,5,tensorcore\n";
  }
  r = shell((by_find / "consumer").string() + " 97 --calibration " + bad.string());
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find(bad.string() + ":2: engine must be"), std::string::npos) << r.output;
  fs::remove(bad);

  // add_subdirectory: configure, then compile the consumer's own source (the kernels were
  // compiled above from the same files).
  // (The Makefile generator's per-object target main.cpp.o compiles one file without the
  // target's dependencies.)
  r = shell("cmake -G 'Unix Makefiles' -S " + consumer + " -B " + by_subdir.string() + " -DQALG_KERNELS_DIR=" +
            pkg.string() + " && cmake --build " + by_subdir.string() + " --target main.cpp.o");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(by_subdir / "CMakeFiles/consumer.dir/main.cpp.o")) << r.output;
  for (const fs::path& p : {pkg, build, prefix, by_find, by_subdir}) fs::remove_all(p);
}
