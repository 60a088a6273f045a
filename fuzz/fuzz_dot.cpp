// libFuzzer target: DOT text -> qalg::parse_dot (Boost.Graph's GraphViz reader) -> graph algebra,
// and for small quivers the full inspect report, which must hold every law of SPEC §1.
#include "fuzz_support.hpp"
#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/graph_algebra.hpp"
#include "qalg/algebra/quiver_input.hpp"
#include "qalg/algebra/report.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace qalg;
  try {
    Quiver q = parse_dot(std::string(fuzz::text(data, size)), "fuzz.dot");
    for (const Arrow& a : q.arrows)
      if (a.source >= q.vertices.size() || a.target >= q.vertices.size()) fuzz::fail("arrow endpoint out of range");
    if (q.vertices.size() + q.arrows.size() > 24) return 0;
    StructureTensor t = graph_algebra(q, Field::rationals());
    if (t.nnz() != q.vertices.size() + 2 * q.arrows.size()) fuzz::fail("nnz != |V| + 2|E| (SPEC §1)");
    AlgebraReport r = inspect_algebra(t);
    // Every graph algebra is associative and unital with unit Σ e_v (SPEC §1).
    if (!r.associativity.associative || !r.unit) fuzz::fail("graph algebra not associative and unital");
  } catch (const InputError&) {
  }
  return 0;
}
