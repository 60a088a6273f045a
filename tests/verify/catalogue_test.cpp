// The property catalogue (issue 5): every law of SPEC §1–4 holds on a fixed seed at a CI size,
// a deliberately false law is reported with a counterexample that really violates it, and the same
// seed gives the same run.
#include <gtest/gtest.h>

#include "qalg/algebra/graph_algebra.hpp"
#include "qalg/algebra/quiver_input.hpp"
#include "qalg/algebra/report.hpp"
#include "qalg/algebra/table_io.hpp"
#include "qalg/verify/catalogue.hpp"
#include "qalg/verify/fault.hpp"
#include "qalg/verify/generators.hpp"

using namespace qalg;
using namespace qalg::verify;

namespace {

RunConfig ci_config(uint64_t seed = 20261129) {
  RunConfig c;
  c.cases = 40;
  c.seed = seed;
  c.max_size = 4;
  return c;
}

class CatalogueProperty : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(CatalogueProperty, HoldsOnAFixedSeed) {
  const Property* p = find_property(GetParam());
  ASSERT_NE(p, nullptr);
  const PropertyOutcome o = run_property(*p, ci_config());
  EXPECT_EQ(o.status, PropertyOutcome::Status::Passed)
      << p->name << ": " << o.message << (o.counterexample ? "\n" + o.counterexample->text : "");
  EXPECT_EQ(o.cases, 40);
  EXPECT_FALSE(o.counterexample.has_value());
}

INSTANTIATE_TEST_SUITE_P(Verify, CatalogueProperty, ::testing::ValuesIn([] {
                           std::vector<std::string> names;
                           for (const auto& p : property_catalogue())
                             if (!p.demonstration) names.push_back(p.name);
                           return names;
                         }()),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

TEST(Catalogue, CoversEverySpecArea) {
  for (const std::string s : {"SPEC §1", "SPEC §2", "SPEC §3", "SPEC §4"}) {
    bool covered = false;
    for (const auto& p : property_catalogue()) covered = covered || p.section.rfind(s, 0) == 0;
    EXPECT_TRUE(covered) << s;
  }
  EXPECT_NE(find_property("plan-executor"), nullptr);
  EXPECT_EQ(find_property("no-such-property"), nullptr);
}

TEST(Runner, FalsePropertyFailsWithARealCounterexample) {
  const Property* p = find_property("demo-false-t-is-one");
  ASSERT_NE(p, nullptr);
  ASSERT_TRUE(p->demonstration);
  const PropertyOutcome o = run_property(*p, ci_config());
  ASSERT_EQ(o.status, PropertyOutcome::Status::Failed);
  ASSERT_TRUE(o.counterexample.has_value());
  ASSERT_EQ(o.counterexample->kind, Counterexample::Kind::Quiver);
  // Read the counterexample back the way `qalg inspect` does and check that it violates t = 1.
  const Quiver q = parse_edge_list(o.counterexample->text, "counterexample");
  const AlgebraReport r = inspect_algebra(graph_algebra(q, Field::parse(o.counterexample->field)));
  ASSERT_TRUE(r.t.has_value());
  EXPECT_NE(*r.t, 1u);
  // Shrunk to the smallest violation: two vertices, no arrows, over Q (t = 2).
  EXPECT_EQ(q.vertex_count(), 2u);
  EXPECT_EQ(q.arrow_count(), 0u);
  EXPECT_EQ(o.counterexample->field, "Q");
}

TEST(Runner, SameSeedSameRun) {
  const Property* p = find_property("demo-false-t-is-one");
  const PropertyOutcome a = run_property(*p, ci_config(7)), b = run_property(*p, ci_config(7));
  EXPECT_EQ(a.cases, b.cases);
  EXPECT_EQ(a.message, b.message);
  EXPECT_EQ(a.shown, b.shown);
  ASSERT_TRUE(a.counterexample && b.counterexample);
  EXPECT_EQ(a.counterexample->text, b.counterexample->text);
  // A passing property's tallies are a fingerprint of its cases: the same seed gives the same ones.
  const Property* f = find_property("fault-changed-constant");
  const PropertyOutcome x = run_property(*f, ci_config(11)), y = run_property(*f, ci_config(11));
  EXPECT_EQ(x.tallies, y.tallies);
  EXPECT_EQ(x.discarded, y.discarded);
}

TEST(Runner, FaultTalliesCountEveryInjectedFault) {
  for (FaultKind kind : all_fault_kinds()) {
    const std::string k = fault_kind_name(kind);
    const PropertyOutcome o = run_property(*find_property("fault-" + k), ci_config());
    ASSERT_EQ(o.status, PropertyOutcome::Status::Passed) << k << ": " << o.message;
    EXPECT_EQ(o.tallies.at(k + "/injected"), 40) << k;
    EXPECT_EQ(o.tallies.at(k + "/caught"), 40) << k;
    // The canonical algorithm compares the table with Q_G's definition, so it sees every fault.
    EXPECT_EQ(o.tallies.at(k + "/canonical-algorithm"), 40) << k;
  }
}

TEST(Runner, TableCounterexampleReadsBackAsATable) {
  // Deliberately false, stated about tables: "Q_G ⊗ Q_H always has t = 1".
  const Property p{"test-false-tensor-t", "test", "t(Q_G ⊗ Q_H) = 1", [](const RunConfig&) {
                     const TensorCase t = *gen_tensor_case(QuiverShape{.max_vertices = 2, .max_arrows = 2});
                     record_case(t.product);
                     RC_ASSERT(inspect_algebra(t.product).t == std::optional<size_t>(1));
                   }};
  const PropertyOutcome o = run_property(p, ci_config());
  ASSERT_EQ(o.status, PropertyOutcome::Status::Failed);
  ASSERT_TRUE(o.counterexample && o.counterexample->kind == Counterexample::Kind::Table);
  const StructureTensor t = table_from_json(nlohmann::json::parse(o.counterexample->text), "counterexample");
  EXPECT_NE(inspect_algebra(t).t, std::optional<size_t>(1));
  // Shrunk: two vertices (with at most one arrow, when a named family was drawn) ⊗ a 1-dim factor
  // or a loop.
  EXPECT_LE(t.dim(), 4u);
}
