// qalg search: flip-graph search for shorter bilinear algorithms with exact certificates
// (issue 11, SPEC §3). Progress on stderr; the best algorithm, verified exactly, is written to
// --out. Exit 0; 1 when the search contradicts a proven lower bound (a bug); 2 on bad input.
// Under `mpirun -np N` (N > 1, qalg built with MPI) the ranks walk with their own seeds and
// exchange their best schemes every round (sweep/distributed_search.hpp); rank 0 prints and
// writes, the other ranks write nothing. One process (or no MPI) runs exactly as before.
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <thread>

#include <fmt/core.h>

#include "algebra_args.hpp"
#include "command_registry.hpp"
#include "count_option.hpp"
#include "qalg/algebra/errors.hpp"
#include "qalg/rank/algorithm_io.hpp"
#include "qalg/rank/search/certify.hpp"
#include "qalg/rank/search/flip_search.hpp"
#include "qalg/sweep/communicator.hpp"
#include "qalg/sweep/distributed_search.hpp"

namespace qalg::cli {
namespace {

struct SearchCommandOptions {
  AlgebraArgs algebra;
  std::optional<size_t> target;
  double time_s = 30;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  bool threads_given = false;
  uint64_t seed = 1;
  std::string out = ".";
  search::SearchOptions tuning;
  std::optional<uint64_t> batches;
  bool quiet = false;
  bool json = false;
  std::optional<unsigned> rounds;  // MPI only: exchanges of the best schemes
};

// A file-name stem from the algebra arguments, e.g. "cycle-1_pow2".
std::string stem(const AlgebraArgs& a) {
  std::string base = a.table_file.empty() ? a.graph : std::filesystem::path(a.table_file).stem().string();
  if (a.power > 1) base += fmt::format("_pow{}", a.power);
  if (!a.tensor.empty()) base += "_x_" + std::filesystem::path(a.tensor).stem().string();
  for (char& c : base)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '-';
  return base;
}

void print_progress(const search::SearchProgress& p, search::Mode mode, bool tty) {
  auto line = fmt::format("[search {}] length {} | pool {} | {:.2f}M flips/s | walks {} | batch {} "
                          "at this length | {:.0f} s",
                          search::mode_name(mode), p.level, p.pool, p.flips_per_second / 1e6, p.walks,
                          p.batches, p.seconds);
  if (tty)
    std::cerr << "\r" << line << "\x1b[K" << std::flush;
  else
    std::cerr << line << "\n";
}

// Every exchange under MPI: what each rank started from and found, with its seed.
nlohmann::json mpi_json(int ranks, unsigned rounds, const std::vector<sweep::SearchExchange>& exchanges) {
  nlohmann::json ex = nlohmann::json::array();
  for (const auto& e : exchanges) {
    nlohmann::json rs = nlohmann::json::array();
    for (const auto& r : e.ranks)
      rs.push_back({{"rank", r.rank}, {"seed", r.seed}, {"start_length", r.start_length},
                    {"start_hash", r.start_hash}, {"found_length", r.found_length}, {"flips", r.flips},
                    {"walks", r.walks}});
    ex.push_back({{"round", e.round}, {"ranks", rs}, {"merged_length", e.merged_length},
                  {"merged_hashes", e.merged_hashes}});
  }
  return {{"ranks", ranks}, {"rounds", rounds}, {"exchanges", ex}};
}

int run_search(SearchCommandOptions o) {
  // --field names the search arithmetic here; the table itself is built over Q (or read as is).
  const search::Mode mode =
      search::parse_mode(o.algebra.field.empty() || o.algebra.field == "Q" ? "Z3" : o.algebra.field);
  o.algebra.field.clear();  // (the table: over Q, or a table file's own field)
  if (o.threads < 1) throw InputError("--threads must be at least 1");
  if (!(o.time_s > 0)) throw InputError("--time must be positive (seconds)");
  const StructureTensor table = o.algebra.build();
  const bool rational = table.field().is_rationals();
  if (!rational && table.field().characteristic() != search::mode_characteristic(mode))
    throw InputError(fmt::format("--table-file {} is over {}; search it with --field F{}",
                                 o.algebra.table_file, table.field().name(),
                                 table.field().characteristic()));
  // The lower bound over the field the scheme lives in, and over the field of the final file.
  const StructureTensor mode_table =
      mode == search::Mode::Z3 ? table
                               : search::table_over(table, Field::prime(search::mode_characteristic(mode)));
  const size_t mode_bound = search::proven_lower_bound(mode_table);
  const size_t table_bound = rational ? search::proven_lower_bound(table) : mode_bound;

  search::SearchOptions so = o.tuning;
  so.target = o.target;
  so.lower_bound = mode_bound;
  so.time_limit_s = o.time_s;
  so.max_batches = o.batches;
  so.threads = o.threads;
  so.seed = o.seed;
  if (o.rounds && *o.rounds < 1) throw InputError("--rounds must be at least 1");
  const search::Scheme start = search::initial_scheme(table, mode);
  const auto world = sweep::world_communicator();  // one process unless started by mpirun
  const bool distributed = world->size() > 1;
  // Ranks on one machine share its cores: without --threads each takes its share, not all.
  if (distributed && !o.threads_given) so.threads = o.threads = std::max(1u, o.threads / unsigned(world->ranks_on_this_node()));
  const bool tty = isatty(STDERR_FILENO);
  so.progress_interval_s = tty ? 1.0 : 5.0;
  if (!o.quiet && world->rank() == 0)
    so.progress = [&](const search::SearchProgress& p) { print_progress(p, mode, tty); };

  search::SearchResult r;
  std::vector<sweep::SearchExchange> exchanges;
  const unsigned rounds = o.rounds.value_or(std::max(1u, unsigned(o.time_s / 5 + 0.5)));
  std::optional<search::CertifiedAlgorithm> cert;
  std::string note;
  std::string path;
  try {
    if (distributed) {
      const auto on_exchange = [&](const sweep::SearchExchange& ex) {
        if (o.quiet) return;
        std::string found;
        for (const auto& rr : ex.ranks) found += fmt::format("{}{}", found.empty() ? "" : ", ", rr.found_length);
        std::cerr << (tty ? "\r\x1b[K" : "")
                  << fmt::format("[search mpi] exchange {}/{}: ranks' best lengths {} -> {} ({} schemes)\n",
                                 ex.round + 1, rounds, found, ex.merged_length, ex.merged_hashes.size());
      };
      auto d = sweep::distributed_flip_search(start, search::dense_target(table, mode),
                                              sweep::DistributedSearchOptions{so, rounds}, *world, on_exchange);
      if (world->rank() != 0) return 0;  // rank 0 reports and writes the merged result
      r = std::move(d.merged);
      exchanges = std::move(d.exchanges);
    } else {
      r = search::flip_search(start, search::dense_target(table, mode), so);
    }
    if (!o.quiet && tty) std::cerr << "\n";
    const std::string algebra = o.algebra.describe();
    const std::string description =
        fmt::format("{}, seed {}{}", algebra.substr(0, algebra.rfind(" over ")), o.seed,
                    distributed ? fmt::format(", {} MPI ranks", world->size()) : "");
    cert = search::certify_best(r.pool, table, table_bound, description, note);
  } catch (const search::SearchBugError& e) {
    std::cerr << "\nqalg: error: BUG: " << e.what() << "\n";
    if (distributed) world->abort(1);  // the other ranks may wait in an exchange
    return 1;
  }
  if (cert) {
    std::error_code ec;
    std::filesystem::create_directories(o.out, ec);
    if (ec) throw InputError(fmt::format("--out {}: cannot create the directory ({})", o.out, ec.message()));
    path = (std::filesystem::path(o.out) /
            fmt::format("{}-{}-len{}.json", stem(o.algebra), search::mode_name(mode),
                        cert->algorithm.length()))
               .string();
    write_algorithm_file(cert->algorithm, path);
  }
  if (o.json) {
    nlohmann::json hist = nlohmann::json::array();
    for (const auto& h : r.history)
      hist.push_back({{"length", h.length}, {"seconds", h.seconds}, {"flips", h.flips}});
    nlohmann::json j = {{"algebra", o.algebra.describe()}, {"mode", search::mode_name(mode)},
                        {"dim", table.dim()}, {"lower_bound", table_bound},
                        {"lower_bound_search_field", mode_bound}, {"start_length", start.length()},
                        {"best_length", r.best_length}, {"history", hist}, {"flips", r.flips},
                        {"walks", r.walks}, {"seconds", r.seconds}, {"stop_reason", r.stop_reason},
                        {"seed", o.seed}, {"threads", o.threads}};
    if (distributed) j["mpi"] = mpi_json(world->size(), rounds, exchanges);
    if (cert)
      j["algorithm"] = {{"file", path}, {"length", cert->algorithm.length()},
                        {"field", cert->algorithm.field.name()}, {"validity", cert->validity},
                        {"method", cert->method}, {"verified", true}};
    else
      j["algorithm"] = {{"verified", false}, {"note", note}};
    std::cout << j.dump(2) << "\n";
  } else {
    fmt::print("flip-graph search on {} (dim {}), mode {}\n", o.algebra.describe(), table.dim(),
               search::mode_name(mode));
    fmt::print("proven lower bound: {} (over the search field: {})\n", table_bound, mode_bound);
    fmt::print("start length {}; best length {} ({}); {} flips, {} walks, {:.1f} s, {} threads, "
               "seed {}\n", start.length(), r.best_length, r.stop_reason, r.flips, r.walks, r.seconds,
               o.threads, o.seed);
    if (distributed)
      fmt::print("MPI: {} ranks x {} threads, {} of {} exchange rounds run; rank r walks round k with "
                 "seed round_seed({}, r, k)\n", world->size(), o.threads, exchanges.size(), rounds, o.seed);
    for (const auto& h : r.history)
      fmt::print("  length {:>4} reached after {:8.2f} s, {} flips\n", h.length, h.seconds, h.flips);
    if (cert)
      fmt::print("algorithm: {} (length {}, over {}, verified exactly; {}; {})\n", path,
                 cert->algorithm.length(), cert->algorithm.field.name(), cert->method, cert->validity);
    else
      fmt::print("no verified algorithm: {}\n", note);
  }
  return 0;
}

const RegisterCommand kRegisterSearch{Command{
    "search", "flip-graph search for shorter bilinear algorithms, certified exactly",
    [](CLI::App& sub) -> std::function<int()> {
      auto o = std::make_shared<SearchCommandOptions>();
      o->algebra.add_to(sub);
      sub.get_option("--field")->description(
          "search arithmetic: Z3 (integers in {-1,0,1}, default; Q accepted), F2 or F3; the table "
          "is built over Q and results are lifted to Q");
      sub.add_option("--target", o->target, "stop at this length (default: the lower bound)")->check(kCount);
      sub.add_option("--time", o->time_s, "time budget in seconds (default 30)");
      CLI::Option* threads = sub.add_option("--threads", o->threads,
                                             "worker threads (default: all cores; under mpirun, the cores "
                                             "divided among the ranks on each machine)");
      sub.add_option("--seed", o->seed, "seed of the walks (results do not depend on --threads)")->check(kCount);
      sub.add_option("--out", o->out, "directory for the algorithm file (default .)");
      sub.add_option("--batches", o->batches, "budget in batches of walks instead of time")->check(kCount);
      sub.add_option("--walk-flips", o->tuning.walk.max_flips, "flips per walk (default 200000)")->check(kCount);
      sub.add_option("--plateau", o->tuning.walk.plateau,
                     "flips without progress before a plus transition (default 5000)")->check(kCount);
      sub.add_option("--max-excess", o->tuning.walk.max_excess,
                     "plus transitions may exceed the level by this much (0 disables; default 1)")->check(kCount);
      sub.add_option("--pool", o->tuning.pool_size, "schemes kept per length (default 32)")->check(kCount);
      sub.add_option("--batch", o->tuning.batch, "walks per batch (default 32)")->check(kCount);
      sub.add_option("--rounds", o->rounds,
                     "under mpirun: rounds of walks, the ranks' best schemes exchanged after each "
                     "(default one per 5 s of --time; --batches counts per rank and round); "
                     "ignored on one process");
      sub.add_flag("--quiet", o->quiet, "no progress display");
      sub.add_flag("--json", o->json, "machine-readable summary");
      return [o, threads] {
        o->threads_given = threads->count() > 0;
        return run_search(*o);
      };
    }}};

}  // namespace
}  // namespace qalg::cli
