#pragma once
// Subcommands register themselves at static-initialisation time; main() builds the CLI11 app
// from the registry. Exit codes: 0 ok, 1 a check failed, 2 bad input (InputError).
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace qalg::cli {

struct Command {
  std::string name;
  std::string help;
  // Adds options to `sub` and returns the action to run once parsing succeeded.
  std::function<std::function<int()>(CLI::App& sub)> setup;
};

std::vector<Command>& command_registry();

struct RegisterCommand {
  explicit RegisterCommand(Command c) { command_registry().push_back(std::move(c)); }
};

}  // namespace qalg::cli
