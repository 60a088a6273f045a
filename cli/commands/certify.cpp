// qalg certify: write a certificate (verify/certificate.hpp) for a table, optionally a Coq
// instance file, or re-check a certificate with --verify. Exit 0 all checks hold / certificate
// valid, 1 a check failed / a claim does not hold, 2 bad input.
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/core.h>

#include "algebra_args.hpp"
#include "command_registry.hpp"
#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/file_io.hpp"
#include "qalg/algebra/table_io.hpp"
#include "qalg/rank/rank_report.hpp"
#include "qalg/verify/certificate.hpp"

// The Coq generator lives in proofs/ (its CMakeLists links qalg_proofs into qalg); without that
// module --coq reports that it is unavailable.
#if __has_include("qalg/proofs/coq_certificate.hpp")
#include "qalg/proofs/coq_certificate.hpp"
#define QALG_HAVE_COQ 1
#endif

namespace qalg::cli {
namespace {

struct CertifyOptions {
  AlgebraArgs algebra;
  std::string out, coq, verify;
  bool json = false;
};

int run_verify(const CertifyOptions& o) {
  if (!o.algebra.graph.empty() || !o.algebra.table_file.empty() || !o.out.empty() || !o.coq.empty())
    throw InputError("--verify takes only the certificate file (no GRAPH, --table-file, --out or --coq)");
  const nlohmann::json cert = read_json_input(o.verify, "certificate");
  const verify::CertificateVerdict v = verify::verify_certificate(cert, o.verify);
  // A valid certificate may record that the table fails a check (with its witness).
  std::string recorded_failures;
  for (const char* check : {"associativity", "unit"})
    if (cert.contains(check) && cert[check].value("holds", true) == false)
      recorded_failures += std::string(recorded_failures.empty() ? "" : ", ") + check;
  if (o.json) {
    nlohmann::json j = {{"certificate", o.verify}, {"valid", v.valid}, {"table_fails", recorded_failures}};
    for (const auto& c : v.checks) j["claims"].push_back({{"claim", c.claim}, {"ok", c.ok}, {"detail", c.detail}});
    std::cout << j.dump(2) << "\n";
  } else {
    for (const auto& c : v.checks) fmt::print("  {:<4} {:<22} {}\n", c.ok ? "ok" : "FAIL", c.claim, c.detail);
    if (v.valid)
      fmt::print("certificate {} is valid: every claim re-checked from its table{}\n", o.verify,
                 recorded_failures.empty() ? "" : " (it records that the table fails: " + recorded_failures + ")");
    // (a kernel package's certificate: its kernel_export claims are about the package's files, which
    // this command does not read; it said "every claim" of a package whose plan had been edited)
    if (cert.contains("kernel_export"))
      fmt::print("  its kernel_export section (the package's files, plan and shape) is not checked here: "
                 "qalg export --verify DIR re-checks the whole package\n");
  }
  if (!v.valid) std::cerr << "qalg: certificate " << o.verify << " rejected: " << v.first_failure() << "\n";
  return v.valid ? 0 : 1;
}

int run_certify(const CertifyOptions& o) {
  if (!o.verify.empty()) return run_verify(o);
  if (o.out.empty()) throw InputError("certify needs --out cert.json (or --verify cert.json)");
#ifndef QALG_HAVE_COQ
  if (!o.coq.empty()) throw InputError("--coq: this build has no proofs module");
#else
  if (!o.coq.empty()) require_coq_file_name(o.coq, "--coq");
#endif
  const StructureTensor t = o.algebra.build();
  const verify::Certificate cert = verify::make_certificate(t, o.algebra.describe());
  // Build the Coq file before writing anything, so a table Coq cannot take leaves no files.
  bool coq_written = false;
#ifdef QALG_HAVE_COQ
  std::optional<CoqCertificate> coq;
  if (!o.coq.empty()) {
    const KnownAlgorithm best = best_known_algorithm(t, std::nullopt);
    if (!best.verified) throw InputError("--coq: no verified algorithm for this table");
    coq = coq_certificate(t, best.algorithm, o.algebra.describe());
  }
#endif
  // Both files or neither: a --coq path that cannot be written leaves no certificate behind.
  std::vector<std::pair<std::string, std::string>> files{{cert.json.dump(2) + "\n", o.out}};
#ifdef QALG_HAVE_COQ
  if (coq) files.emplace_back(coq->text, o.coq), coq_written = true;
#endif
  write_texts_atomically(files);
  if (o.json) {
    std::cout << nlohmann::json{{"certificate", o.out}, {"all_checks_hold", cert.all_checks_hold},
                                {"failed", cert.failed}, {"table_hash", cert.json["table_hash"]}}
                     .dump(2)
              << "\n";
  } else {
    fmt::print("certificate for {} written to {}\n", o.algebra.describe(), o.out);
    fmt::print("  table hash {}\n", cert.json["table_hash"].get<std::string>());
    if (cert.json.contains("t")) fmt::print("  t = {} ({})\n", cert.json["t"]["value"].get<size_t>(), cert.json["t"]["evidence"].get<std::string>());
    if (cert.json.contains("algorithm_length"))
      fmt::print("  verified algorithm of length {}, best lower bound {}\n", cert.json["algorithm_length"].get<size_t>(),
                 cert.json["best_lower_bound"].get<size_t>());
    for (const auto& f : cert.failed) fmt::print("  FAILED: {}\n", f);
    if (coq_written) fmt::print("Coq instance written to {}\n", o.coq);
  }
  return cert.all_checks_hold ? 0 : 1;
}

const RegisterCommand kRegisterCertify{Command{
    "certify", "write a certificate (table hash, every check with evidence, bounds, verified algorithm) or --verify one",
    [](CLI::App& sub) -> std::function<int()> {
      auto o = std::make_shared<CertifyOptions>();
      o->algebra.add_to(sub);
      sub.add_option("--out", o->out, "certificate file to write (JSON)");
      sub.add_option("--coq", o->coq, "also write a Coq instance file NAME.v (tables over Q with integer constants)");
      sub.add_option("--verify", o->verify, "re-check a certificate from its embedded table (exit 1 if a claim fails)");
      sub.add_flag("--json", o->json, "machine-readable output");
      return [o] { return run_certify(*o); };
    }}};

}  // namespace
}  // namespace qalg::cli
