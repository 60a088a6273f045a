// Exported packages in other CMake projects (issue 8): the example consumers configure, compile and
// link against packages both ways — add_subdirectory, and find_package after `cmake --install` —
// with three packages of different shapes and names in one project (the default-named one of
// examples/consumer_cmake, and examples/consumer_ffn's ffn_up and ffn_down), whose shared kernel
// runtime is compiled once. Packages from different qalg versions (different runtime hashes) are
// refused at configure and install time. Only what needs no GPU runs (calibration loading, the
// shapes); the forward passes need one.
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "export_support.hpp"

namespace fs = std::filesystem;
using namespace qalg::export_test;

namespace {

bool have_nvcc() {
  return shell("command -v nvcc || test -x /usr/local/cuda/bin/nvcc || test -n \"$CUDACXX\"").exit_code == 0;
}

void write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

std::string consumer_dir(const std::string& example) { return std::string(QALG_SOURCE_DIR) + "/examples/" + example; }

std::string runtime_sha256(const fs::path& package) {
  const std::string text = read_text(package / "cmake/qalg_package.cmake");
  const size_t at = text.find("QALG_RUNTIME_SHA256 ") + 20;
  return text.substr(at, 64);
}

// `text` with its first `from` replaced by `to` (the test's tampering; fails when absent).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

// CMake's output with every run of whitespace made one space: message(FATAL_ERROR) wraps its text.
std::string flat(const std::string& output) {
  std::string out;
  for (char c : output) {
    const bool space = c == ' ' || c == '\n' || c == '\t';
    if (!space) out += c;
    else if (!out.empty() && out.back() != ' ') out += ' ';
  }
  return out;
}

}  // namespace

