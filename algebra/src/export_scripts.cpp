// GAP and PARI/GP scripts that rebuild a table, so another system can judge it independently.
#include <fmt/core.h>

#include "qalg/algebra/change_of_basis.hpp"
#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/exports.hpp"
#include "qalg/algebra/unit.hpp"

namespace qalg {

namespace {

std::string gap_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') { out += "\\n"; continue; }
    out += c;
  }
  return out + "\"";
}

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

}  // namespace

std::string gap_script(const StructureTensor& t, const std::string& title) {
  std::string out = fmt::format("# qalg export: {} (dim {}, {} nonzero constants over {})\n",
                                one_line(title), t.dim(), t.nnz(), t.field().name());
  out += t.field().is_rationals() ? "F := Rationals;\n"
                                  : fmt::format("F := GF({});\n", t.field().characteristic());
  out += "o := One(F);\n";
  out += fmt::format("T := EmptySCTable({}, Zero(F));\n", t.dim());
  // SetEntrySCTable(T, i, j, [c1, k1, c2, k2, ...]) sets b_i b_j = Σ c b_k (1-based indices).
  const auto& e = t.entries();
  for (size_t s = 0; s < e.size();) {
    size_t r = s;
    std::string list;
    while (r < e.size() && e[r].i == e[s].i && e[r].j == e[s].j) {
      list += fmt::format("{}({})*o, {}", list.empty() ? "" : ", ", e[r].c.str(), e[r].k + 1);
      ++r;
    }
    out += fmt::format("SetEntrySCTable(T, {}, {}, [{}]);\n", e[s].i + 1, e[s].j + 1, list);
    s = r;
  }
  std::string names;
  for (const auto& n : t.basis_names()) names += (names.empty() ? "" : ", ") + gap_string(n);
  out += fmt::format("A := AlgebraByStructureConstants(F, T, [{}]);\n", names);
  return out;
}

std::string pari_script(const StructureTensor& t, const std::string& title) {
  UnitResult u = find_unit(t);
  if (!u.unit)
    throw InputError("PARI export: algtableinit needs a unital algebra, and this table has no unit (" +
                     u.reason + ")");
  slong n = static_cast<slong>(t.dim());
  uint32_t i0 = u.unit->front().first;
  FieldMatrix p(t.field(), n, n);
  std::string basis = "1";
  for (const auto& [k, c] : *u.unit) p.set(0, k, c);
  slong row = 1;
  for (uint32_t k = 0; k < t.dim(); ++k)
    if (k != i0) {
      p.set(row++, k, Rational(1));
      basis += ", " + t.basis_names()[k];
    }
  StructureTensor s = change_basis(t, p);  // basis (1, b_k : k ≠ i0): e_1 is the unit
  std::string out = fmt::format("\\\\ qalg export: {} (dim {} over {})\n\\\\ basis: {}\n",
                                one_line(title), t.dim(), t.field().name(), one_line(basis));
  // mt[i] = matrix of left multiplication by e_i: column j holds the coordinates of e_i e_j.
  out += "mt = [";
  for (slong i = 0; i < n; ++i) {
    std::vector<std::string> m(static_cast<size_t>(n * n), "0");
    for (const auto& e : s.row(static_cast<uint32_t>(i))) m[e.k * n + e.j] = e.c.str();
    std::string mat = n == 1 ? "Mat(" + m[0] + ")" : "[";
    if (n > 1) {
      for (slong r = 0; r < n; ++r)
        for (slong c = 0; c < n; ++c)
          mat += m[r * n + c] + (c + 1 < n ? "," : (r + 1 < n ? ";" : "]"));
    }
    out += (i ? ", " : "") + mat;  // one line: gp reads a file statement by line
  }
  out += "];\n";
  out += fmt::format("A = algtableinit(mt, {});\n", t.field().characteristic());
  return out;
}

}  // namespace qalg
