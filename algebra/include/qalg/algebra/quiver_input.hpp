#pragma once
// Quiver input: DOT files (Boost.Graph's reader), edge lists ("src dst" per line, '#' comments
// from a '#' that begins a word), and named families complete:q, path:n, cycle:n, star:n,
// random:n,p,seed.
// Every function throws InputError naming the file/line or parameter at fault.
#include <string>

#include "qalg/algebra/quiver.hpp"

namespace qalg {

// A GRAPH argument: a family spec if it looks like "name:params", otherwise a file path
// (DOT when the file starts with "digraph"/"strict digraph" or ends in .dot/.gv, else edge list).
Quiver read_quiver(const std::string& spec);

Quiver read_dot_file(const std::string& path);
Quiver read_edge_list_file(const std::string& path);
Quiver parse_dot(const std::string& text, const std::string& origin);
Quiver parse_edge_list(const std::string& text, const std::string& origin);
Quiver quiver_family(const std::string& spec);  // "complete:4", "random:10,0.3,7", ...

// Edge-list text that read_quiver/parse_edge_list reads back to the same quiver (counterexamples).
std::string to_edge_list(const Quiver& q);

}  // namespace qalg
