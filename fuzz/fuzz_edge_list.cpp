// libFuzzer target: edge-list text -> qalg::parse_edge_list. Law: to_edge_list writes text that
// reads back to the same quiver (the counterexample files of `qalg check` rely on it).
#include "fuzz_support.hpp"
#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/quiver_input.hpp"

namespace {
bool same_quiver(const qalg::Quiver& a, const qalg::Quiver& b) {
  if (a.vertices != b.vertices || a.arrows.size() != b.arrows.size()) return false;
  for (size_t n = 0; n < a.arrows.size(); ++n)
    if (a.arrows[n].source != b.arrows[n].source || a.arrows[n].target != b.arrows[n].target ||
        a.arrows[n].name != b.arrows[n].name)
      return false;
  return true;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace qalg;
  Quiver q;
  try {
    q = parse_edge_list(std::string(fuzz::text(data, size)), "fuzz.edges");
  } catch (const InputError&) {
    return 0;
  }
  for (const Arrow& a : q.arrows)
    if (a.source >= q.vertices.size() || a.target >= q.vertices.size()) fuzz::fail("arrow endpoint out of range");
  // A quiver the reader accepted must survive its own writer: no InputError allowed here.
  Quiver back = parse_edge_list(to_edge_list(q), "round-trip");
  if (!same_quiver(q, back)) fuzz::fail("to_edge_list does not read back to the same quiver");
  return 0;
}
