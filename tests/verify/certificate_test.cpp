// Certificates (issue 5): they round-trip through JSON and re-verify from the embedded table; the
// SPEC §3 numbers appear in them; every kind of tampering (table, claims, evidence, algorithm)
// is rejected with the claim named; a non-associative table's certificate carries a witness.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/graph_algebra.hpp"
#include "qalg/algebra/known_algebras.hpp"
#include "qalg/algebra/quiver_input.hpp"
#include "qalg/algebra/table_io.hpp"
#include "qalg/algebra/tensor_product.hpp"
#include "qalg/verify/certificate.hpp"
#include "qalg/verify/fault.hpp"
#include "qalg/verify/generators.hpp"

using namespace qalg;
using namespace qalg::verify;
using nlohmann::json;

namespace {

StructureTensor family(const std::string& spec, unsigned power = 1) {
  StructureTensor t = graph_algebra(quiver_family(spec), Field::rationals());
  return power > 1 ? tensor_power(t, power) : t;
}

// Through text, as a file would carry it.
CertificateVerdict reverify(const json& cert) { return verify_certificate(json::parse(cert.dump()), "cert.json"); }

bool rejects_claim(const json& cert, const std::string& claim) {
  const CertificateVerdict v = reverify(cert);
  for (const auto& c : v.checks)
    if (c.claim == claim && !c.ok) return !v.valid;
  return false;
}

}  // namespace

TEST(Certificate, SpecNumbersRoundTrip) {
  struct Row { std::string spec; unsigned power; size_t dim, t, bound, explicit_length; std::optional<size_t> exact; };
  // SPEC §3 table (Q_2 ⊗ Q_2: rank open in [28, 36]; the loop square's 9 is the product algorithm).
  for (const Row& r : {Row{"complete:2", 1, 4, 2, 6, 6, 6}, Row{"complete:4", 1, 16, 4, 28, 28, 28},
                       Row{"complete:2", 2, 16, 4, 28, 36, std::nullopt}, Row{"cycle:1", 2, 4, 1, 7, 9, std::nullopt}}) {
    const StructureTensor t = family(r.spec, r.power);
    const Certificate c = make_certificate(t, r.spec);
    EXPECT_TRUE(c.all_checks_hold) << r.spec;
    EXPECT_EQ(c.json["dim"], r.dim);
    EXPECT_EQ(c.json["t"]["value"], r.t) << r.spec;
    EXPECT_EQ(c.json["t"]["evidence"], "idempotents") << r.spec;
    EXPECT_EQ(c.json["best_lower_bound"], r.bound) << r.spec;
    EXPECT_EQ(c.json["algorithm_length"], r.explicit_length) << r.spec;
    EXPECT_EQ(c.json["rank_exact"], r.exact ? json(*r.exact) : json(nullptr)) << r.spec;
    EXPECT_EQ(c.json["table_hash"], table_hash(t));
    const CertificateVerdict v = reverify(c.json);
    EXPECT_TRUE(v.valid) << r.spec << ": " << v.first_failure();
  }
}

RC_GTEST_PROP(Certificate, RandomGraphAlgebrasRoundTrip, ()) {
  const GraphCase g = *gen_graph_case(QuiverShape{.max_vertices = 4, .max_arrows = 6});
  const Certificate c = make_certificate(g.table, "generated");
  RC_ASSERT(c.all_checks_hold);
  RC_ASSERT(c.json["t"]["value"] == g.quiver.vertex_count());
  RC_ASSERT(c.json["radical"]["dim"] == g.quiver.arrow_count());
  const CertificateVerdict v = reverify(c.json);
  RC_ASSERT(v.valid);
}

TEST(Certificate, AlgebrasWithoutSplitEvidenceAreRecomputed) {
  // M_2(Q): semisimple, t = 1, radical 0; Q[C_3] ≅ Q × Q(ω): t = 2 over Q but 3 over GF(7)
  // (7 ≡ 1 mod 3); T_3(Q): radical the strictly upper part (dim 3, index 3), t = 3.
  struct Row { StructureTensor t; size_t t_value, radical_dim, index; std::string evidence; };
  for (const Row& r : {Row{matrix_algebra(2, Field::rationals()), 1, 0, 1, "general route"},
                       Row{cyclic_group_algebra(3, Field::rationals()), 2, 0, 1, "general route"},
                       Row{cyclic_group_algebra(3, Field::prime(7)), 3, 0, 1, "general route"},
                       Row{upper_triangular_algebra(3, Field::rationals()), 3, 3, 3, "idempotents"}}) {
    const Certificate c = make_certificate(r.t, "known");
    EXPECT_TRUE(c.all_checks_hold);
    EXPECT_EQ(c.json["t"]["value"], r.t_value) << c.json["table"]["basis"];
    EXPECT_EQ(c.json["t"]["evidence"], r.evidence);
    EXPECT_EQ(c.json["radical"]["dim"], r.radical_dim);
    EXPECT_EQ(c.json["radical"]["nilpotency_index"], r.index);
    EXPECT_TRUE(reverify(c.json).valid) << reverify(c.json).first_failure();
    json forged = c.json;
    forged["t"]["value"] = r.t_value + 1;
    EXPECT_TRUE(rejects_claim(forged, "t"));
  }
}

