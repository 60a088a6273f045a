// GAP as an independent oracle (issue 3): a fixed-seed set of tables of several kinds over Q and
// GF(p) (group algebras, matrix and triangular algebras, quiver algebras, tensor products, random
// changes of basis, a non-unital and a non-associative table) is exported with gap_script; one GAP
// run recomputes associativity, unit, dim rad, dim rad² and t(A) (central idempotents of A/rad),
// and every answer must equal qalg's.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include <fmt/core.h>

#include "qalg/algebra/associativity.hpp"
#include "support/command_run.hpp"
#include "qalg/algebra/change_of_basis.hpp"
#include "qalg/algebra/exports.hpp"
#include "qalg/algebra/general_structure.hpp"
#include "qalg/algebra/graph_algebra.hpp"
#include "qalg/algebra/known_algebras.hpp"
#include "qalg/algebra/quiver_input.hpp"
#include "qalg/algebra/tensor_product.hpp"
#include "qalg/algebra/unit.hpp"

using namespace qalg;

namespace {

struct Case {
  std::string name;
  StructureTensor table;
};

Field fq() { return Field::rationals(); }
Field fp(ulong p) { return Field::prime(p); }

StructureTensor random_basis(const StructureTensor& t, uint64_t seed) {
  std::mt19937_64 rng(seed);
  slong n = static_cast<slong>(t.dim());
  for (;;) {
    FieldMatrix m(t.field(), n, n);
    for (slong i = 0; i < n; ++i)
      for (slong j = 0; j < n; ++j) m.set(i, j, Rational(static_cast<slong>(rng() % 5) - 2));
    if (rank(m) == static_cast<size_t>(n)) return change_basis(t, m);
  }
}

StructureTensor quiver(const std::string& spec, const Field& f) { return graph_algebra(quiver_family(spec), f); }

std::vector<Case> cases() {
  std::vector<Case> c;
  for (unsigned n : {4u, 6u, 9u, 12u}) {
    c.push_back({fmt::format("Q[C{}]", n), cyclic_group_algebra(n, fq())});
    c.push_back({fmt::format("GF(2)[C{}]", n), cyclic_group_algebra(n, fp(2))});
    c.push_back({fmt::format("GF(3)[C{}]", n), cyclic_group_algebra(n, fp(3))});
  }
  for (unsigned n : {2u, 3u}) {
    c.push_back({fmt::format("M{}(Q)", n), matrix_algebra(n, fq())});
    c.push_back({fmt::format("M{}(GF(2))", n), matrix_algebra(n, fp(2))});
    c.push_back({fmt::format("M{}(GF(3))", n), matrix_algebra(n, fp(3))});
  }
  c.push_back({"T4(Q)", upper_triangular_algebra(4, fq())});
  c.push_back({"T3(GF(2))", upper_triangular_algebra(3, fp(2))});
  for (int seed = 1; seed <= 3; ++seed) {
    c.push_back({fmt::format("random:4,0.4,{} over Q", seed), quiver(fmt::format("random:4,0.4,{}", seed), fq())});
    c.push_back({fmt::format("random:5,0.3,{} over GF(5)", seed), quiver(fmt::format("random:5,0.3,{}", seed), fp(5))});
  }
  StructureTensor q2 = quiver("complete:2", fq());
  c.push_back({"Q2⊗Q2 over Q", tensor_product(q2, q2)});
  c.push_back({"Q2⊗Q2 over GF(2)", tensor_power(quiver("complete:2", fp(2)), 2)});
  c.push_back({"Q2⊗3 over Q (dim 64)", tensor_power(q2, 3)});
  c.push_back({"C3⊗M2 over Q", tensor_product(cyclic_group_algebra(3, fq()), matrix_algebra(2, fq()))});
  c.push_back({"C2⊗C2 over GF(2)", tensor_product(cyclic_group_algebra(2, fp(2)), cyclic_group_algebra(2, fp(2)))});
  c.push_back({"path:3⊗cycle:2 over GF(3)", tensor_product(quiver("path:3", fp(3)), quiver("cycle:2", fp(3)))});
  c.push_back({"T3 in a random basis over Q", random_basis(upper_triangular_algebra(3, fq()), 7)});
  c.push_back({"Q[C6] in a random basis", random_basis(cyclic_group_algebra(6, fq()), 8)});
  c.push_back({"GF(3)[C6] in a random basis", random_basis(cyclic_group_algebra(6, fp(3)), 9)});
  c.push_back({"Q2⊗Q2 in a random basis over GF(5)", random_basis(tensor_power(quiver("complete:2", fp(5)), 2), 10)});
  StructureTensor left_zero(fq(), {"a", "b", "c"});
  for (uint32_t i = 0; i < 3; ++i)
    for (uint32_t j = 0; j < 3; ++j) left_zero.add(i, j, i, Rational(1));
  left_zero.finalize();
  c.push_back({"left-zero algebra (no unit)", left_zero});
  StructureTensor bad(fq(), {"x", "y"});
  bad.add(0, 0, 1, Rational(1));
  bad.add(1, 0, 0, Rational(1));
  bad.finalize();
  c.push_back({"non-associative table", bad});
  return c;
}

// GAP code appended to each exported script: one result line per table.
std::string gap_queries(size_t index) {
  return fmt::format(R"(if not IsAssociative(A) then Print("RESULT {0} assoc false\n");
else
  R := RadicalOfAlgebra(A);
  if Dimension(R) = Dimension(A) then t := 0;
  elif Dimension(R) = 0 then t := Length(CentralIdempotentsOfAlgebra(A));
  else t := Length(CentralIdempotentsOfAlgebra(ImagesSource(NaturalHomomorphismByIdeal(A, R))));
  fi;
  Print("RESULT {0} assoc true unit ", MultiplicativeNeutralElement(A) <> fail, " rad ", Dimension(R),
        " rad2 ", Dimension(ProductSpace(R, R)), " t ", t, "\n");
fi;
)", index);
}

std::string run_command(const std::string& cmd) { return test_support::run_command(cmd).out; }

}  // namespace

