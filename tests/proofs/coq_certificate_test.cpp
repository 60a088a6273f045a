// The Coq certificate generator (issue 9): the quiver it claims is the one the table was built
// from, the file carries the table's hash and every entry, and tables outside the scope of the
// certificates are refused with a message that names the problem. Whether the lemmas hold is
// Coq's business: ctest -L proofs compiles generated files (proofs/tests/coq_check.sh).
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/core.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "qalg/algebra/errors.hpp"
#include "support/input_error.hpp"
#include "qalg/algebra/graph_algebra.hpp"
#include "qalg/algebra/quiver_input.hpp"
#include "qalg/algebra/table_io.hpp"
#include "qalg/algebra/tensor_product.hpp"
#include "qalg/proofs/coq_certificate.hpp"
#include "qalg/rank/algorithms.hpp"
#include "qalg/verify/generators.hpp"

using namespace qalg;
namespace fs = std::filesystem;

namespace {

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// (tests/support/input_error.hpp)
std::string error_of(const std::function<void()>& f) { return qalg::test_support::input_error_of(f); }

StructureTensor q2() { return graph_algebra(read_quiver("complete:2"), Field::rationals()); }

}  // namespace

RC_GTEST_PROP(GraphShape, RecoversTheQuiverOfEveryGraphAlgebra, ()) {
  Quiver q = *verify::gen_quiver();
  StructureTensor t = graph_algebra(q, Field::rationals());
  auto shape = graph_shape(t);
  RC_ASSERT(shape.has_value());
  RC_ASSERT(shape->vertices == q.vertex_count());
  RC_ASSERT(shape->arrows.size() == q.arrow_count());
  for (size_t a = 0; a < q.arrow_count(); ++a) {
    RC_ASSERT(shape->arrows[a].first == q.arrows[a].source);
    RC_ASSERT(shape->arrows[a].second == q.arrows[a].target);
  }
}

RC_GTEST_PROP(CoqCertificate, StatesEveryEntryTheHashAndTheRank, ()) {
  Quiver q = *verify::gen_quiver();
  StructureTensor t = graph_algebra(q, Field::rationals());
  CoqCertificate c = coq_certificate(t, canonical_graph_algorithm(t), "random quiver");
  RC_ASSERT(contains(c.text, "table sha256: " + table_hash(t)));
  for (const auto& e : t.entries())
    RC_ASSERT(contains(c.text, fmt::format("({}, {}, {}, {}%Z)", e.i, e.j, e.k, e.c.str())));
  const size_t rank = q.vertex_count() + 2 * q.arrow_count();
  RC_ASSERT(c.associative && c.has_unit && c.graph.has_value());
  RC_ASSERT(contains(c.text, fmt::format("({} <= length A)%nat", rank)));
  RC_ASSERT(contains(c.text, fmt::format("length algorithm = {}%nat", rank)));
  RC_ASSERT(c.algorithm_length == rank);
}

TEST(GraphShape, AbsentWithoutTheGraphHintOrWithAForeignEntry) {
  EXPECT_FALSE(graph_shape(tensor_product(q2(), q2())).has_value());
  StructureTensor t = q2();
  StructureTensor bad(t.field(), t.basis_names());
  for (const auto& e : t.entries()) bad.add(e.i, e.j, e.k, e.c);
  bad.add(1, 2, 2, Rational(1));  // a second source for arrow 2
  bad.finalize();
  bad.set_graph_basis(*t.graph_basis());
  EXPECT_FALSE(graph_shape(bad).has_value());
}

TEST(CoqCertificate, NonGraphTableGetsTableLemmasOnly) {
  StructureTensor t = tensor_product(q2(), q2());
  CoqCertificate c = coq_certificate(t, product_algorithm(t), "Q2 x Q2");
  EXPECT_TRUE(c.associative);
  EXPECT_TRUE(c.has_unit);
  EXPECT_FALSE(c.graph.has_value());
  EXPECT_EQ(c.algorithm_length, 36u);  // SPEC §3: 6 · 6
  EXPECT_TRUE(contains(c.text, "Theorem table_associative"));
  EXPECT_FALSE(contains(c.text, "Theorem rank"));
}

