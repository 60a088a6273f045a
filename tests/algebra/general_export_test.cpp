// Exports for GAP and PARI/GP (issue 3). The oracle tests (tests/oracle) run GAP on these scripts;
// here: the GAP script sets exactly one entry list per nonzero product b_i b_j, and the PARI table
// is rewritten so that its first basis element is the unit (mt[1] is the identity matrix).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <set>

#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/exports.hpp"
#include "qalg/verify/generators.hpp"

using namespace qalg;

namespace {

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

std::string identity_text(size_t n) {
  if (n == 1) return "Mat(1)";
  std::string s = "[";
  for (size_t r = 0; r < n; ++r)
    for (size_t c = 0; c < n; ++c) s += std::string(r == c ? "1" : "0") + (c + 1 < n ? "," : (r + 1 < n ? ";" : "]"));
  return s;
}

}  // namespace

RC_GTEST_PROP(Exports, GapScriptHasOneEntryListPerNonzeroProduct, ()) {
  StructureTensor t = graph_algebra(*verify::gen_quiver(), *verify::gen_field());
  std::set<std::pair<uint32_t, uint32_t>> products;
  for (const auto& e : t.entries()) products.emplace(e.i, e.j);
  std::string g = gap_script(t, "test");
  RC_ASSERT(count(g, "SetEntrySCTable(") == products.size());
  RC_ASSERT(count(g, "A := AlgebraByStructureConstants(F, T, [") == 1u);
  RC_ASSERT(count(g, "\n") == products.size() + 5);  // comment, F, o, T, entries, A
}

RC_GTEST_PROP(Exports, PariTableStartsWithTheUnit, ()) {
  StructureTensor t = graph_algebra(*verify::gen_quiver(), *verify::gen_field());
  std::string g = pari_script(t, "test");
  size_t at = g.find("mt = [");
  RC_ASSERT(at != std::string::npos);
  RC_ASSERT(g.compare(at + 6, identity_text(t.dim()).size(), identity_text(t.dim())) == 0);
  RC_ASSERT(count(g, "A = algtableinit(mt, " + std::to_string(t.field().characteristic()) + ");") == 1u);
}

TEST(Exports, PariRefusesANonUnitalTable) {
  StructureTensor t(Field::rationals(), {"x", "y"});
  t.add(0, 0, 1, Rational(1));
  t.finalize();
  EXPECT_THROW(pari_script(t, "nilpotent"), InputError);
  EXPECT_NO_THROW(gap_script(t, "nilpotent"));
}

TEST(Exports, GapNamesAreQuoted) {
  StructureTensor t(Field::prime(7), {"a\"b", "c\\d"});
  t.add(0, 0, 0, Rational(3));
  t.finalize();
  std::string g = gap_script(t, "quotes");
  EXPECT_NE(g.find("[\"a\\\"b\", \"c\\\\d\"]"), std::string::npos) << g;
  EXPECT_NE(g.find("F := GF(7);"), std::string::npos);
  EXPECT_NE(g.find("SetEntrySCTable(T, 1, 1, [(3)*o, 1]);"), std::string::npos) << g;
}
