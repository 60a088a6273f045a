// Reading the files a user names and writing qalg's outputs (algebra/file_io.hpp): strict JSON,
// directories and missing files as InputError, several outputs written all or none.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "qalg/algebra/errors.hpp"
#include "support/input_error.hpp"
#include "qalg/algebra/file_io.hpp"

using namespace qalg;
namespace fs = std::filesystem;

namespace file_io_test {

// (tests/support/input_error.hpp)
std::string error_of(const std::function<void()>& f) { return qalg::test_support::input_error_of(f); }

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("qalg-file-io-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Printable ASCII (nlohmann refuses to write invalid UTF-8).
rc::Gen<std::string> text() { return rc::gen::container<std::string>(rc::gen::inRange<char>(32, 127)); }

// The text of a JSON value of at most `depth` levels: objects (distinct keys), arrays, integers,
// strings. (Text, not nlohmann::json: RapidCheck's printing of a counterexample iterates a json
// as a container and throws.)
rc::Gen<std::string> json_text(int depth) {
  return rc::gen::exec([depth]() -> std::string {
    const int kind = *rc::gen::inRange(0, depth == 0 ? 2 : 4);
    if (kind == 0) return nlohmann::json(*rc::gen::arbitrary<int>()).dump();
    if (kind == 1) return nlohmann::json(*text()).dump();
    const int n = *rc::gen::inRange(0, 4);
    nlohmann::json v = kind == 2 ? nlohmann::json::array() : nlohmann::json::object();
    for (int i = 0; i < n; ++i) {
      const nlohmann::json element = nlohmann::json::parse(*json_text(depth - 1));
      if (kind == 2) v.push_back(element);
      else v[*text()] = element;
    }
    return v.dump();
  });
}

// Every JSON text with distinct keys in each object reads back as written; the same value under a
// key given twice in one object is refused naming the key, and under two keys it is accepted.
RC_GTEST_PROP(ParseJsonText, ReadsWhatWasWrittenAndRefusesAKeyGivenTwice, ()) {
  const std::string written = *json_text(3), key = nlohmann::json(*text()).dump();
  const nlohmann::json v = nlohmann::json::parse(written);
  RC_ASSERT(parse_json_text(written, "t") == v);
  RC_ASSERT(parse_json_text(" \n" + written + " \n\t", "t") == v);  // white space around it
  const std::string twice = "{" + key + ": " + written + ", " + key + ": " + written + "}";
  const std::string e = error_of([&] { parse_json_text(twice, "twice.json"); });
  RC_ASSERT(e.find("twice.json") != std::string::npos);
  RC_ASSERT(e.find("occurs twice") != std::string::npos);
  const std::string other = "{" + key + ": " + written + ", " + nlohmann::json(key + "2").dump() + ": " + written + "}";
  RC_ASSERT(parse_json_text(other, "t").size() == 2u);
}

TEST(ParseJsonText, KeysRepeatOnlyAcrossObjectsAndNothingFollowsTheValue) {
  EXPECT_NE(error_of([] { parse_json_text(R"({"x": {"k": 1, "k": 2}})", "f"); }).find("key \"k\" occurs twice"),
            std::string::npos);
  EXPECT_EQ(parse_json_text(R"({"a": {"k": 1}, "b": {"k": 2}, "c": [{"k": 3}, {"k": 4}]})", "f")["c"][1]["k"], 4);
  EXPECT_NE(error_of([] { parse_json_text(R"({"dim": 1} garbage)", "f.json"); }).find("f.json: not valid JSON"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_json_text(R"({"dim": 1} {"dim": 2})", "f"); }), "");
  EXPECT_NE(error_of([] { parse_json_text("", "f"); }), "");
}

TEST(ReadInputFile, NamesADirectoryAndAMissingFile) {
  const fs::path d = fresh_dir("read");
  EXPECT_NE(error_of([&] { read_input_file(d.string(), "table file"); }).find("is a directory, expected a table file"),
            std::string::npos);
  EXPECT_NE(error_of([&] { read_json_input((d / "none.json").string(), "plan file"); }).find("cannot open plan file"),
            std::string::npos);
  std::ofstream(d / "t.json") << "{\"a\": [1, 2]}\n";
  EXPECT_EQ(read_json_input((d / "t.json").string(), "t")["a"][1], 2);
  fs::remove_all(d);
}

TEST(WriteTextsAtomically, AllOrNone) {
  const fs::path d = fresh_dir("write");
  const std::string a = (d / "a.txt").string(), b = (d / "b.txt").string();
  write_texts_atomically({{"A\n", a}, {"B\n", b}});
  EXPECT_EQ(slurp(a), "A\n");
  EXPECT_EQ(slurp(b), "B\n");
  // The second cannot be written: the first keeps its old text and no temporary is left.
  EXPECT_NE(error_of([&] { write_texts_atomically({{"new A\n", a}, {"C\n", (d / "missing" / "c.txt").string()}}); })
                .find("cannot write"),
            std::string::npos);
  EXPECT_EQ(slurp(a), "A\n");
  // One path for two outputs (also spelt differently) is refused before anything is written.
  const std::string same = (d / "." / "b.txt").string();
  EXPECT_NE(error_of([&] { write_texts_atomically({{"X\n", b}, {"Y\n", same}}); }).find("named for two outputs"),
            std::string::npos);
  EXPECT_EQ(slurp(b), "B\n");
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(d)) ++files;
  EXPECT_EQ(files, 2u);  // a.txt and b.txt only
  fs::remove_all(d);
}

}  // namespace file_io_test