TEST(CoqCertificate, NonAssociativeTableGetsNoAssociativityLemma) {
  StructureTensor t = q2();
  StructureTensor bad(t.field(), t.basis_names());
  for (const auto& e : t.entries()) bad.add(e.i, e.j, e.k, e.c);
  bad.add(2, 3, 0, Rational(1));  // a·b = e_1: (a b) a = a but a (b a) = 0
  bad.finalize();
  CoqCertificate c = coq_certificate(bad, product_algorithm(bad), "broken");
  EXPECT_FALSE(c.associative);
  EXPECT_FALSE(contains(c.text, "table_associative"));
  EXPECT_TRUE(contains(c.text, "associativity lemma left out"));
}

TEST(CoqCertificate, RefusesTablesOutsideItsScope) {
  StructureTensor gf3 = graph_algebra(read_quiver("complete:2"), Field::prime(3));
  EXPECT_TRUE(contains(error_of([&] { coq_certificate(gf3, canonical_graph_algorithm(gf3), "x"); }), "GF(3)"));

  StructureTensor half(Field::rationals(), {"u"});
  half.add(0, 0, 0, Rational(1, 2));
  half.finalize();
  EXPECT_TRUE(contains(error_of([&] { coq_certificate(half, product_algorithm(half), "x"); }),
                       "c_0,0^0 = 1/2 is not an integer"));

  StructureTensor t = q2();
  BilinearAlgorithm alg = canonical_graph_algorithm(t);
  alg.terms[0].alpha[0].second = Rational(1, 3);
  EXPECT_TRUE(contains(error_of([&] { coq_certificate(t, alg, "x"); }), "algorithm term 0 (alpha)"));

  BilinearAlgorithm other = canonical_graph_algorithm(graph_algebra(read_quiver("complete:3"), Field::rationals()));
  EXPECT_TRUE(contains(error_of([&] { coq_certificate(t, other, "x"); }), "dimension 9, the table 4"));
}

TEST(CoqCertificate, FileNameMustBeACoqIdentifier) {
  EXPECT_EQ(error_of([] { require_coq_file_name("/tmp/dir-x/Q_2'.v"); }), "");
  EXPECT_EQ(error_of([] { require_coq_file_name("Q2.v"); }), "");
  for (const char* bad : {"2Q.v", "q-2.v", "q2.txt", "dir/.v", "Q 2.v"})
    EXPECT_TRUE(contains(error_of([&] { require_coq_file_name(bad); }), "Coq identifier")) << bad;
}

TEST(CoqCommand, WritesTheFileOrExitsTwoWritingNothing) {
  fs::path dir = fs::temp_directory_path() / fmt::format("qalg_coq_cli_{}", ::getpid());
  fs::create_directories(dir);
  auto run = [&](const std::string& args) {
    std::string cmd = fmt::format("{} coq {} > {} 2>&1", QALG_BINARY, args, (dir / "log").string());
    int status = std::system(cmd.c_str());
    std::ifstream in(dir / "log");
    std::stringstream text;
    text << in.rdbuf();
    return std::make_pair(WIFEXITED(status) ? WEXITSTATUS(status) : -1, text.str());
  };
  auto [ok, ok_out] = run(fmt::format("complete:2 --out {}", (dir / "Q2.v").string()));
  EXPECT_EQ(ok, 0) << ok_out;
  std::ifstream written(dir / "Q2.v");
  std::stringstream text;
  text << written.rdbuf();
  EXPECT_TRUE(contains(text.str(), "table sha256: " + table_hash(q2())));

  for (const std::string& args : {fmt::format("complete:2 --field 'GF(3)' --out {}", (dir / "G.v").string()),
                                  fmt::format("complete:2 --out {}", (dir / "bad-name.v").string()),
                                  fmt::format("nosuchfamily:2 --out {}", (dir / "N.v").string())}) {
    auto [code, out] = run(args);
    EXPECT_EQ(code, 2) << args << "\n" << out;
    EXPECT_TRUE(contains(out, "error")) << out;
  }
  EXPECT_FALSE(fs::exists(dir / "G.v"));
  EXPECT_FALSE(fs::exists(dir / "bad-name.v"));
  EXPECT_FALSE(fs::exists(dir / "N.v"));
  fs::remove_all(dir);
}
