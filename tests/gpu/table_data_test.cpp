// The gpu module's table reader and the plan JSON form: round trips and clear rejections.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "property.hpp"
#include "qalg/gpu/fraction.hpp"
#include "qalg/gpu/lowering.hpp"
#include "qalg/gpu/table_data.hpp"
#include "random_cases.hpp"

namespace qalg::gpu {
namespace {

// Q_2 written in the table file format, with one coefficient as a "p/q" string.
nlohmann::json q2_table_json() {
  return nlohmann::json::parse(R"({
    "format": "qalg-table", "version": 1, "field": "Q", "dim": 4,
    "basis": ["e1", "e2", "a", "b"],
    "entries": [[0,0,0,1],[0,2,2,"1"],[1,1,1,1],[1,3,3,"2/2"],[2,1,2,1],[3,0,3,"-6/-6"]],
    "slots": {"q": 2, "cells": [[0,0],[1,1],[0,1],[1,0]]}
  })");
}

std::string error_of(const nlohmann::json& j) {
  try {
    table_data_from_json(j, "t.json");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(TableData, ReadsTheFileFormat) {
  TableData t = table_data_from_json(q2_table_json(), "t.json");
  EXPECT_EQ(t.dim, 4u);
  EXPECT_EQ(t.field, "Q");
  ASSERT_EQ(t.entries.size(), 6u);
  for (const TableEntry& e : t.entries) EXPECT_TRUE(e.num == 1 && e.den == 1);
  ASSERT_TRUE(t.slot_grid.has_value());
  EXPECT_EQ(*t.slot_grid, 2u);
  EXPECT_EQ(t.slots[3], (std::pair<uint32_t, uint32_t>{1, 0}));
  // It lowers to the plan of the hand-built complete:2 table.
  KernelPlan a = lower_table(t, {3, 5}, {2, 7});
  KernelPlan b = lower_table(test::complete_table(2), {3, 5}, {2, 7});
  for (uint32_t c = 0; c < 4; ++c) {
    ASSERT_EQ(a.terms[c].size(), b.terms[c].size());
    for (size_t x = 0; x < a.terms[c].size(); ++x)
      EXPECT_EQ(a.terms[c][x].input_group, b.terms[c][x].input_group);
  }
}

TEST(TableData, ErrorsNameTheFileAndTheField) {
  struct Case {
    const char* pointer;
    nlohmann::json value;
    const char* expected;
  };
  const Case cases[] = {
      {"/format", "qalg-plan", "t.json: field 'format'"},
      {"/version", 2, "t.json: field 'version'"},
      {"/field", "R", "t.json: field 'field'"},
      {"/dim", 5, "t.json: field 'dim'"},
      {"/basis/1", "e1", "t.json: field 'basis[1]': duplicate name"},
      {"/entries/2/2", 9, "t.json: field 'entries[2][2]': 9 is out of range"},
      {"/entries/2/0", -1, "t.json: field 'entries[2][0]': expected a non-negative integer"},
      {"/entries/1/3", "1/0", "t.json: field 'entries[1][3]'"},
      {"/entries/1/3", "x", "t.json: field 'entries[1][3]'"},
      {"/entries/1/3", 0.5, "t.json: field 'entries[1][3]': coefficient 0.5 is a floating-point"},
      {"/entries/1/3", "99999999999999999999", "does not fit in int64"},
      {"/entries/1", nlohmann::json::array({0, 2, 2}), "t.json: field 'entries[1]': expected [i, j, k, c]"},
      {"/entries/5", nlohmann::json::array({0, 0, 0, 1}), "t.json: field 'entries[5]': duplicate entry"},
      {"/slots/q", 0, "t.json: field 'slots.q'"},
      {"/slots/cells/3", nlohmann::json::array({2, 0}), "t.json: field 'slots.cells[3][0]'"},
      {"/slots/cells", nlohmann::json::array(), "t.json: field 'slots.cells'"},
  };
  for (const Case& c : cases) {
    nlohmann::json j = q2_table_json();
    j[nlohmann::json::json_pointer(c.pointer)] = c.value;
    std::string m = error_of(j);
    EXPECT_NE(m.find(c.expected), std::string::npos) << c.pointer << ": got '" << m << "'";
  }
  nlohmann::json j = q2_table_json();
  j.erase("entries");
  EXPECT_NE(error_of(j).find("field 'entries': missing"), std::string::npos);
  EXPECT_NE(error_of(nlohmann::json::array()).find("must be a JSON object"), std::string::npos);
  j = q2_table_json();
  j["field"] = "GF(5)";
  j["entries"][0][3] = 7;
  EXPECT_NE(error_of(j).find("residue"), std::string::npos);
}

TEST(TableData, FileErrors) {
  EXPECT_THROW(read_table_data("/nonexistent/t.json"), std::invalid_argument);
  std::string path = testing::TempDir() + "gpucore_bad_table.json";
  std::ofstream(path) << "{\"format\": \"qalg-table\", ";
  try {
    read_table_data(path);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": not valid JSON"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
  EXPECT_THROW(read_plan_file("/nonexistent/p.json"), std::invalid_argument);
}

TEST(Fraction, ParsesNormalisesAndChecksOverflow) {
  EXPECT_EQ(parse_fraction("6/-4"), (Fraction{-3, 2}));
  EXPECT_EQ(parse_fraction("-0/5"), (Fraction{0, 1}));
  EXPECT_EQ(parse_fraction("+7"), (Fraction{7, 1}));
  EXPECT_THROW(parse_fraction("9223372036854775808"), std::invalid_argument);
  EXPECT_THROW(parse_fraction("1/-9223372036854775808"), std::invalid_argument);
  EXPECT_THROW(parse_fraction("1/2/3"), std::invalid_argument);
  EXPECT_THROW(multiply({int64_t(1) << 40, 1}, {int64_t(1) << 40, 1}), std::invalid_argument);
  EXPECT_EQ(multiply({int64_t(1) << 40, 3}, {3, int64_t(1) << 40}), (Fraction{1, 1}));
  EXPECT_EQ(fraction_text({-3, 2}), "-3/2");
}

QALG_PROPERTY(PlanJson, RoundTripsExactly) {
  test::RandomCase c = test::random_case(seed);
  KernelPlan p = lower_table(c.table, c.s, c.r);
  nlohmann::json j = plan_to_json(p);
  KernelPlan back = plan_from_json(nlohmann::json::parse(j.dump()), "plan.json");
  PROP_ASSERT(back.q == p.q && back.input_widths == p.input_widths &&
              back.output_widths == p.output_widths && back.table_hash == p.table_hash &&
              back.block_used == p.block_used && back.field == p.field);
  for (size_t cell = 0; cell < p.terms.size(); ++cell) {
    PROP_ASSERT_EQ(back.terms[cell].size(), p.terms[cell].size());
    for (size_t x = 0; x < p.terms[cell].size(); ++x)
      PROP_ASSERT(back.terms[cell][x].input_group == p.terms[cell][x].input_group &&
                  back.terms[cell][x].num == p.terms[cell][x].num &&
                  back.terms[cell][x].den == p.terms[cell][x].den);
  }
}

TEST(PlanJson, RejectsMalformedPlans) {
  nlohmann::json good = plan_to_json(lower_table(test::complete_table(2), {4, 4}, {4, 4}));
  ASSERT_NO_THROW(plan_from_json(good, "p.json"));
  const std::pair<const char*, nlohmann::json> edits[] = {
      {"/format", "qalg-table"},
      {"/q", 0},
      {"/q", -2},
      {"/input_widths", nlohmann::json::array({4})},
      {"/output_widths/1", 0},
      {"/terms/0/0", 2},
      {"/terms/0/2/0/0", 7},
      {"/terms/0/2/0/1", "0"},
      {"/terms/0/2/0/1", 1.5},
      {"/terms/1/2", nlohmann::json::array({nlohmann::json::array({1, 1}), nlohmann::json::array({0, 1})})},
      {"/terms/1/1", 0},  // (0, 0) listed twice
      {"/table_hash", 5},
  };
  for (const auto& [pointer, value] : edits) {
    nlohmann::json j = good;
    j[nlohmann::json::json_pointer(pointer)] = value;
    try {
      plan_from_json(j, "p.json");
      ADD_FAILURE() << "accepted edit " << pointer << " = " << value.dump();
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).rfind("p.json: ", 0), 0u) << e.what();
    }
  }
}

}  // namespace
}  // namespace qalg::gpu
