#include "qalg/algebra/file_io.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/core.h>

#include "qalg/algebra/errors.hpp"

namespace qalg {

std::string read_input_file(const std::string& path, const std::string& what) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    const bool vowel = !what.empty() && std::string("aeiou").find(what[0]) != std::string::npos;
    throw InputError(fmt::format("{}: is a directory, expected {} {}", path, vowel ? "an" : "a", what));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open {} (no such file or unreadable)", path, what));
  std::ostringstream ss;
  try {
    ss << in.rdbuf();
  } catch (const std::ios_base::failure& e) {
    throw InputError(fmt::format("{}: cannot read {}: {}", path, what, e.what()));
  }
  if (in.bad()) throw InputError(fmt::format("{}: read error", path));
  return ss.str();
}

nlohmann::json parse_json_text(const std::string& text, const std::string& origin) {
  using json = nlohmann::json;
  std::vector<std::set<std::string>> keys;  // one set per object open at this point of the parse
  std::optional<std::string> duplicate;  // (optional: "" is a key too)
  const json::parser_callback_t check_keys = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) keys.emplace_back();
    else if (event == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    else if (event == json::parse_event_t::key && !keys.empty() && !duplicate &&
             !keys.back().insert(parsed.get<std::string>()).second)
      duplicate = parsed.get<std::string>();
    return true;
  };
  json j;
  try {
    j = json::parse(text, check_keys, /*allow_exceptions=*/true, /*ignore_comments=*/false);
  } catch (const json::parse_error& e) {
    throw InputError(fmt::format("{}: not valid JSON ({})", origin, e.what()));
  }
  if (duplicate) throw InputError(fmt::format("{}: key \"{}\" occurs twice in one JSON object", origin, *duplicate));
  return j;
}

nlohmann::json read_json_input(const std::string& path, const std::string& what) {
  return parse_json_text(read_input_file(path, what), path);
}

namespace {

std::string temporary_for(const std::string& path) { return path + ".tmp-qalg"; }

// The text into path's temporary file; the temporary removed and an InputError on failure.
void write_temporary(const std::string& text, const std::string& path) {
  const std::string tmp = temporary_for(path);
  std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
  if (!out) throw InputError(fmt::format("{}: cannot write (directory missing or not writable)", path));
  out << text;
  out.flush();
  if (!out) {
    out.close();
    std::remove(tmp.c_str());
    throw InputError(fmt::format("{}: write failed", path));
  }
}

void rename_into_place(const std::string& path) {
  const std::string tmp = temporary_for(path);
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw InputError(fmt::format("{}: cannot write: {}", path, ec.message()));
  }
}

}  // namespace

void write_text_atomically(const std::string& text, const std::string& path) {
  write_temporary(text, path);
  rename_into_place(path);
}

void write_texts_atomically(const std::vector<std::pair<std::string, std::string>>& text_and_path) {
  namespace fs = std::filesystem;
  std::set<std::string> seen;
  for (const auto& [text, path] : text_and_path) {
    std::error_code ec;
    const fs::path canonical = fs::weakly_canonical(path, ec);
    if (!seen.insert(ec ? path : canonical.string()).second)
      throw InputError(fmt::format("{}: named for two outputs; give each output its own file", path));
  }
  std::vector<std::string> written;
  try {
    for (const auto& [text, path] : text_and_path) {
      write_temporary(text, path);
      written.push_back(path);
    }
  } catch (const InputError&) {
    for (const std::string& path : written) std::remove(temporary_for(path).c_str());
    throw;
  }
  for (const auto& [text, path] : text_and_path) rename_into_place(path);
}

}  // namespace qalg
