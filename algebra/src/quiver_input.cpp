// Quiver input: GRAPH argument dispatch, edge lists and DOT (Boost.Graph's GraphViz parser).
#include "qalg/algebra/quiver_input.hpp"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <boost/graph/graphviz.hpp>
#include <fmt/core.h>

#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/file_io.hpp"
#include "quiver_builder.hpp"

namespace qalg {

namespace {

bool looks_like_dot(const std::string& text) {
  std::istringstream in(text);
  std::string word;
  while (in >> word) {
    if (word.rfind("//", 0) == 0 || word[0] == '#') {  // skip comment lines
      std::string rest;
      std::getline(in, rest);
      continue;
    }
    return word == "digraph" || word == "strict" || word == "graph" || word.rfind("digraph{", 0) == 0;
  }
  return false;
}

bool has_suffix(const std::string& s, const std::string& suf) {
  return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}

}  // namespace

Quiver parse_edge_list(const std::string& text, const std::string& origin) {
  detail::QuiverBuilder b;
  std::istringstream in(text);
  std::string line;
  size_t line_no = 0;
  bool any_line = false;
  while (std::getline(in, line)) {
    ++line_no;
    // A comment starts at a '#' that begins a word: inside a name it is part of the name, so
    // that the default names of parallel arrows ("s->t#2") read back from to_edge_list.
    for (size_t p = 0; p < line.size(); ++p)
      if (line[p] == '#' && (p == 0 || std::isspace(static_cast<unsigned char>(line[p - 1])))) {
        line.resize(p);
        break;
      }
    std::istringstream words(line);
    std::vector<std::string> tok;
    for (std::string w; words >> w;) tok.push_back(w);
    if (tok.empty()) continue;
    // JSON (a table file, a plan, a certificate) would otherwise read as vertices named '{' and
    // '"format":', a nonsense quiver with exit 0. No edge list's first word starts so.
    if (!any_line && (tok[0][0] == '{' || tok[0][0] == '['))
      throw InputError(fmt::format("{}:{}: this looks like JSON, not an edge list or DOT quiver (a qalg table file "
                                   "goes to --table-file)",
                                   origin, line_no));
    any_line = true;
    if (tok.size() > 3)
      throw InputError(fmt::format("{}:{}: expected 'source target [name]' or a lone vertex, got {} tokens",
                                   origin, line_no, tok.size()));
    if (tok.size() == 1) {
      b.vertex(tok[0]);
    } else if (!b.arrow(tok[0], tok[1], tok.size() == 3 ? tok[2] : "")) {
      throw InputError(fmt::format("{}:{}: arrow name '{}' is used twice", origin, line_no, tok[2]));
    }
  }
  Quiver q = b.take();
  if (q.vertices.empty()) throw InputError(fmt::format("{}: no vertices or arrows found", origin));
  return q;
}

namespace {

// Receives Boost.Graph's GraphViz parse: declared nodes (Boost sends them in name order) and
// edges in input order, with their attributes.
class QuiverSink : public boost::detail::graph::mutate_graph {
 public:
  struct Edge {
    std::string source, target, label;
  };
  bool is_directed() const override { return true; }
  void do_add_vertex(const boost::detail::graph::node_t& node) override { nodes.push_back(node); }
  void do_add_edge(const boost::detail::graph::edge_t& edge, const boost::detail::graph::node_t& s,
                   const boost::detail::graph::node_t& t) override {
    index.emplace(edge, edges.size());
    edges.push_back(Edge{s, t, ""});
  }
  void set_node_property(const boost::detail::graph::id_t&, const boost::detail::graph::node_t&,
                         const boost::detail::graph::id_t&) override {}
  void set_edge_property(const boost::detail::graph::id_t& key, const boost::detail::graph::edge_t& edge,
                         const boost::detail::graph::id_t& value) override {
    if (key == "label") edges[index.at(edge)].label = value;
  }
  void set_graph_property(const boost::detail::graph::id_t&, const boost::detail::graph::id_t&) override {}
  void finish_building_graph() override {}

  std::vector<std::string> nodes;
  std::vector<Edge> edges;
  std::map<boost::detail::graph::edge_t, size_t> index;
};

}  // namespace

Quiver parse_dot(const std::string& text, const std::string& origin) {
  QuiverSink sink;
  try {
    boost::detail::graph::read_graphviz_new(text, &sink);
  } catch (const boost::bad_graphviz_syntax& e) {
    throw InputError(fmt::format("{}: malformed DOT: {}", origin, e.errmsg));
  } catch (const std::exception& e) {
    throw InputError(fmt::format("{}: malformed DOT: {}", origin, e.what()));
  }
  // Vertices in order of first appearance as an edge endpoint, then isolated nodes by name
  // (Boost reports declared nodes sorted by name, but edges in input order).
  detail::QuiverBuilder b;
  for (const auto& e : sink.edges)
    if (!b.arrow(e.source, e.target, e.label))
      throw InputError(fmt::format("{}: arrow label '{}' is used twice", origin, e.label));
  for (const auto& node : sink.nodes) b.vertex(node);
  Quiver q = b.take();
  if (q.vertices.empty()) throw InputError(fmt::format("{}: DOT graph has no vertices", origin));
  return q;
}

Quiver read_dot_file(const std::string& path) { return parse_dot(read_input_file(path, "quiver file"), path); }
Quiver read_edge_list_file(const std::string& path) { return parse_edge_list(read_input_file(path, "quiver file"), path); }

Quiver read_quiver(const std::string& spec) {
  if (spec.empty()) throw InputError("empty GRAPH argument");
  std::error_code ec;
  bool exists = std::filesystem::exists(spec, ec);
  auto colon = spec.find(':');
  if (!exists && colon != std::string::npos && colon > 0) return quiver_family(spec);
  std::string text = read_input_file(spec, "quiver file");
  if (has_suffix(spec, ".dot") || has_suffix(spec, ".gv") || looks_like_dot(text)) return parse_dot(text, spec);
  return parse_edge_list(text, spec);
}

std::string to_edge_list(const Quiver& q) {
  std::ostringstream out;
  out << "# qalg edge list: " << q.vertices.size() << " vertices, " << q.arrows.size() << " arrows\n";
  std::vector<bool> used(q.vertices.size(), false);
  for (const auto& a : q.arrows) used[a.source] = used[a.target] = true;
  // Lone vertices first would reorder; emit each vertex line in order, then arrows, so that
  // reading back gives the same vertex order.
  for (const auto& v : q.vertices) out << v << "\n";
  for (const auto& a : q.arrows) out << q.vertices[a.source] << " " << q.vertices[a.target] << " " << a.name << "\n";
  return out.str();
}

}  // namespace qalg
