// qalg coq: write a Coq certificate for one table (proofs/README.md). Coq, run by the user or by
// `make test`, checks the file; qalg only writes it. Exit 0; 1 when a given --algorithm fails
// verification; 2 on bad input (including tables Coq certificates do not cover).
#include <iostream>
#include <memory>

#include <fmt/core.h>

#include "algebra_args.hpp"
#include "command_registry.hpp"
#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/table_io.hpp"
#include "qalg/proofs/coq_certificate.hpp"
#include "qalg/rank/algorithm_io.hpp"
#include "qalg/rank/rank_report.hpp"

namespace qalg::cli {
namespace {

struct CoqOptions {
  AlgebraArgs algebra;
  std::string out;
  std::string algorithm_file;
};

int run_coq(const CoqOptions& o) {
  require_coq_file_name(o.out);
  StructureTensor t = o.algebra.build();
  BilinearAlgorithm alg;
  if (!o.algorithm_file.empty()) {
    alg = read_algorithm_file(o.algorithm_file);
    require_compatible(alg, t, o.algorithm_file);
    VerificationResult v = verify_algorithm(alg, t);
    if (!v.verified) {
      std::cerr << fmt::format("qalg coq: --algorithm {} does not compute the table: {}\n",
                               o.algorithm_file, v.failure);
      return 1;
    }
  } else {
    KnownAlgorithm best = best_known_algorithm(t, std::nullopt);
    if (!best.verified) throw InputError("coq: qalg has no verified algorithm for this table");
    alg = std::move(best.algorithm);
  }
  CoqCertificate cert = coq_certificate(t, alg, o.algebra.describe());
  write_coq_certificate(cert, o.out);
  fmt::print("wrote {} for {} (table sha256 {})\n", o.out, o.algebra.describe(), table_hash(t));
  fmt::print("lemmas: wf{}{}, algorithm of length {}{}\n", cert.associative ? ", associative" : "",
             cert.has_unit ? ", unit" : "", cert.algorithm_length,
             cert.graph ? ", radical ideal with J^2 = 0, rank (graph algebra)" : "");
  for (const auto& n : cert.notes) fmt::print("note: {}\n", n);
  return 0;
}

// A name of its own (not `reg`): the unity build compiles the command files as one source.
const RegisterCommand kRegisterCoq{Command{
    "coq", "write a Coq certificate (.v) for a table: associativity, unit, algorithm, rank",
    [](CLI::App& sub) -> std::function<int()> {
      auto o = std::make_shared<CoqOptions>();
      o->algebra.add_to(sub);
      sub.add_option("--out", o->out, "the .v file to write (NAME.v, NAME a Coq identifier)")->required();
      sub.add_option("--algorithm", o->algorithm_file,
                     "bilinear algorithm (qalg-algorithm JSON) to certify instead of qalg's best");
      return [o] { return run_coq(*o); };
    }}};

}  // namespace
}  // namespace qalg::cli
