// qalg export --widths ... --out DIR (issue 8): the package's files, plan.json against an
// independent `qalg lower`, the extended certificate, tamper detection, refusals and bad input.
#include <regex>
#include <set>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <nlohmann/json.hpp>

#include "export_support.hpp"
#include "qalg/algebra/graph_algebra.hpp"
#include "qalg/algebra/quiver_input.hpp"
#include "qalg/algebra/table_io.hpp"
#include "qalg/export/embedded_files.hpp"
#include "qalg/export/kernel_package.hpp"
#include "qalg/gpu/lowering.hpp"

namespace fs = std::filesystem;
using namespace qalg;
using namespace qalg::export_test;

namespace {

// `qalg export ARGS --out <scratch dir_name>`, expected to succeed.
fs::path exported(const std::string& dir_name, const std::string& args) {
  const fs::path d = scratch(dir_name);
  fs::remove_all(d);
  CommandRun r = qalg_command("export " + args + " --out " + d.string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return d;
}

// Exports shared by the read-only tests (an export runs every certificate check).
const fs::path& q2_package() {
  static const fs::path dir = exported("q2_pkg", "complete:2 --widths 8,16 --output-widths 24,8 --dtype fp16");
  return dir;
}

// The same algebra and widths, exported with --name ffn_up.
const fs::path& named_package() {
  static const fs::path dir = exported("named_pkg", "complete:2 --widths 8,16 --output-widths 24,8 --name ffn_up");
  return dir;
}

nlohmann::json read_json(const fs::path& p) { return nlohmann::json::parse(read_text(p)); }

std::string sha256_of_file(const fs::path& p) { return shell("sha256sum " + p.string()).output.substr(0, 64); }

// Replaces `file`'s listed SHA-256 in the certificate of `dir` with the file's current one (a
// tampering that also fixes the list).
void relist(const fs::path& dir, const std::string& file) {
  nlohmann::json cert = read_json(dir / "certificate.json");
  for (auto& f : cert["kernel_export"]["files"])
    if (f["path"] == file) f["sha256"] = sha256_of_file(dir / file);
  std::ofstream(dir / "certificate.json") << cert.dump(2) << "\n";
}

// Files directly in `parent` whose name contains `part` (left-over temporary directories).
int entries_containing(const fs::path& parent, const std::string& part) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(parent)) n += e.path().filename().string().find(part) != std::string::npos;
  return n;
}

}  // namespace

TEST(KernelPackage, HasTheExpectedFiles) {
  const fs::path d = q2_package();
  for (const char* f : {"CMakeLists.txt", "cmake/Config.cmake.in", "cmake/qalg_package.cmake", "plan.json", "table.json",
                        "certificate.json", "include/qalg_kernels/qalg_kernels.hpp",
                        "include/qalg_kernels/plan_data.hpp", "include/qalg/gpu/kernels.hpp",
                        "src/qalg_kernels.cpp", "src/gpu/cuda/tc_gemm.cuh", "src/gpu/cuda/launch_forward.cu",
                        "src/gpu/src/dense_reference.cpp", "test/conformance.cpp",
                        "torch/qalg_torch.py", "torch/qalg_kernels_torch.cpp", "README.md"})
    EXPECT_TRUE(fs::is_regular_file(d / f)) << f;
  // Every copied kernel source is the repository's current file, byte for byte.
  for (const auto& f : exporter::embedded_files()) {
    EXPECT_EQ(read_text(fs::path(QALG_SOURCE_DIR) / std::string(f.path)), std::string(f.text)) << f.path;
  }
  // Only this export's own temporary directory (.NAME.partial-PID, kernel_package.cpp): the parent is
  // the shared temp directory, where other tests' exports run at the same time (ctest -j), and a
  // check for any ".partial-" there failed now and then.
  EXPECT_EQ(entries_containing(d.parent_path(), "." + d.filename().string() + ".partial-"), 0);
}

TEST(KernelPackage, PlanEqualsAnIndependentLowering) {
  const fs::path plan = scratch("q2_plan.json");
  CommandRun r = qalg_command("lower complete:2 --widths 8,16 --output-widths 24,8 --out " + plan.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_json(q2_package() / "plan.json"), read_json(plan));
  // Q_2 (SPEC §4): y_i = x_i W_ii, y_j = x_i W_ij + x_j W_jj — three terms per type.
  const gpu::KernelPlan p = gpu::read_plan_file((q2_package() / "plan.json").string());
  EXPECT_EQ(p.B(0, 0).size() + p.B(0, 1).size(), 3u);
  EXPECT_EQ(p.K(), 24u);
  EXPECT_EQ(p.N(), 32u);
  fs::remove(plan);
}

