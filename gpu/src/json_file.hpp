#pragma once
// Reads a whole JSON file; std::invalid_argument naming the file when it is a directory, cannot be
// opened or is not strict JSON (`what` says which kind of file was expected, e.g. "table file").
// (The gpu module builds without the algebra module, whose file_io.hpp does the same for its readers.)
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace qalg::gpu {

inline nlohmann::json read_json_file(const std::string& path, const std::string& what) {
  using json = nlohmann::json;
  std::error_code ec;
  // libstdc++ opens a directory and then throws std::ios_base::failure from the first read.
  if (std::filesystem::is_directory(path, ec)) throw std::invalid_argument(path + ": is a directory, expected a " + what);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(path + ": cannot open " + what);
  std::ostringstream text;
  try {
    text << in.rdbuf();
  } catch (const std::ios_base::failure& e) {
    throw std::invalid_argument(path + ": cannot read " + what + ": " + e.what());
  }
  // No key twice in one object: nlohmann keeps the last silently.
  std::vector<std::set<std::string>> open_objects;
  std::optional<std::string> repeated;  // (optional: "" is a key too)
  const json::parser_callback_t no_repeated_keys = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) open_objects.emplace_back();
    if (event == json::parse_event_t::object_end && !open_objects.empty()) open_objects.pop_back();
    if (event == json::parse_event_t::key && !open_objects.empty() && !repeated &&
        !open_objects.back().insert(parsed.get<std::string>()).second)
      repeated = parsed.get<std::string>();
    return true;
  };
  json j;
  try {
    j = json::parse(text.str(), no_repeated_keys);
  } catch (const json::parse_error& e) {
    throw std::invalid_argument(path + ": not valid JSON: " + e.what());
  }
  if (repeated) throw std::invalid_argument(path + ": key \"" + *repeated + "\" occurs twice in one JSON object");
  return j;
}

}  // namespace qalg::gpu
