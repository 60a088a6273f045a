// qalg: entry point. Builds the CLI from the registered subcommands and maps errors to exit
// codes: InputError (and CLI11 parse errors) -> 2, a failed check -> 1 (returned by commands), any
// other exception -> 3 (an internal error, reported instead of std::terminate's abort).
#include <algorithm>
#include <iostream>
#include <map>
#include <memory>

#include <fmt/core.h>

#include "command_registry.hpp"
#include "qalg/algebra/errors.hpp"

namespace qalg::cli {
std::vector<Command>& command_registry() {
  static std::vector<Command> registry;
  return registry;
}
}  // namespace qalg::cli

int main(int argc, char** argv) {
  using namespace qalg::cli;
  CLI::App app{"qalg — exact algebra, bilinear rank and verified GPU kernels for graph algebras"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "qalg 0.1.0");
  auto& commands = command_registry();
  std::sort(commands.begin(), commands.end(),
            [](const Command& a, const Command& b) { return a.name < b.name; });
  std::map<CLI::App*, std::function<int()>> actions;
  std::vector<std::pair<CLI::App*, std::function<std::function<int()>(CLI::App&)>>> setups;
  for (auto& c : commands) {
    CLI::App* sub = app.add_subcommand(c.name, c.help);
    setups.emplace_back(sub, c.setup);
  }
  try {
    for (auto& [sub, setup] : setups) actions[sub] = setup(*sub);
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // The app itself takes only flags, so its first word that is not an option must name a
    // subcommand; CLI11 would only say "A subcommand is required" for `qalg frobnicate`.
    for (int i = 1; i < argc; ++i) {
      const std::string word = argv[i];
      if (word.empty() || word[0] == '-') continue;
      if (std::none_of(commands.begin(), commands.end(), [&](const Command& c) { return c.name == word; })) {
        std::string known;
        for (const auto& c : commands) known += (known.empty() ? "" : ", ") + c.name;
        std::cerr << fmt::format("qalg: error: unknown subcommand '{}' (commands: {})\n", word, known);
        return 2;
      }
      break;
    }
    std::cerr << "qalg: " << e.what() << "\n";
    return 2;
  }
  try {
    for (auto& [sub, action] : actions)
      if (sub->parsed()) return action();
  } catch (const qalg::InputError& e) {
    std::cerr << "qalg: error: " << e.what() << "\n";
    return 2;
  } catch (const std::invalid_argument& e) {  // the gpu module's input errors
    std::cerr << "qalg: error: " << e.what() << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "qalg: error: out of memory\n";
    return 2;
  } catch (const std::exception& e) {  // not the input's fault: a limit or a bug, said, not std::terminate
    std::cerr << "qalg: internal error: " << e.what() << "\n";
    return 3;
  }
  return 2;
}