TEST(ConsumerProject, ThreePackagesBuildInstallAndAreFoundTogether) {
  if (!have_nvcc()) GTEST_SKIP() << "no CUDA compiler (nvcc): the packages cannot be compiled here";
  const fs::path pkg = scratch("consumer_pkg"), up = scratch("consumer_up"), down = scratch("consumer_down"),
                 top = scratch("consumer_top"), build = scratch("consumer_top_build"), prefix = scratch("consumer_prefix"),
                 prefix2 = scratch("consumer_prefix2"), by_find = scratch("consumer_find"),
                 ffn_find = scratch("consumer_ffn_find"), by_subdir = scratch("consumer_subdir"),
                 standalone = scratch("consumer_standalone");
  const fs::path all[] = {pkg, up, down, top, build, prefix, prefix2, by_find, ffn_find, by_subdir, standalone};
  for (const fs::path& p : all) fs::remove_all(p);
  CommandRun r = qalg_command("export complete:3 --widths 16,8,24 --output-widths 8,16,8 --out " + pkg.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // A gated FFN's projections: up K = 24 -> N = 32, down 32 -> 24.
  r = qalg_command("export complete:2 --widths 8,16 --output-widths 24,8 --name ffn_up --out " + up.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = qalg_command("export complete:2 --widths 24,8 --output-widths 8,16 --name ffn_down --out " + down.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;

  // One project, three packages by add_subdirectory (the default-named one with its conformance
  // test; examples/consumer_ffn adds ffn_up and ffn_down). The whole CUDA runtime compiles once.
  write_file(top / "CMakeLists.txt", "cmake_minimum_required(VERSION 3.22)\nproject(three_packages LANGUAGES CXX)\n"
                                     "add_subdirectory(" + pkg.string() + " qalg_kernels)\n"
                                     "add_subdirectory(" + consumer_dir("consumer_ffn") + " consumer_ffn)\n");
  r = shell("cmake -G 'Unix Makefiles' -S " + top.string() + " -B " + build.string() +
            " -DCMAKE_BUILD_TYPE=Release -DQALG_KERNELS_CONFORMANCE=ON -DQALG_FFN_UP_DIR=" + up.string() +
            " -DQALG_FFN_DOWN_DIR=" + down.string() + " && cmake --build " + build.string() +
            " -j2 --target consumer_ffn qalg_kernels_conformance ffn_down_conformance && cmake --install " +
            build.string() + " --prefix " + prefix.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(build / "qalg_kernels/qalg_kernels_conformance")) << r.output;
  EXPECT_TRUE(fs::exists(build / "consumer_ffn/ffn_down/ffn_down_conformance")) << r.output;
  EXPECT_TRUE(fs::exists(build / "qalg_kernels/libqalg_kernels_runtime.a"));  // the first package made it
  EXPECT_FALSE(fs::exists(build / "consumer_ffn/ffn_up/libqalg_kernels_runtime.a"));
  EXPECT_FALSE(fs::exists(build / "consumer_ffn/ffn_down/libqalg_kernels_runtime.a"));
  // Both plans in one binary: each namespace answers with its own shape.
  const std::string shapes = "consumer_ffn: ffn_up complete:2 over Q, K = 24, N = 32; ffn_down complete:2 over Q, K = 32, N = 24";
  r = shell((build / "consumer_ffn/consumer_ffn").string());
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 2) << r.output;  // 2: no GPU to run the forward
  EXPECT_NE(r.output.find(shapes), std::string::npos) << r.output;
  for (const char* f : {"lib/cmake/qalg_kernels/qalg_kernelsConfig.cmake", "lib/cmake/ffn_up/ffn_upConfig.cmake",
                        "lib/cmake/ffn_down/ffn_downTargets.cmake", "lib/cmake/qalg_kernels_runtime/qalg_kernels_runtimeTargets.cmake",
                        "lib/libqalg_kernels_runtime.a", "lib/libffn_up.a", "include/ffn_down/plan_data.hpp",
                        "include/qalg/gpu/kernels.hpp", "share/qalg_kernels/certificate.json", "share/ffn_up/plan.json"})
    EXPECT_TRUE(fs::exists(prefix / f)) << f;
  EXPECT_EQ(read_text(prefix / "lib/cmake/qalg_kernels_runtime/runtime.sha256"), runtime_sha256(up) + "\n");

  // find_package of the default name keeps qalg::kernels (examples/consumer_cmake).
  r = shell("cmake -S " + consumer_dir("consumer_cmake") + " -B " + by_find.string() + " -DCMAKE_PREFIX_PATH=" +
            prefix.string() + " && cmake --build " + by_find.string() + " -j2");
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
  write_file(bad, "K,N,q,M,schedule,bm,bn,warps,engine\n4096,12288,32,2048,endpoint-fused,64,192,5,tensorcore\n");
  r = shell((by_find / "consumer").string() + " 97 --calibration " + bad.string());
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find(bad.string() + ":2: engine must be"), std::string::npos) << r.output;
  fs::remove(bad);

  // find_package of two packages from two prefixes (ffn_up from the first, ffn_down from a copy):
  // the runtime is imported once, by the package found first.
  fs::copy(prefix, prefix2, fs::copy_options::recursive);
  fs::remove_all(prefix / "lib/cmake/ffn_down");
  fs::remove_all(prefix2 / "lib/cmake/ffn_up");
  const std::string both_prefixes = " '-DCMAKE_PREFIX_PATH=" + prefix.string() + ";" + prefix2.string() + "'";
  r = shell("cmake -S " + consumer_dir("consumer_ffn") + " -B " + ffn_find.string() + both_prefixes +
            " && cmake --build " + ffn_find.string() + " -j2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = shell((ffn_find / "consumer_ffn").string());
  EXPECT_NE(r.output.find(shapes), std::string::npos) << r.output;

  // ... and refused when the second package's recorded runtime differs from the first's.
  const fs::path config2 = prefix2 / "lib/cmake/ffn_down/ffn_downConfig.cmake";
  const std::string other = std::string(64, 'e');
  write_file(config2, replaced(read_text(config2), runtime_sha256(down), other));
  fs::remove_all(ffn_find);
  r = shell("cmake -S " + consumer_dir("consumer_ffn") + " -B " + ffn_find.string() + both_prefixes);
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(flat(r.output).find("qalg kernel packages 'ffn_up' and 'ffn_down' were exported by different qalg versions: "
                          "re-export both (kernel runtime SHA-256 " + runtime_sha256(up) + " in 'ffn_up', " + other +
                          " in 'ffn_down'"),
            std::string::npos)
      << r.output;

  // A prefix that holds another runtime is refused before anything is overwritten.
  const fs::path stamp = prefix / "lib/cmake/qalg_kernels_runtime/runtime.sha256";
  write_file(stamp, other + "\n");
  fs::remove(prefix / "lib/libffn_up.a");
  r = shell("cmake --install " + build.string() + " --prefix " + prefix.string());
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(flat(r.output).find("holds the qalg kernel runtime SHA-256 " + other), std::string::npos) << r.output;
  EXPECT_EQ(read_text(stamp), other + "\n");
  EXPECT_FALSE(fs::exists(prefix / "lib/libffn_up.a"));

  // add_subdirectory of the default-named package alone: configure, then compile the consumer's
  // own source and the package's (the runtime was compiled above from the same files). The Makefile
  // generator's per-object targets compile one file without the target's dependencies.
  r = shell("cmake -G 'Unix Makefiles' -S " + consumer_dir("consumer_cmake") + " -B " + by_subdir.string() +
            " -DQALG_KERNELS_DIR=" + pkg.string() + " && cmake --build " + by_subdir.string() + " --target main.cpp.o" +
            " && cmake --build " + by_subdir.string() + "/qalg_kernels --target src/qalg_kernels.cpp.o");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(by_subdir / "CMakeFiles/consumer.dir/main.cpp.o")) << r.output;
  EXPECT_TRUE(fs::exists(by_subdir / "qalg_kernels/CMakeFiles/qalg_kernels.dir/src/qalg_kernels.cpp.o")) << r.output;
  for (const fs::path& p : all) fs::remove_all(p);
}

// Configure-time refusals of add_subdirectory (no compilation): two packages whose runtimes differ,
// and two packages of one name.
TEST(ConsumerProject, MismatchedRuntimesAndSameNamesAreRefusedAtConfigure) {
  if (!have_nvcc()) GTEST_SKIP() << "no CUDA compiler (nvcc): CMake cannot enable CUDA here";
  const fs::path up = scratch("refuse_up"), down = scratch("refuse_down"), top = scratch("refuse_top"),
                 build = scratch("refuse_build"), twin = scratch("refuse_twin");
  const fs::path all[] = {up, down, top, build, twin};
  for (const fs::path& p : all) fs::remove_all(p);
  ASSERT_EQ(qalg_command("export complete:2 --widths 8 --name ffn_up --out " + up.string()).exit_code, 0);
  ASSERT_EQ(qalg_command("export complete:2 --widths 16 --name ffn_down --out " + down.string()).exit_code, 0);
  const std::string hash = runtime_sha256(up), other = std::string(64, 'e');
  auto configure = [&](const std::string& first, const std::string& second) {
    fs::remove_all(build);
    write_file(top / "CMakeLists.txt", "cmake_minimum_required(VERSION 3.22)\nproject(two LANGUAGES CXX)\n"
                                       "add_subdirectory(" + first + " first)\nadd_subdirectory(" + second + " second)\n");
    return shell("cmake -S " + top.string() + " -B " + build.string());
  };
  CommandRun r = configure(up.string(), down.string());  // equal runtimes: accepted
  ASSERT_EQ(r.exit_code, 0) << r.output;

  // The recorded hash of ffn_down edited, as a package of another qalg version would have it.
  const fs::path recorded = down / "cmake/qalg_package.cmake";
  write_file(recorded, replaced(read_text(recorded), hash, other));
  r = configure(up.string(), down.string());
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(flat(r.output).find("qalg kernel packages 'ffn_up' and 'ffn_down' were exported by different qalg versions: "
                          "re-export both (kernel runtime SHA-256 " + hash + " in 'ffn_up', " + other + " in 'ffn_down')"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(qalg_command("export --verify " + down.string()).exit_code, 1);  // and the package no longer verifies

  // Two packages named alike would define one target twice.
  fs::copy(up, twin, fs::copy_options::recursive);
  r = configure(up.string(), twin.string());
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(flat(r.output).find("qalg kernel package 'ffn_up' (" + twin.string() + "): this project already has a target of that name"),
            std::string::npos)
      << r.output;
  for (const fs::path& p : all) fs::remove_all(p);
}
