#pragma once
// Coq instance certificates (issue 9, proofs/README.md): one .v file per concrete table whose
// lemmas are proved by computation with the checkers of proofs/theories/Certify.v. The file
// states what it proves; Coq, not qalg, decides whether it holds.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "qalg/algebra/structure_tensor.hpp"
#include "qalg/rank/bilinear_algorithm.hpp"

namespace qalg {

// The quiver (vertices 0 .. n-1, arrows (s, t) in basis order) whose graph algebra a table is.
struct GraphShape {
  uint32_t vertices = 0;
  std::vector<std::pair<uint32_t, uint32_t>> arrows;
};

// Read from the table's entries when its GraphBasis hint is present: arrow b >= |V| takes
// s with c_{s b}^b = 1 and t with c_{b t}^b = 1. nullopt when the table does not have that shape.
// The result is a claim that Coq re-checks (graph_check), never trusted by the certificate.
std::optional<GraphShape> graph_shape(const StructureTensor& t);

struct CoqCertificate {
  std::string text;                 // the .v file
  bool associative = false;         // qalg's own check; the lemma is emitted only when true
  bool has_unit = false;            // unit lemma emitted
  std::optional<GraphShape> graph;  // radical and rank lemmas emitted
  size_t algorithm_length = 0;
  std::vector<std::string> notes;   // lemmas left out and why
};

// Largest table the generator writes: the checkers are quadratic in the number of monomials.
inline constexpr size_t kCoqMaxEntries = 4000;

// Throws InputError when the table cannot be certified in Coq: a field other than Q, a
// non-integer coefficient in the table or the algorithm (named), an algorithm of another
// dimension, or more than kCoqMaxEntries entries. `description` goes into the header comment.
CoqCertificate coq_certificate(const StructureTensor& t, const BilinearAlgorithm& alg,
                               const std::string& description);

// Throws InputError unless the file name is NAME.v with NAME a Coq identifier (coqc derives the
// module name from it); `option` names the option that gave it in the message.
void require_coq_file_name(const std::string& path, const std::string& option = "--out");

// Writes atomically (temporary file + rename).
void write_coq_certificate(const CoqCertificate& c, const std::string& path);

}  // namespace qalg
