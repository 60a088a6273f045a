// The package name of `qalg export --name` and what it renames (package_parts.hpp).
#include <algorithm>
#include <iterator>
#include <regex>

#include "package_parts.hpp"

namespace qalg::exporter::detail {
namespace {

// The name is spliced into C++ (a namespace), CMake (targets qalg::ID), paths and a Python module
// name, so besides C++ keywords it may not be a name those already use: the runtime's namespace and
// targets, the default package's extra alias (qalg::kernels), macros GCC predefines in gnu++ mode,
// and target names CMake reserves.
constexpr std::string_view kReserved[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch",
    "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr",
    "constinit", "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete",
    "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
    "friend", "goto", "if", "import", "inline", "int", "long", "module", "mutable", "namespace", "new",
    "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private", "protected", "public",
    "register", "reinterpret_cast", "requires", "return", "short", "signed", "sizeof", "static",
    "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local", "throw", "true",
    "try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void", "volatile",
    "wchar_t", "while", "xor", "xor_eq",
    // not keywords, but taken
    "std", "qalg", "kernels", "kernels_runtime", "qalg_kernels_runtime", "linux", "unix", "errno",
    "all", "clean", "help", "install", "package", "test"};

}  // namespace

std::string package_name_problem(const std::string& name) {
  static const std::regex identifier("[a-z][a-z0-9_]*");
  if (!std::regex_match(name, identifier))
    return "expected lower-case letters, digits and '_', starting with a letter";
  if (name.size() > kMaxPackageName) return "longer than " + std::to_string(kMaxPackageName) + " characters";
  if (name.find("__") != std::string::npos) return "'__' is reserved in C++ identifiers";
  if (std::ranges::find(kReserved, name) != std::end(kReserved))
    return "a C++ keyword or a name the package already uses (namespace, target or macro)";
  return "";
}

bool renames_content(std::string_view template_path) {
  // CMake files read the name from cmake/qalg_package.cmake instead: one CMakeLists serves every
  // name and can tell the default name (which keeps the alias qalg::kernels) from others.
  return !(template_path.ends_with("CMakeLists.txt") || template_path.ends_with(".cmake.in"));
}

std::string with_name(std::string_view text, const std::string& name) {
  // The shared runtime (qalg_kernels_runtime) keeps its name whatever the package is called.
  static constexpr std::string_view kDefault = "qalg_kernels", kRuntime = "_runtime";
  std::string out;
  size_t from = 0;
  for (size_t at = text.find(kDefault); at != std::string_view::npos; at = text.find(kDefault, at + kDefault.size())) {
    if (text.substr(at + kDefault.size(), kRuntime.size()) == kRuntime) continue;
    out.append(text.substr(from, at - from)).append(name);
    from = at + kDefault.size();
  }
  return out.append(text.substr(from));
}

}  // namespace qalg::exporter::detail
