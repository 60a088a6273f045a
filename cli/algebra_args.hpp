#pragma once
// The options every command that takes an algebra shares:
//   GRAPH | --table-file F, --field Q|GF(p), --power k, --tensor GRAPH2
// and their conversion into one exact StructureTensor.
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "qalg/algebra/structure_tensor.hpp"

namespace qalg::cli {

struct AlgebraArgs {
  std::string graph;        // family spec or file (positional)
  std::string table_file;   // --table-file
  std::string field;        // --field ("" when not given: Q, or a table file's own field)
  unsigned power = 1;       // --power
  std::string tensor;       // --tensor GRAPH2 (or a table file: its text is JSON)

  // Registers the options on `app` (GRAPH positional, optional when --table-file is given).
  void add_to(CLI::App& app);
  // Builds the table; throws InputError on any bad argument.
  StructureTensor build() const;
  // A short description for report headers, e.g. "complete:2 ⊗2 over Q": the field of the table
  // build() made (a table file's own, GF(p) included), else --field.
  // (Bytes of a file name that are not UTF-8 read as U+FFFD.)
  std::string describe() const;

 private:
  std::string describe_raw() const;
  mutable std::string built_field_;  // set by build()
};

}  // namespace qalg::cli
