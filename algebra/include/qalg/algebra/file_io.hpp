#pragma once
// Reading the files a user names and writing the files qalg makes, with every failure an
// InputError that names the file (exit code 2) and nothing half-written.
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace qalg {

// The whole of a file; `what` names the kind expected ("table file", "certificate", ...) in the
// errors: a directory, a missing or unreadable file, a read error. Why a check for directories:
// libstdc++ opens a directory as an ifstream and then throws std::ios_base::failure from the first
// read, which no caller expected (qalg aborted on `--table-file some_dir`).
std::string read_input_file(const std::string& path, const std::string& what);

// Strict JSON: the whole text one value (nothing after it but white space) and no key twice in one
// object (nlohmann keeps the last silently, so {"dim": 4, "dim": 3} would read as dim 3).
nlohmann::json parse_json_text(const std::string& text, const std::string& origin);

// read_input_file, then parse_json_text.
nlohmann::json read_json_input(const std::string& path, const std::string& what);

// Writes text to path through a temporary file and a rename, so no partial file is left.
void write_text_atomically(const std::string& text, const std::string& path);

// Several files, all or none: every text goes to its temporary file first, and only when all of
// them are written are they renamed into place. A path named twice is refused before anything is
// written (the second would replace the first).
void write_texts_atomically(const std::vector<std::pair<std::string, std::string>>& text_and_path);

}  // namespace qalg