TEST(Certificate, TamperedTableIsRejected) {
  const json good = make_certificate(family("complete:2"), "complete:2").json;
  json bad = good;
  bad["table"]["entries"][0][3] = "2";  // e_1 e_1 = 2 e_1, hash left as it was
  EXPECT_TRUE(rejects_claim(bad, "table_hash"));
  // Re-hashed by the forger: the claims about the table must fail instead.
  bad["table_hash"] = table_hash(table_from_json(bad["table"], "forged"));
  const CertificateVerdict v = reverify(bad);
  EXPECT_FALSE(v.valid);
  EXPECT_TRUE(rejects_claim(bad, "unit"));
  EXPECT_TRUE(rejects_claim(bad, "algorithm"));
}

TEST(Certificate, TamperedClaimsAreRejected) {
  const json good = make_certificate(family("complete:2"), "complete:2").json;
  ASSERT_TRUE(reverify(good).valid);
  auto tampered = [&](auto edit) { json c = good; edit(c); return c; };
  EXPECT_TRUE(rejects_claim(tampered([](json& c) { c["t"]["value"] = 3; }), "t"));
  EXPECT_TRUE(rejects_claim(tampered([](json& c) { c["unit"]["element"].erase(1); }), "unit"));
  EXPECT_TRUE(rejects_claim(tampered([](json& c) { c["unit"]["is_vertex_sum"] = false; }), "unit.is_vertex_sum"));
  EXPECT_TRUE(rejects_claim(tampered([](json& c) { c["radical"]["basis"][0] = json::array({json::array({0, "1"})}); }), "radical"));
  EXPECT_TRUE(rejects_claim(tampered([](json& c) { c["radical"]["nilpotency_index"] = 3; }), "radical"));
  EXPECT_TRUE(rejects_claim(tampered([](json& c) { c["idempotents"]["elements"].erase(0); }), "idempotents"));
  EXPECT_TRUE(rejects_claim(tampered([](json& c) { c["algorithm"]["terms"].erase(0); }), "algorithm"));
  EXPECT_TRUE(rejects_claim(tampered([](json& c) { c["rank_exact"] = 5; }), "rank_exact"));
  EXPECT_TRUE(rejects_claim(tampered([](json& c) { c["bounds"][0]["value"] = 7; }), "bound:" + good["bounds"][0]["name"].get<std::string>()));
  EXPECT_TRUE(rejects_claim(tampered([](json& c) { c["dim"] = 5; }), "dim"));
  EXPECT_TRUE(rejects_claim(tampered([](json& c) {
    c["associativity"] = {{"holds", false}, {"witness", {{"i", 0}, {"j", 0}, {"l", 0}, {"coordinate", 0}, {"left", "1"}, {"right", "0"}}}};
  }), "associativity"));
}

TEST(Certificate, NonAssociativeTableCarriesAVerifiedWitness) {
  // e_2 · b gains an e_2 term on the 2-cycle (tests/algebra/fault_injection_test.cpp).
  const StructureTensor t = family("complete:2");
  Fault f;
  f.i = 1, f.j = 3, f.k = 1, f.new_value = Rational(1);
  const StructureTensor bad = apply_fault(t, f);
  const Certificate c = make_certificate(bad, "perturbed");
  EXPECT_FALSE(c.all_checks_hold);
  ASSERT_EQ(c.json["associativity"]["holds"], false);
  EXPECT_TRUE(reverify(c.json).valid) << reverify(c.json).first_failure();  // the failure itself is certified
  json forged = c.json;
  forged["associativity"]["witness"]["left"] = forged["associativity"]["witness"]["right"];
  EXPECT_TRUE(rejects_claim(forged, "associativity"));
  forged = c.json;
  forged["associativity"] = {{"holds", true}};
  EXPECT_TRUE(rejects_claim(forged, "associativity"));
}

TEST(Certificate, MalformedCertificateIsAnInputError) {
  json c = make_certificate(family("path:2"), "path:2").json;
  json no_table = c;
  no_table.erase("table");
  EXPECT_THROW(verify_certificate(no_table, "c.json"), InputError);
  json wrong_format = c;
  wrong_format["format"] = "qalg-table";
  EXPECT_THROW(verify_certificate(wrong_format, "c.json"), InputError);
  json bad_index = c;
  bad_index["unit"]["element"][0][0] = 99;
  EXPECT_THROW(verify_certificate(bad_index, "c.json"), InputError);
}
