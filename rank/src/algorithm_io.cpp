// Reading and writing qalg-algorithm JSON files (format in algorithm_io.hpp).
#include "qalg/rank/algorithm_io.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/core.h>

#include "qalg/algebra/errors.hpp"
#include "qalg/algebra/file_io.hpp"

namespace qalg {
namespace {

using nlohmann::json;

const char* const kParts[3] = {"alpha", "beta", "gamma"};

json vector_to_json(const SparseVector& v) {
  json out = json::array();
  for (const auto& [index, c] : v) out.push_back(json::array({index, c.str()}));
  return out;
}

Rational parse_coefficient(const json& c, const std::string& where) {
  Rational r;
  if (c.is_number_integer()) {
    if (!Rational::parse(c.dump(), r)) throw InputError(where + ": malformed integer");
    return r;
  }
  if (c.is_string() && Rational::parse(c.get<std::string>(), r)) return r;
  throw InputError(fmt::format("{}: coefficient {} is not an integer or a \"p/q\" string", where,
                               c.dump()));
}

SparseVector vector_from_json(const json& v, size_t dim, const std::string& where) {
  if (!v.is_array()) throw InputError(where + ": expected an array of [index, coefficient] pairs");
  SparseVector out;
  for (size_t n = 0; n < v.size(); ++n) {
    const json& pair = v[n];
    std::string at = fmt::format("{} entry {}", where, n);
    if (!pair.is_array() || pair.size() != 2)
      throw InputError(at + ": expected [index, coefficient]");
    if (!pair[0].is_number_integer() || pair[0].get<int64_t>() < 0)
      throw InputError(fmt::format("{}: index {} is not a non-negative integer", at, pair[0].dump()));
    auto index = static_cast<uint64_t>(pair[0].get<int64_t>());
    if (index >= dim)
      throw InputError(fmt::format("{}: index {} out of range (dim {})", at, index, dim));
    out.emplace_back(static_cast<uint32_t>(index), parse_coefficient(pair[1], at));
  }
  return out;
}

}  // namespace

json algorithm_to_json(const BilinearAlgorithm& alg) {
  json terms = json::array();
  for (const auto& t : alg.terms)
    terms.push_back({{"alpha", vector_to_json(t.alpha)},
                     {"beta", vector_to_json(t.beta)},
                     {"gamma", vector_to_json(t.gamma)}});
  json out = {{"format", "qalg-algorithm"}, {"version", 1}, {"field", alg.field.name()},
              {"dim", alg.dim}};
  if (!alg.name.empty()) out["name"] = alg.name;
  out["terms"] = std::move(terms);
  return out;
}

BilinearAlgorithm algorithm_from_json(const json& j, const std::string& origin) {
  if (!j.is_object()) throw InputError(origin + ": expected a JSON object");
  // Not j.value("format", ...): it throws json type_error when "format" is not a string.
  if (!j.contains("format") || j["format"] != "qalg-algorithm")
    throw InputError(origin + ": \"format\" must be \"qalg-algorithm\"");
  if (!j.contains("version") || j["version"] != 1)
    throw InputError(origin + ": unsupported \"version\" (expected 1)");
  if (!j.contains("field") || !j["field"].is_string())
    throw InputError(origin + ": missing \"field\" (\"Q\" or \"GF(p)\")");
  // Indices are stored as uint32 (the 2^32 basis limit of every table): a larger dim would
  // silently truncate them.
  if (!j.contains("dim") || !j["dim"].is_number_integer() || j["dim"].get<int64_t>() <= 0 ||
      j["dim"].get<int64_t>() > int64_t(UINT32_MAX))
    throw InputError(origin + ": \"dim\" must be a positive integer below 2^32");
  if (!j.contains("terms") || !j["terms"].is_array())
    throw InputError(origin + ": \"terms\" must be an array");

  BilinearAlgorithm alg;
  try {
    alg.field = Field::parse(j["field"].get<std::string>());
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: field: {}", origin, e.what()));
  }
  alg.dim = j["dim"].get<uint64_t>();
  if (j.contains("name") && j["name"].is_string()) alg.name = j["name"].get<std::string>();
  const json& terms = j["terms"];
  for (size_t l = 0; l < terms.size(); ++l) {
    const json& term = terms[l];
    if (!term.is_object()) throw InputError(fmt::format("{}: term {} is not an object", origin, l));
    BilinearTerm out;
    SparseVector* parts[3] = {&out.alpha, &out.beta, &out.gamma};
    for (int p = 0; p < 3; ++p) {
      std::string where = fmt::format("{}: term {} {}", origin, l, kParts[p]);
      if (!term.contains(kParts[p])) throw InputError(where + ": missing");
      *parts[p] = vector_from_json(term[kParts[p]], alg.dim, where);
    }
    alg.terms.push_back(std::move(out));
  }
  try {
    normalize(alg);  // reduces mod p: a denominator divisible by p is reported here
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", origin, e.what()));
  }
  return alg;
}

BilinearAlgorithm read_algorithm_file(const std::string& path) {
  return algorithm_from_json(read_json_input(path, "algorithm file"), path);
}

void write_algorithm_file(const BilinearAlgorithm& alg, const std::string& path) {
  namespace fs = std::filesystem;
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out) throw InputError(fmt::format("{}: cannot write algorithm file", path));
    out << algorithm_to_json(alg).dump(1) << "\n";
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw InputError(fmt::format("{}: write failed", path));
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw InputError(fmt::format("{}: cannot rename temporary file ({})", path, ec.message()));
  }
}

}  // namespace qalg
