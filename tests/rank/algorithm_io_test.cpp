// qalg-algorithm JSON: round trips, and bad input rejected with a clear InputError.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "qalg/algebra/errors.hpp"
#include "qalg/rank/algorithm_io.hpp"
#include "qalg/rank/algorithms.hpp"
#include "rank_test_support.hpp"

namespace qalg {
namespace {

using nlohmann::json;

bool same(const BilinearAlgorithm& a, const BilinearAlgorithm& b) {
  if (!(a.field == b.field) || a.dim != b.dim || a.length() != b.length()) return false;
  for (size_t l = 0; l < a.length(); ++l)
    if (a.terms[l].alpha != b.terms[l].alpha || a.terms[l].beta != b.terms[l].beta ||
        a.terms[l].gamma != b.terms[l].gamma)
      return false;
  return true;
}

RC_GTEST_PROP(AlgorithmIo, JsonRoundTripPreservesTheAlgorithm, ()) {
  StructureTensor t = *testing::random_table(4, 10);
  BilinearAlgorithm alg = product_algorithm(t);
  BilinearAlgorithm back = algorithm_from_json(json::parse(algorithm_to_json(alg).dump()), "mem");
  RC_ASSERT(same(alg, back));
  RC_ASSERT(verify_algorithm(back, t).verified);
}

TEST(AlgorithmIo, FileRoundTripIsAtomicAndReadable) {
  auto dir = std::filesystem::temp_directory_path() / "qalg_rank_io_test";
  std::filesystem::create_directories(dir);
  std::string path = (dir / "q2.json").string();
  StructureTensor t = testing::graph_table("complete:2", Field::prime(3));
  BilinearAlgorithm alg = canonical_graph_algorithm(t);
  write_algorithm_file(alg, path);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  BilinearAlgorithm back = read_algorithm_file(path);
  EXPECT_TRUE(same(alg, back));
  EXPECT_EQ(back.field.name(), "GF(3)");
  std::filesystem::remove_all(dir);
}

json minimal(const std::string& field = "Q") {
  return json{{"format", "qalg-algorithm"}, {"version", 1}, {"field", field}, {"dim", 2},
              {"terms", json::array({json{{"alpha", {{0, "1"}}}, {"beta", {{1, "1/2"}}},
                                          {"gamma", {{1, 3}}}}})}};
}

void expect_error(const json& j, const std::string& fragment) {
  try {
    algorithm_from_json(j, "alg.json");
    ADD_FAILURE() << "accepted: " << j.dump();
  } catch (const InputError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("alg.json"), std::string::npos) << what;
    EXPECT_NE(what.find(fragment), std::string::npos) << what;
  }
}

TEST(AlgorithmIo, ParsesIntegersStringsAndFractions) {
  BilinearAlgorithm a = algorithm_from_json(minimal(), "alg.json");
  ASSERT_EQ(a.length(), 1u);
  EXPECT_EQ(a.terms[0].beta[0].second, Rational(1, 2));
  EXPECT_EQ(a.terms[0].gamma[0].second, Rational(3));
}

TEST(AlgorithmIo, RejectsBadInputNamingTheFault) {
  json j = minimal();
  j["format"] = "qalg-table";
  expect_error(j, "format");
  j = minimal();
  j["version"] = 2;
  expect_error(j, "version");
  j = minimal();
  j["terms"][0]["alpha"] = {{2, "1"}};
  expect_error(j, "out of range");
  j = minimal();
  j["terms"][0]["beta"] = {{0, "one"}};
  expect_error(j, "term 0 beta");
  j = minimal();
  j["terms"][0]["gamma"] = {{0, 1.5}};
  expect_error(j, "not an integer");
  j = minimal();
  j["terms"][0].erase("gamma");
  expect_error(j, "gamma");
  j = minimal();
  j["terms"][0]["alpha"] = {{-1, "1"}};
  expect_error(j, "index");
  expect_error(minimal("GF(4)"), "field");
  j = minimal("GF(2)");  // 1/2 has a denominator divisible by 2
  expect_error(j, "alg.json");
}

TEST(AlgorithmIo, UnreadableFilesAreInputErrors) {
  EXPECT_THROW(read_algorithm_file("/nonexistent/alg.json"), InputError);
  auto path = std::filesystem::temp_directory_path() / "qalg_rank_not_json.json";
  std::ofstream(path) << "{ not json";
  EXPECT_THROW(read_algorithm_file(path.string()), InputError);
  std::filesystem::remove(path);
}

TEST(Verification, WrongFieldOrDimensionIsBadInput) {
  StructureTensor t = testing::graph_table("complete:2");
  BilinearAlgorithm alg = canonical_graph_algorithm(t);
  alg.field = Field::prime(3);
  EXPECT_THROW(verify_algorithm(alg, t), InputError);
  alg = canonical_graph_algorithm(testing::graph_table("complete:3"));
  EXPECT_THROW(verify_algorithm(alg, t), InputError);
  alg = canonical_graph_algorithm(t);
  alg.terms[0].gamma.emplace_back(9, Rational(1));
  EXPECT_THROW(verify_algorithm(alg, t), InputError);
}

}  // namespace
}  // namespace qalg
