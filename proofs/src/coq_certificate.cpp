// Writing a Coq instance file (proofs/README.md, "Instance certificates"): the table, its unit,
// a bilinear algorithm and, for graph algebras, the quiver, as Coq data over Z with binary
// indices; each lemma is discharged by one checker of Certify.v, run by the kernel's VM.
#include <regex>
#include <sstream>

#include <fmt/core.h>

#include "qalg/algebra/associativity.hpp"
#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/table_io.hpp"
#include "qalg/algebra/unit.hpp"
#include "qalg/proofs/coq_certificate.hpp"

namespace qalg {

namespace {

bool is_integer(const Rational& c) { return fmpz_is_one(fmpq_denref(c.get())) != 0; }

std::string z(const Rational& c) { return c.str() + "%Z"; }

// Coq list syntax, a few items per line so that a diff of two certificates stays readable.
std::string coq_list(const std::vector<std::string>& items, size_t per_line) {
  if (items.empty()) return "[]";
  std::string out = "[\n  ";
  for (size_t n = 0; n < items.size(); ++n) {
    out += items[n];
    if (n + 1 < items.size()) out += (n + 1) % per_line == 0 ? ";\n  " : "; ";
  }
  return out + "]";
}

std::string sparse(const SparseVector& v) {
  std::vector<std::string> items;
  for (const auto& [i, c] : v) items.push_back(fmt::format("({}, {})", i, z(c)));
  std::string out = "[";
  for (size_t n = 0; n < items.size(); ++n) out += (n ? "; " : "") + items[n];
  return out + "]";
}

void require_integers(const SparseVector& v, const std::string& what) {
  for (const auto& [i, c] : v)
    if (!is_integer(c))
      throw InputError(fmt::format("coq: {} has the non-integer coefficient {} at index {}; "
                                   "certificates are written over Z", what, c.str(), i));
}

// Comments must not close early: "*)" inside a basis name would end the comment, "(*" open a nested
// one, and a double quote a string literal (Coq lexes strings inside comments, so a lone quote in a
// name left the comment unterminated: `Lexer: Unterminated string`). Quotes become apostrophes.
std::string comment_safe(std::string s) {
  for (size_t p; (p = s.find("*)")) != std::string::npos;) s.replace(p, 2, "* )");
  for (size_t p; (p = s.find("(*")) != std::string::npos;) s.replace(p, 2, "( *");
  for (char& c : s)
    if (c == '"') c = '\'';
  return s;
}

// The checker runs once, in the kernel at Qed (vm_cast_no_check skips the tactic-time run, which
// would only repeat the same computation); a false check makes Qed fail.
const char* kByComputation = "vm_cast_no_check (eq_refl true)";

}  // namespace

void require_coq_file_name(const std::string& path, const std::string& option) {
  std::string base = path.substr(path.find_last_of('/') + 1);
  static const std::regex ident("[A-Za-z_][A-Za-z0-9_']*\\.v");
  if (!std::regex_match(base, ident))
    throw InputError(fmt::format("{} {}: the file name must be NAME.v with NAME a Coq identifier "
                                 "(letters, digits, _ and ', not starting with a digit)", option, path));
}

CoqCertificate coq_certificate(const StructureTensor& t, const BilinearAlgorithm& alg,
                               const std::string& description) {
  if (!t.field().is_rationals())
    throw InputError(fmt::format("coq: the table is over {}; certificates cover tables over Q "
                                 "with integer structure constants", t.field().name()));
  if (t.nnz() > kCoqMaxEntries)
    throw InputError(fmt::format("coq: the table has {} nonzero structure constants, more than "
                                 "the {} that Coq checks in reasonable time", t.nnz(), kCoqMaxEntries));
  if (alg.dim != t.dim())
    throw InputError(fmt::format("coq: the algorithm has dimension {}, the table {}", alg.dim, t.dim()));
  for (const TensorEntry& e : t.entries())
    if (!is_integer(e.c))
      throw InputError(fmt::format("coq: structure constant c_{},{}^{} = {} is not an integer; "
                                   "certificates are written over Z", e.i, e.j, e.k, e.c.str()));
  for (size_t l = 0; l < alg.terms.size(); ++l) {
    require_integers(alg.terms[l].alpha, fmt::format("algorithm term {} (alpha)", l));
    require_integers(alg.terms[l].beta, fmt::format("algorithm term {} (beta)", l));
    require_integers(alg.terms[l].gamma, fmt::format("algorithm term {} (gamma)", l));
  }

  CoqCertificate cert;
  cert.algorithm_length = alg.length();
  cert.associative = check_associativity(t).associative;
  UnitResult unit = find_unit(t);
  if (unit.unit) {
    try {
      require_integers(*unit.unit, "the unit");
      cert.has_unit = true;
    } catch (const InputError& e) {
      cert.notes.push_back(std::string("unit lemma left out: ") + e.what());
    }
  } else {
    cert.notes.push_back("unit lemma left out: the table has no unit (" + unit.reason + ")");
  }
  if (!cert.associative) cert.notes.push_back("associativity lemma left out: qalg finds the table not associative");
  cert.graph = graph_shape(t);
  if (!cert.graph) cert.notes.push_back("radical and rank lemmas left out: the table is not a graph algebra in its basis");

  std::ostringstream v;
  v << "(* qalg Coq certificate: " << comment_safe(description) << "\n"
    << "   table sha256: " << table_hash(t) << "\n"
    << "   dim " << t.dim() << ", nnz " << t.nnz() << ", algorithm length " << alg.length() << "\n"
    << "   basis:";
  for (size_t b = 0; b < t.dim(); ++b) v << " " << b << "=" << comment_safe(t.basis_names()[b]);
  v << "\n   Check with: coqc -Q <theories> Qalg FILE.v (proofs/README.md). *)\n";
  for (const auto& n : cert.notes) v << "(* " << comment_safe(n) << " *)\n";
  v << "From Coq Require Import List NArith ZArith.\n"
       "From Qalg Require Import Ring Tensor Certify.\n"
       "Import ListNotations.\nLocal Open Scope N_scope.\n\n";

  std::vector<std::string> entries;
  for (const TensorEntry& e : t.entries()) entries.push_back(fmt::format("({}, {}, {}, {})", e.i, e.j, e.k, z(e.c)));
  std::vector<std::string> terms;
  for (const BilinearTerm& term : alg.terms)
    terms.push_back(fmt::format("({}, {}, {})", sparse(term.alpha), sparse(term.beta), sparse(term.gamma)));
  v << "Definition dim : N := " << t.dim() << ".\n"
    << "(* (i, j, k, c): c_ij^k = c, i.e. b_i b_j has coefficient c on b_k. *)\n"
    << "Definition table : ztable := " << coq_list(entries, 6) << ".\n"
    << "(* (alpha, beta, gamma) per multiplication: " << comment_safe(alg.name) << ". *)\n"
    << "Definition algorithm : list ztriple := " << coq_list(terms, 2) << ".\n\n"
    << "Lemma table_wf : wf_check dim table = true.\n" << "Proof. " << kByComputation << ". Qed.\n\n";
  if (cert.associative)
    v << "Theorem table_associative (R : cring) : associative R (zmap_table R table) dim.\n"
      << "Proof. apply assoc_check_sound. " << kByComputation << ". Qed.\n\n";
  if (cert.has_unit)
    v << "Definition unit : zvec := " << sparse(*unit.unit) << ".\n"
      << "Theorem table_unit (R : cring) : unit_of R (zmap_table R table) dim (zv R unit).\n"
      << "Proof. apply unit_check_sound. " << kByComputation << ". Qed.\n\n";
  v << "Theorem algorithm_computes (R : cring) :\n"
    << "  computes R (zmap_table R table) dim (zalg R algorithm).\n"
    << "Proof. apply alg_check_sound. " << kByComputation << ". Qed.\n\n"
    << "Lemma algorithm_length : length algorithm = " << alg.length() << "%nat.\n"
    << "Proof. vm_compute. reflexivity. Qed.\n";
  if (cert.graph) {
    const GraphShape& g = *cert.graph;
    std::vector<std::string> arrows, radical;
    for (const auto& [s, tt] : g.arrows) arrows.push_back(fmt::format("({}, {})", s, tt));
    for (size_t b = g.vertices; b < t.dim(); ++b) radical.push_back(std::to_string(b));
    size_t rank = g.vertices + 2 * g.arrows.size();
    v << "\n(* The table is the graph algebra of this quiver (vertices 0 .. " << g.vertices
      << "-1, arrows (s, t) in basis order). *)\n"
      << "Definition vertices : N := " << g.vertices << ".\n"
      << "Definition arrows : list (N * N) := " << coq_list(arrows, 8) << ".\n"
      << "Definition radical_basis : list N := " << coq_list(radical, 16) << ".\n\n"
      << "Theorem radical_ideal (R : cring) :\n"
      << "  ideal R (zmap_table R table) dim (spanned R dim radical_basis).\n"
      << "Proof. apply ideal_check_sound; " << kByComputation << ". Qed.\n\n"
      << "Theorem radical_square_zero (R : cring) : forall x y,\n"
      << "  spanned R dim radical_basis x -> spanned R dim radical_basis y ->\n"
      << "  forall k, tmul R (zmap_table R table) x y k = zero R.\n"
      << "Proof. apply square_zero_check_sound; " << kByComputation << ". Qed.\n\n"
      << "(* R(A) = |V| + 2|E| = " << rank << " over every field (GraphRank.graph_algebra_rank). *)\n"
      << "Theorem rank (F : cfield) :\n"
      << "  (computes F (zmap_table F table) dim (canonical F (zmap_table F table)) /\\\n"
      << "   length (canonical F (zmap_table F table)) = " << rank << "%nat) /\\\n"
      << "  forall A, computes F (zmap_table F table) dim A -> (" << rank << " <= length A)%nat.\n"
      << "Proof. apply (instance_graph_rank dim table vertices arrows); " << kByComputation << ". Qed.\n\n"
      << "Print Assumptions rank.\n";
  }
  cert.text = v.str();
  return cert;
}

void write_coq_certificate(const CoqCertificate& c, const std::string& path) {
  require_coq_file_name(path);
  write_text_atomically(c.text, path);
}

}  // namespace qalg
