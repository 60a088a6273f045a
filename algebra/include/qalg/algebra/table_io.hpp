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
// Readers reject: unknown format/version, dim 0 or a dim mismatch, indices out of range, duplicate
// names, an entry [i, j, k, ·] given twice, malformed or non-numeric coefficients, p not prime (or
// not below 2^63), denominators divisible by p, and text that is not one strict JSON value (a key
// twice in one object, anything after the value: file_io.hpp parse_json_text).
#include <string>

#include <nlohmann/json.hpp>

#include "qalg/algebra/file_io.hpp"  // (write_text_atomically, used with the tables)
#include "qalg/algebra/structure_tensor.hpp"

namespace qalg {

nlohmann::json table_to_json(const StructureTensor& t);
StructureTensor table_from_json(const nlohmann::json& j, const std::string& origin);
StructureTensor read_table_file(const std::string& path);
// Writes atomically (temporary file + rename): nothing half-written on failure.
void write_table_file(const StructureTensor& t, const std::string& path);
// SHA-256 of the canonical serialisation (compact JSON of table_to_json), hex.
std::string table_hash(const StructureTensor& t);

}  // namespace qalg