TEST(KernelPackage, CertificateVerifiesWithBothCheckers) {
  const verify::CertificateVerdict v = exporter::verify_kernel_package(q2_package().string());
  EXPECT_TRUE(v.valid) << v.first_failure();
  bool saw_plan_check = false;
  for (const auto& c : v.checks) saw_plan_check |= c.claim == "export:plan-vs-table" && c.ok;
  EXPECT_TRUE(saw_plan_check);
  CommandRun r = qalg_command("certify --verify " + (q2_package() / "certificate.json").string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json cert = read_json(q2_package() / "certificate.json");
  EXPECT_EQ(cert["kernel_export"]["dtype"], "fp16");
  EXPECT_EQ(cert["kernel_export"]["plan_matches_table"]["holds"], true);
  EXPECT_EQ(cert["kernel_export"]["conformance"]["run"], false);  // no GPU in the exporting process
}

TEST(KernelPackage, TamperedPlanOrSourceIsDetected) {
  const fs::path d = scratch("tampered");
  fs::remove_all(d);
  fs::copy(q2_package(), d, fs::copy_options::recursive);
  nlohmann::json plan = read_json(d / "plan.json");
  plan["terms"][0][2][0][1] = "2";  // a coefficient the table does not have
  std::ofstream(d / "plan.json") << plan.dump(2) << "\n";
  verify::CertificateVerdict v = exporter::verify_kernel_package(d.string());
  EXPECT_FALSE(v.valid);
  for (const auto& c : v.checks) {
    if (c.claim == "export:plan-vs-table" || c.claim == "export:files") {
      EXPECT_FALSE(c.ok) << c.claim;
    }
  }

  fs::copy_file(q2_package() / "plan.json", d / "plan.json", fs::copy_options::overwrite_existing);
  std::ofstream(d / "src/gpu/cuda/simt_gemm.cuh", std::ios::app) << "// edited\n";
  v = exporter::verify_kernel_package(d.string());
  EXPECT_FALSE(v.valid);
  EXPECT_NE(v.first_failure().find("export:files"), std::string::npos) << v.first_failure();
  fs::remove_all(d);
}

// (thirty-eighth session's audit) The package check took the certificate's own file list and never
// compared the certificate's shape with plan.json: a list cut to two entries left every kernel source
// unchecked, a header planted in include/ passed, and another export's plan, header and hashes swapped
// in kept the old K and widths in the certificate. `qalg export --verify DIR` runs the check.
TEST(KernelPackage, CutListPlantedFileAndSwappedPlanAreDetected) {
  const fs::path d = scratch("tampered2"), other = scratch("other_pkg");
  fs::remove_all(d), fs::remove_all(other);
  ASSERT_EQ(qalg_command("export --verify " + q2_package().string()).exit_code, 0);
  auto refused = [&](const std::string& what) {
    CommandRun r = qalg_command("export --verify " + d.string());
    EXPECT_EQ(r.exit_code, 1) << what << "\n" << r.output;
    EXPECT_NE(r.output.find(what), std::string::npos) << r.output;
  };
  auto fresh_copy = [&] {
    fs::remove_all(d);
    fs::copy(q2_package(), d, fs::copy_options::recursive);
  };
  fresh_copy();  // the list cut to plan.json and table.json, a kernel source edited
  nlohmann::json cert = read_json(d / "certificate.json");
  nlohmann::json kept = nlohmann::json::array();
  for (const auto& f : cert["kernel_export"]["files"])
    if (f["path"] == "plan.json" || f["path"] == "table.json") kept.push_back(f);
  cert["kernel_export"]["files"] = kept;
  std::ofstream(d / "certificate.json") << cert.dump(2) << "\n";
  std::ofstream(d / "src/gpu/cuda/launch_forward.cu", std::ios::app) << "// edited\n";
  refused("not in the certificate's list");
  fresh_copy();  // a header planted where the package's include path finds it first
  fs::create_directories(d / "include/nlohmann");
  std::ofstream(d / "include/nlohmann/json.hpp") << "#error planted\n";
  refused("include/nlohmann/json.hpp");
  fresh_copy();  // another export's plan and header, the listed hashes recomputed
  ASSERT_EQ(qalg_command("export complete:2 --widths 16,8 --out " + other.string()).exit_code, 0);
  for (const char* f : {"plan.json", "include/qalg_kernels/plan_data.hpp"})
    fs::copy_file(other / f, d / f, fs::copy_options::overwrite_existing);
  cert = read_json(d / "certificate.json");
  const nlohmann::json other_cert = read_json(other / "certificate.json");  // (held: a range-for over a
  for (auto& f : cert["kernel_export"]["files"])                            // temporary's member dangles)
    for (const auto& g : other_cert["kernel_export"]["files"])
      if (g["path"] == f["path"]) f["sha256"] = g["sha256"];
  std::ofstream(d / "certificate.json") << cert.dump(2) << "\n";
  refused("export:shape");
  // certify --verify, which reads only the certificate, says that it did not check the package
  CommandRun r = qalg_command("certify --verify " + (q2_package() / "certificate.json").string());
  EXPECT_NE(r.output.find("qalg export --verify"), std::string::npos) << r.output;
  fs::remove_all(d), fs::remove_all(other);
}

TEST(KernelPackage, NonAssociativeTableIsRefusedNamingTheCheck) {
  // Q_2 with e_1 e_1 = 2 e_1: slots still chain, but (e_1 e_1) a = 2a != a = e_1 (e_1 a).
  nlohmann::json t = table_to_json(graph_algebra(quiver_family("complete:2"), Field::rationals()));
  bool changed = false;
  for (auto& e : t["entries"])
    if (e[0] == 0 && e[1] == 0 && e[2] == 0) e[3] = "2", changed = true;
  ASSERT_TRUE(changed);
  const fs::path table = scratch("bad_table.json"), out = scratch("refused_pkg");
  std::ofstream(table) << t.dump() << "\n";
  CommandRun r = qalg_command("export --table-file " + table.string() + " --widths 8 --out " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;  // bad input: not an algebra a kernel may be exported for
  EXPECT_NE(r.output.find("associativity"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_EQ(entries_containing(out.parent_path(), out.filename().string()), 0);  // this process's name only
  fs::remove(table);
}

TEST(KernelPackage, BadInputExitsTwoAndWritesNothing) {
  const fs::path out = scratch("bad_pkg");
  const fs::path loop = scratch("loop.txt");
  std::ofstream(loop) << "1 1\n1 2\n";  // a loop puts two basis elements in slot (1,1)
  struct Case {
    std::string args, expect;
  } cases[] = {
      {"complete:2 --widths 8,8,8", "--widths"},
      {"complete:2 --widths 8 --dtype fp64", "--dtype"},
      {"complete:2 --field 'GF(3)' --widths 8", "GF(3)"},
      {loop.string() + " --widths 8", "slot"},
      {"complete:2 --widths 8 --gap x.g", "--gap"},
      // --name must be usable as a C++ namespace, a CMake target and a path component
      {"complete:2 --widths 8 --name FfnUp", "--name 'FfnUp': expected lower-case"},
      {"complete:2 --widths 8 --name 9up", "--name '9up': expected lower-case"},
      {"complete:2 --widths 8 --name ffn-up", "--name 'ffn-up'"},
      {"complete:2 --widths 8 --name ../up", "--name '../up'"},
      {"complete:2 --widths 8 --name ''", "--name '': expected lower-case"},
      {"complete:2 --widths 8 --name class", "--name 'class': a C++ keyword"},
      {"complete:2 --widths 8 --name std", "--name 'std'"},
      {"complete:2 --widths 8 --name qalg_kernels_runtime", "--name 'qalg_kernels_runtime'"},
      {"complete:2 --widths 8 --name kernels", "--name 'kernels'"},
      {"complete:2 --widths 8 --name ffn__up", "--name 'ffn__up': '__'"},
      {"complete:2 --widths 8 --name " + std::string(65, 'a'), "longer than 64"},
  };
  for (const Case& c : cases) {
    CommandRun r = qalg_command("export " + c.args + " --out " + out.string());
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.expect), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_FALSE(fs::exists(out)) << c.args;
  }
  CommandRun r = qalg_command("export complete:2 --widths 8 --out " + q2_package().string());  // exists
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("already exists"), std::string::npos) << r.output;
  for (const std::string& args : {"export complete:2 --gap " + out.string() + " --name up",
                                  "export --verify " + q2_package().string() + " --name up"}) {
    r = qalg_command(args);  // --name belongs to --out
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("--name"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(out)) << args;
  }
  fs::remove(loop);
}

// For complete graphs and random widths, the package's plan is the lowering of its table, its
// header lists exactly the plan's terms, and the whole package re-checks.
// (with a random --name: the header's path and namespace follow it)
RC_GTEST_PROP(KernelPackage, WrittenPlanIsTheLoweringOfTheTable, ()) {
  const uint32_t q = *rc::gen::inRange<uint32_t>(1, 4);
  const auto s = *rc::gen::container<std::vector<uint32_t>>(q, rc::gen::inRange<uint32_t>(1, 40));
  const auto r = *rc::gen::container<std::vector<uint32_t>>(q, rc::gen::inRange<uint32_t>(1, 40));
  const StructureTensor t = graph_algebra(quiver_family("complete:" + std::to_string(q)), Field::rationals());
  const fs::path d = scratch("prop_pkg");
  fs::remove_all(d);
  const std::string name = *rc::gen::oneOf(rc::gen::just(std::string("qalg_kernels")),
                                            rc::gen::map(rc::gen::inRange(0, 1000), [](int n) { return "mlp_" + std::to_string(n); }));
  const exporter::KernelExport e =
      exporter::write_kernel_package(t, {"complete:" + std::to_string(q), s, r, "bf16", name, d.string()});
  const gpu::KernelPlan fresh = gpu::lower_table(gpu::table_data_from_json(table_to_json(t), "t"), s, r);
  RC_ASSERT(read_json(d / "plan.json") == gpu::plan_to_json(fresh));
  size_t terms = 0;
  for (const auto& b : fresh.terms) terms += b.size();
  RC_ASSERT(terms == size_t(2) * q * q - q);  // SPEC §4: Q_q has 2q² − q block products
  const std::string header = read_text(d / ("include/" + name + "/plan_data.hpp"));
  RC_ASSERT(header.find("kTermCount = " + std::to_string(terms) + ";") != std::string::npos);
  RC_ASSERT(header.find("namespace " + name + "::generated {") != std::string::npos);
  RC_ASSERT(exporter::verify_kernel_package(d.string()).valid);
  fs::remove_all(d);
}

// --name renames what would clash between two packages in one project (C++ namespace, include
// directory, sources, CMake names) and nothing of the shared kernel runtime.
TEST(KernelPackage, NamedPackageRenamesItsNamespaceAndFilesNotItsRuntime) {
  const fs::path d = named_package();
  for (const char* f : {"include/ffn_up/ffn_up.hpp", "include/ffn_up/plan_data.hpp", "src/ffn_up.cpp",
                        "torch/ffn_up_torch.cpp", "torch/qalg_torch.py", "cmake/qalg_package.cmake", "cmake/Config.cmake.in"})
    EXPECT_TRUE(fs::is_regular_file(d / f)) << f;
  EXPECT_FALSE(fs::exists(d / "include/qalg_kernels"));
  EXPECT_FALSE(fs::exists(d / "src/qalg_kernels.cpp"));
  EXPECT_NE(read_text(d / "include/ffn_up/ffn_up.hpp").find("\nnamespace ffn_up {"), std::string::npos);
  EXPECT_NE(read_text(d / "include/ffn_up/plan_data.hpp").find("\nnamespace ffn_up::generated {"), std::string::npos);
  EXPECT_NE(read_text(d / "src/ffn_up.cpp").find("#include \"ffn_up/plan_data.hpp\""), std::string::npos);
  EXPECT_NE(read_text(d / "cmake/qalg_package.cmake").find("\nset(QALG_PACKAGE ffn_up)\n"), std::string::npos);
  // Outside the CMake files (which read the name from cmake/qalg_package.cmake), the default name is
  // left only in the shared runtime's name.
  for (const auto& e : fs::recursive_directory_iterator(d)) {
    if (!e.is_regular_file()) continue;
    const std::string rel = fs::relative(e.path(), d).generic_string(), text = read_text(e.path());
    if (rel == "CMakeLists.txt" || rel.ends_with(".cmake.in")) continue;
    for (size_t at = text.find("qalg_kernels"); at != std::string::npos; at = text.find("qalg_kernels", at + 1))
      EXPECT_EQ(text.substr(at, 20), "qalg_kernels_runtime") << rel << " at " << at;
  }
  // One runtime for every package of this qalg: the same hash as the default-named package, which is
  // the README's sha256sum pipeline over include/qalg and src/gpu, and what CMake compares.
  const nlohmann::json ke = read_json(d / "certificate.json")["kernel_export"];
  EXPECT_EQ(ke["name"], "ffn_up");
  EXPECT_EQ(ke["runtime_sha256"], read_json(q2_package() / "certificate.json")["kernel_export"]["runtime_sha256"]);
  const CommandRun pipeline =
      shell("cd " + d.string() + " && find include/qalg src/gpu -type f | LC_ALL=C sort | xargs sha256sum | sha256sum");
  ASSERT_EQ(pipeline.exit_code, 0) << pipeline.output;
  EXPECT_EQ(pipeline.output.substr(0, 64), ke["runtime_sha256"].get<std::string>());
  EXPECT_NE(read_text(d / "cmake/qalg_package.cmake").find("set(QALG_RUNTIME_SHA256 " + pipeline.output.substr(0, 64) + ")"),
            std::string::npos);
  const verify::CertificateVerdict v = exporter::verify_kernel_package(d.string());
  EXPECT_TRUE(v.valid) << v.first_failure();
}

// `qalg export --verify` takes the file names from the certificate's name and ties the recorded
// runtime hash to the runtime files, so CMake's comparison of two packages compares their sources.
TEST(KernelPackage, VerifyChecksTheNamedFilesAndTheRuntimeHash) {
  const fs::path d = scratch("named_tampered");
  auto fresh_copy = [&] {
    fs::remove_all(d);
    fs::copy(named_package(), d, fs::copy_options::recursive);
  };
  auto refused = [&](const std::string& claim, const std::string& what) {
    CommandRun r = qalg_command("export --verify " + d.string());
    EXPECT_EQ(r.exit_code, 1) << what << "\n" << r.output;
    EXPECT_NE(r.output.find("FAIL " + claim), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(what), std::string::npos) << r.output;
  };
  fresh_copy();  // the default name's header planted beside the package's own
  fs::create_directories(d / "include/qalg_kernels");
  fs::copy_file(q2_package() / "include/qalg_kernels/plan_data.hpp", d / "include/qalg_kernels/plan_data.hpp");
  refused("export:files", "include/qalg_kernels/plan_data.hpp");
  fresh_copy();  // a runtime source edited and its listed hash fixed: the runtime hash no longer holds
  std::ofstream(d / "src/gpu/cuda/launch_forward.cu", std::ios::app) << "// edited\n";
  relist(d, "src/gpu/cuda/launch_forward.cu");
  refused("export:runtime", "is not package 'ffn_up' with its runtime files' SHA-256");
  fresh_copy();  // the recorded runtime hash edited (what a package must not do to share a project)
  std::string cmake = read_text(d / "cmake/qalg_package.cmake");
  cmake.replace(cmake.find("QALG_RUNTIME_SHA256 ") + 20, 4, "0000");
  std::ofstream(d / "cmake/qalg_package.cmake") << cmake;
  relist(d, "cmake/qalg_package.cmake");
  refused("export:runtime", "cmake/qalg_package.cmake");
  fresh_copy();  // a name that is no package name is malformed input, not a path to follow
  nlohmann::json cert = read_json(d / "certificate.json");
  cert["kernel_export"]["name"] = "../ffn_up";
  std::ofstream(d / "certificate.json") << cert.dump(2) << "\n";
  CommandRun r = qalg_command("export --verify " + d.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("kernel_export.name \"../ffn_up\" is not a package name"), std::string::npos) << r.output;
  fs::remove_all(d);
}

// The PyTorch loader compiles the package from its own files: the name's sources exist, and its
// runtime sources are exactly those CMakeLists.txt builds into qalg_kernels_runtime (torch cannot
// run here; a list that drifted would fail only on the GPU machine).
TEST(KernelPackage, TorchLoaderListsThePackagesOwnSources) {
  const fs::path d = named_package();
  const std::string py = read_text(d / "torch/qalg_torch.py"), cmake = read_text(d / "CMakeLists.txt");
  EXPECT_NE(py.find("\nPACKAGE_NAME = \"ffn_up\"\n"), std::string::npos);
  EXPECT_NE(py.find("\"torch/%s_torch.cpp\" % name, \"src/%s.cpp\" % name"), std::string::npos);
  std::set<std::string> torch_runtime, cmake_runtime;
  const std::regex quoted("\"(src/gpu/[^\"]+\\.(cpp|cu))\"");
  for (std::sregex_iterator it(py.begin(), py.end(), quoted), end; it != end; ++it) torch_runtime.insert((*it)[1]);
  const size_t start = cmake.find("add_library(qalg_kernels_runtime STATIC");
  ASSERT_NE(start, std::string::npos);
  const std::string sources = cmake.substr(start, cmake.find(')', start) - start);
  const std::regex listed("\\$\\{_(cuda|host)\\}/([A-Za-z0-9_]+\\.(cpp|cu))");
  for (std::sregex_iterator it(sources.begin(), sources.end(), listed), end; it != end; ++it)
    cmake_runtime.insert(std::string((*it)[1] == "cuda" ? "src/gpu/cuda/" : "src/gpu/src/") + std::string((*it)[2]));
  EXPECT_GE(cmake_runtime.size(), 10u);
  EXPECT_EQ(torch_runtime, cmake_runtime);
  for (const std::string& f : torch_runtime) EXPECT_TRUE(fs::is_regular_file(d / f)) << f;
}