TEST(GapOracle, AgreesOnAFixedSeedSetOfTables) {
  if (std::string(QALG_GAP).empty()) GTEST_SKIP() << "gap not installed (make test installs gap-core)";
  std::vector<Case> cs = cases();
  std::filesystem::path script = std::filesystem::temp_directory_path() /
                                 fmt::format("qalg_gap_oracle_{}.g", static_cast<long>(getpid()));
  {
    std::ofstream out(script);
    out << "SizeScreen([4096, 24]);\n";
    for (size_t i = 0; i < cs.size(); ++i) out << gap_script(cs[i].table, cs[i].name) << gap_queries(i);
    out << "QUIT;\n";
  }
  std::string output = run_command(std::string(QALG_GAP) + " -q -b " + script.string() + " 2>&1");
  std::filesystem::remove(script);
  std::map<size_t, std::map<std::string, std::string>> gap;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string tag, key, value;
    size_t index;
    if (!(words >> tag >> index) || tag != "RESULT") continue;
    while (words >> key >> value) gap[index][key] = value;
  }
  ASSERT_EQ(gap.size(), cs.size()) << "GAP output:\n" << output;
  for (size_t i = 0; i < cs.size(); ++i) {
    const StructureTensor& t = cs[i].table;
    auto& g = gap[i];
    bool assoc = check_associativity(t).associative;
    EXPECT_EQ(g["assoc"], assoc ? "true" : "false") << cs[i].name;
    if (!assoc) continue;
    GeneralStructure s = analyze_general_structure(t);
    EXPECT_EQ(g["unit"], find_unit(t).unit ? "true" : "false") << cs[i].name;
    EXPECT_EQ(g["rad"], std::to_string(s.radical_basis.size())) << cs[i].name;
    size_t rad2 = s.radical_power_dims.size() > 1 ? s.radical_power_dims[1] : 0;
    EXPECT_EQ(g["rad2"], std::to_string(rad2)) << cs[i].name;
    EXPECT_EQ(g["t"], std::to_string(s.t)) << cs[i].name;
  }
}
