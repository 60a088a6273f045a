#pragma once
// The table file format (JSON), shared with the gpu module's own reader:
// {
//   "format": "qalg-table", "version": 1,
//   "field": "Q" | "GF(p)",
//   "dim": n,
//   "basis": ["e1", "e2", "a", ...],                  // n unique names
//   "entries": [[i, j, k, "c"], ...],                 // c_ij^k, 0-based; c an integer or "p/q"
//                                                     // string (integers may also be numbers)
//   "slots": {"q": q, "cells": [[row, col], ...]},    // optional: grid position of each basis element
//   "graph": {"vertices": nv, "arrows": na}           // optional: fast-route hint
// }
// Readers reject: unknown format/version, dim mismatch, indices out of range, duplicate names,
// malformed or non-numeric coefficients, p not prime, denominators divisible by p.
#include <string>

#include <nlohmann/json.hpp>

#include "qalg/algebra/structure_tensor.hpp"

namespace qalg {

nlohmann::json table_to_json(const StructureTensor& t);
StructureTensor table_from_json(const nlohmann::json& j, const std::string& origin);
StructureTensor read_table_file(const std::string& path);
// Writes atomically (temporary file + rename): nothing half-written on failure.
void write_table_file(const StructureTensor& t, const std::string& path);
// SHA-256 of the canonical serialisation (compact JSON of table_to_json), hex.
std::string table_hash(const StructureTensor& t);
// Writes text to path through a temporary file and a rename, so no partial file is left.
void write_text_atomically(const std::string& text, const std::string& path);

}  // namespace qalg
