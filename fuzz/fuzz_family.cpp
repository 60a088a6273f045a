// libFuzzer target: the GRAPH family specs and --field/--power, as `qalg inspect SPEC --field F
// --power k` builds them: quiver_family -> graph_algebra -> tensor_power. Input: up to three
// lines "spec", "field", "power". Oversized results (complete:100000, --power 40) must be refused
// by the resource guards (ResourceError, an InputError) before allocation.
#include <string>

#include "fuzz_support.hpp"
#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/graph_algebra.hpp"
#include "qalg/algebra/quiver_input.hpp"
#include "qalg/algebra/report.hpp"
#include "qalg/algebra/tensor_product.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace qalg;
  std::string in(fuzz::text(data, size)), line[3];
  for (size_t n = 0, pos = 0; n < 3 && pos <= in.size(); ++n) {
    size_t end = std::min(in.find('\n', pos), in.size());
    line[n] = in.substr(pos, end - pos);
    pos = end + 1;
  }
  try {
    Quiver q = quiver_family(line[0]);
    Field f = line[1].empty() ? Field::rationals() : Field::parse(line[1]);
    // --power is an unsigned option; CLI11 rejects anything else before the algebra sees it.
    unsigned power = 1;
    if (!line[2].empty()) {
      if (line[2].size() > 9 || line[2].find_first_not_of("0123456789") != std::string::npos) return 0;
      power = unsigned(std::stoul(line[2]));
      if (power == 0) return 0;
    }
    StructureTensor t = graph_algebra(q, f);
    if (t.dim() != q.vertices.size() + q.arrows.size()) fuzz::fail("dim != |V| + |E|");
    if (power > 1) {
      size_t nnz1 = t.nnz(), dim1 = t.dim();
      t = tensor_power(t, power);
      // dim and nnz of a tensor power are the k-th powers of the factor's (SPEC §2).
      size_t d = 1, z = 1;
      for (unsigned n = 0; n < power; ++n) d *= dim1, z *= nnz1;
      if (t.dim() != d || t.nnz() != z) fuzz::fail("tensor power has wrong dim or nnz");
    }
    if (t.dim() <= 32) {
      AlgebraReport r = inspect_algebra(t);
      if (!r.associativity.associative || !r.unit) fuzz::fail("graph algebra (power) not associative and unital");
    }
  } catch (const InputError&) {
  }
  return 0;
}
