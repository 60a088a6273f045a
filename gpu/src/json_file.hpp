#pragma once
// Reads a whole JSON file; std::invalid_argument naming the file when it cannot be opened or
// parsed (`what` says which kind of file was expected, e.g. "table file").
#include <fstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace qalg::gpu {

inline nlohmann::json read_json_file(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot open " + what);
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::invalid_argument(path + ": not valid JSON: " + e.what());
  }
}

}  // namespace qalg::gpu
