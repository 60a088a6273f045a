// qalg GPU benchmark (issue 7): algebraic kernels against the faster of cuBLAS / cuBLASLt in the
// same run, warm and L2-flushed, alternating trials, medians + p10/p90; the copy bandwidth and
// the bf16 matrix rate measured here give each shape's floor and the fraction achieved; every
// timed configuration is checked against the cuBLAS dense reference built from the table.
//   qalg_gpu_bench --tables DIR --out results.csv [--suite table|sweep|all|probe|square|decode|ffn|ffn30|forward|wide|training|train30|narrow|peerlost|rows|ablate|segments|residue|decode-residue|stamps|launch] [--trials N]
#include <unistd.h>  // environ

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "bench_ablate.hpp"
#include "bench_residue.hpp"
#include "bench_stamps.hpp"
#include "table_rows.hpp"

using namespace qalg;
using namespace qalg::bench;

// kProjectionTable, kFfnShapes, kTableSquares: table_rows.hpp (QALG_TABLE_ROWS picks among them).

int main(int argc, char** argv) {
  Options o;
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string k = argv[a], v = argv[a + 1];
    if (k == "--tables") o.tables = v;
    else if (k == "--out") o.out = v;
    else if (k == "--suite") o.suite = v;
    else if (k == "--trials") {
      // a positive integer, whole (std::stoi would throw on "x" and read "3x" as 3)
      if (v.empty() || v.size() > 6 || v.find_first_not_of("0123456789") != std::string::npos || std::stoi(v) < 1) {
        std::cerr << "qalg_gpu_bench: --trials must be a positive integer (got '" << v << "')\n";
        return 2;
      }
      o.trials = std::stoi(v);
    } else {
      std::cerr << "qalg_gpu_bench: unknown option " << k << "\n";
      return 2;
    }
  }
  // (thirty-fourth session) A suite name no branch below knows would time nothing and say nothing.
  static const char* const kSuites[] = {"table", "sweep", "all", "probe", "square", "decode", "ffn", "ffn30",
                                        "forward", "wide", "narrow", "training", "train30", "peerlost", "rows",
                                        "ablate", "segments", "residue", "decode-residue", "stamps", "launch"};
  if (std::find(std::begin(kSuites), std::end(kSuites), o.suite) == std::end(kSuites)) {
    std::cerr << "qalg_gpu_bench: unknown suite '" << o.suite << "' (table, sweep, all, probe, square, decode, ffn, "
              << "ffn30, forward, wide, narrow, training, train30, peerlost, rows, ablate, segments, residue, decode-residue, stamps, launch)\n";
    return 2;
  }
  // QALG_LAW_GRID=0: the wg_gemm.cuh tiles read their forward items from the list (to compare).
  if (const char* v = std::getenv("QALG_LAW_GRID")) qalg::gpu::set_law_grid(std::string(v) != "0");
  // QALG_WS_FENCE=1: the warp-specialised forward fences before every step (to compare).
  if (const char* v = std::getenv("QALG_WS_FENCE")) qalg::gpu::set_ws_fence_every_step(std::string(v) == "1");
  // The eighteenth session's switches (to compare), each refusing any other value:
  // QALG_PAIR_SCOPE=0|1: the paired tiles synchronise at cluster scope; QALG_WS_TMA_STORE=0|1
  // (nineteenth session): the warp-specialised tiles store through TMA; QALG_WS_TRIM=0|1 (twentieth):
  // they trim the partly empty last steps of s % 64 != 0 terms; QALG_WS_NARROW_W=0|1: they copy only
  // the W boxes a narrow item reaches; QALG_FFN_PDL=0|1 (twenty-first): the gated FFN's down
  // projection by programmatic dependent launch; QALG_WS_ORDER=columns|types: their item order; QALG_SQUARE_N: the square suite's n
  // (a positive multiple of 128); QALG_WS_TERM_STRIDE=0|1 (thirty-third): the first item's terms
  // read beside the item (set_ws_term_stride); QALG_WS_EXIT_AFTER_READ=0|1: the CTAs end once their
  // last TMA stores have read the tile (set_ws_exit_after_read); QALG_WS_PRIME=0|1 (thirty-seventh):
  // they issue their first item's first term's whole steps before the rest of its work (set_ws_prime_first);
  // QALG_WS_PRIME_ITEM=0|1 (forty-second, off unless 1): with it, the whole item's (set_ws_prime_item);
  // QALG_WS_LAW_FIRST=0|1 (fifty-third, on unless 0): the 128-row tiles' first item in closed form (set_ws_law_first);
  // QALG_WS_DESCENDING=0|1 (thirty-fifth):
  // the forward lists walked last item first (set_ws_items_descending); QALG_BENCH_DESCENDING=0|1: the
  // calibration also tries each warp-specialised tile so; QALG_CALIBRATE_ALTERNATING=0|1: it shortlists
  // alternating with the dense call (bench_cases.hpp; both on unless set to 0); QALG_CALIBRATE_PARTS_ALTERNATING=0|1
  // (forty-first, off unless 1): so also the FFN's down projection and the training rows' own tiles.
  // A two-valued switch: `off` or `on` (0 or 1 unless named), anything else refused.
  auto flag = [](const char* name, void (*set)(bool), const char* off = "0", const char* on = "1") {
    const char* v = std::getenv(name);
    if (!v) return true;
    const std::string m = v;
    if (m != off && m != on) {
      std::cerr << "qalg_gpu_bench: " << name << " must be " << off << " or " << on << " (got '" << m << "')\n";
      return false;
    }
    set(m == on);
    return true;
  };
  if (!flag("QALG_PAIR_SCOPE", qalg::gpu::set_paired_cluster_scope) || !flag("QALG_WS_TMA_STORE", qalg::gpu::set_ws_tma_store) ||
      !flag("QALG_WS_TMA_STORE_TALL", qalg::gpu::set_ws_tma_store_tall) ||
      !flag("QALG_WSM_TWO_PER_SM", qalg::gpu::set_row_pairs_two_per_sm) ||
      !flag("QALG_WS128_TWO_PER_SM", qalg::gpu::set_ws128_two_per_sm) ||
      !flag("QALG_WS_DESCENDING", qalg::gpu::set_ws_items_descending) ||
      !flag("QALG_BENCH_DESCENDING", [](bool on) { qalg::bench::descending_variants() = on; }) ||
      !flag("QALG_CALIBRATE_ALTERNATING", [](bool on) { qalg::bench::calibrate_alternating() = on; }) ||
      !flag("QALG_CALIBRATE_PARTS_ALTERNATING", [](bool on) { qalg::bench::calibrate_parts_alternating() = on; }) ||
      !flag("QALG_WS_TERM_STRIDE", qalg::gpu::set_ws_term_stride) ||
      !flag("QALG_WS_EXIT_AFTER_READ", qalg::gpu::set_ws_exit_after_read) ||
      !flag("QALG_WS_PRIME", qalg::gpu::set_ws_prime_first) ||
      !flag("QALG_WS_PRIME_ITEM", qalg::gpu::set_ws_prime_item) ||
      !flag("QALG_WS_LAW_FIRST", qalg::gpu::set_ws_law_first) ||
      !flag("QALG_WS_TRIM", qalg::gpu::set_ws_trim_tail) || !flag("QALG_WS_NARROW_W", qalg::gpu::set_ws_narrow_w) ||
      !flag("QALG_FFN_PDL", qalg::gpu::set_ffn_dependent_launch) || !flag("QALG_FFN_PACK", qalg::gpu::set_ffn_pack_terms))
    return 2;
  // QALG_WS_PACK=0|1|2 (twenty-fourth session): wsl64x128 packs terms never, where two last steps make
  // a whole one (the default), or always (set_ws_pack_terms); QALG_FFN_PACK=0|1 (above): the gated
  // FFN's gate/up too, where that mode packs (set_ffn_pack_terms).
  if (const char* v = std::getenv("QALG_WS_PACK")) {
    const std::string m = v;
    if (m != "0" && m != "1" && m != "2") {
      std::cerr << "qalg_gpu_bench: QALG_WS_PACK must be 0, 1 or 2 (got '" << m << "')\n";
      return 2;
    }
    qalg::gpu::set_ws_pack_terms(qalg::gpu::WsPackTerms(m[0] - '0'));
  }
  // An item order (columns|types) for set: the projections' (QALG_WS_ORDER) or gate/up's
  // (QALG_FFN_GATE_ORDER, twenty-second session).
  auto order = [](const char* name, void (*set)(qalg::gpu::WsItemOrder)) {
    const char* v = std::getenv(name);
    if (!v) return true;
    const std::string m = v;
    if (m != "columns" && m != "types") {
      std::cerr << "qalg_gpu_bench: " << name << " must be columns or types (got '" << m << "')\n";
      return false;
    }
    set(m == "types" ? qalg::gpu::WsItemOrder::types : qalg::gpu::WsItemOrder::columns);
    return true;
  };
  if (!order("QALG_WS_ORDER", qalg::gpu::set_ws_item_order) ||
      !order("QALG_FFN_GATE_ORDER", qalg::gpu::set_ffn_gate_item_order))
    return 2;
  // QALG_BENCH_HOLD_US (forty-fourth session): the held warm protocol's hold, whole µs in [1, 100000]
  // (default 20): long enough that the host has submitted a replay before the GPU reaches it.
  if (const char* v = std::getenv("QALG_BENCH_HOLD_US")) {
    const std::string m = v;
    if (m.empty() || m.size() > 6 || m.find_first_not_of("0123456789") != std::string::npos || std::stoul(m) < 1 ||
        std::stoul(m) > 100000) {
      std::cerr << "qalg_gpu_bench: QALG_BENCH_HOLD_US must be a whole number of microseconds in [1, 100000] (got '" << m
                << "')\n";
      return 2;
    }
    o.hold_us = uint32_t(std::stoul(m));
  }
  int square_n = 16384;
  if (const char* v = std::getenv("QALG_SQUARE_N")) {
    const std::string m = v;
    const bool digits = !m.empty() && m.size() <= 6 && m.find_first_not_of("0123456789") == std::string::npos;
    square_n = digits ? std::stoi(m) : 0;
    if (square_n <= 0 || square_n % 128) {
      std::cerr << "qalg_gpu_bench: QALG_SQUARE_N must be a positive multiple of 128 (got '" << m << "')\n";
      return 2;
    }
  }
  // QALG_ABLATE_SHAPES=a,b,… (twenty-second session): the ablate (and peerlost) suite times only the shapes whose
  // names start with one of these (e.g. Qwen3-32B, square): one kernel for a profiler. A name that
  // starts no shape's is refused (a typo would otherwise time nothing and say nothing).
  std::vector<std::string> ablate_shapes;
  if (const char* v = std::getenv("QALG_ABLATE_SHAPES")) {
    std::vector<std::string> names{"square n="};
    for (const auto& [name, D, F, M, q] : kProjectionTable)
      if (M == 2048) names.push_back(name);
    std::stringstream list(v);
    for (std::string p; std::getline(list, p, ',');) {
      bool known = !p.empty();
      if (known) {
        known = false;
        for (const std::string& n : names) known |= n.rfind(p, 0) == 0;
      }
      if (!known) {
        std::cerr << "qalg_gpu_bench: QALG_ABLATE_SHAPES: '" << p << "' starts no ablate shape's name (square, the M = "
                  << "2048 projections: Qwen3-1.7B, …)\n";
        return 2;
      }
      ablate_shapes.push_back(p);
    }
  }
  // QALG_TABLE_ROWS=KIND:PREFIX[@M],… (forty-seventh session): the table suite times only those rows
  // (table_rows.hpp), e.g. the unmet ones when less device time is left than the whole table needs.
  TableRowFilter table_rows;
  if (const char* v = std::getenv("QALG_TABLE_ROWS")) {
    try {
      table_rows = parse_table_rows(v, table_suite_rows());
    } catch (const std::invalid_argument& e) {
      std::cerr << "qalg_gpu_bench: " << e.what() << "\n";
      return 2;
    }
    if (o.suite != "table" && o.suite != "all") {  // it would pick nothing there and say nothing
      std::cerr << "qalg_gpu_bench: QALG_TABLE_ROWS is read by the table and all suites only (suite '" << o.suite
                << "')\n";
      return 2;
    }
  }
  // QALG_WIDE_M=8192|32768 (twenty-seventh session): the wide suite times that row alone.
  int wide_m = 0;
  if (const char* v = std::getenv("QALG_WIDE_M")) {
    const std::string m = v;
    wide_m = m == "8192" ? 8192 : m == "32768" ? 32768 : -1;
    if (wide_m < 0) {
      std::cerr << "qalg_gpu_bench: QALG_WIDE_M must be 8192 or 32768 (got '" << m << "')\n";
      return 2;
    }
  }
  // QALG_NARROW_RUN=N: output-group units per CTA of the narrow-group law tiles (0 = automatic, the default).
  if (const char* v = std::getenv("QALG_NARROW_RUN")) {
    try {
      qalg::gpu::set_narrow_run(uint32_t(std::stoul(v)));
    } catch (const std::exception& e) {
      std::cerr << "qalg_gpu_bench: QALG_NARROW_RUN: " << e.what() << "\n";
      return 2;
    }
  }
  // QALG_NARROW_FFN=0|1: the FFN rows on two kernels / one (unset: the faster, timed per row);
  // QALG_NARROW_FFN_RUN=N (0 = automatic) and QALG_NARROW_FFN_STAGES=2|3: the one kernel's shape.
  if (const char* v = std::getenv("QALG_NARROW_FFN")) {
    const std::string m = v;
    if (m != "0" && m != "1") {
      std::cerr << "qalg_gpu_bench: QALG_NARROW_FFN must be 0 or 1 (got '" << m << "')\n";
      return 2;
    }
    qalg::bench::g_bench_narrow_ffn = m[0] - '0';
  }
  try {
    if (const char* v = std::getenv("QALG_NARROW_FFN_RUN")) qalg::gpu::set_narrow_ffn_run(uint32_t(std::stoul(v)));
    if (const char* v = std::getenv("QALG_NARROW_FFN_STAGES")) qalg::gpu::set_narrow_ffn_stages(std::stoi(v));
  } catch (const std::exception& e) {
    std::cerr << "qalg_gpu_bench: QALG_NARROW_FFN_RUN / QALG_NARROW_FFN_STAGES: " << e.what() << "\n";
    return 2;
  }
  // QALG_NARROW_TYPES_FIRST=1: the narrow-group law tile's CTAs in type-fastest order.
  if (const char* v = std::getenv("QALG_NARROW_TYPES_FIRST")) qalg::gpu::set_narrow_types_first(std::string(v) == "1");
  // QALG_NARROW_DEEP=1 / 0: the narrow-group law tiles with 3 stages or 2 where s <= 32 (nl64x128)
  // or s <= 24 (nl64x64); unset, each tile's default (set_narrow_deep).
  if (const char* v = std::getenv("QALG_NARROW_DEEP")) qalg::gpu::set_narrow_deep(std::string(v) == "1" ? 1 : 0);
  // QALG_NARROW_TAIL=0: nl64x64 reduces over s rounded up to 16 (no m16n8k8 last step).
  if (const char* v = std::getenv("QALG_NARROW_TAIL")) qalg::gpu::set_narrow_tail(std::string(v) != "0");
  // QALG_NARROW_STREAM=1: nl64x64 stores Y evict-first (st.global.cs).
  if (const char* v = std::getenv("QALG_NARROW_STREAM")) qalg::gpu::set_narrow_streaming_stores(std::string(v) == "1");
  // QALG_NARROW_ZERO_C=1: the narrow-group law tiles start each unit with a zero-accumulator mma.
  if (const char* v = std::getenv("QALG_NARROW_ZERO_C")) qalg::gpu::set_narrow_zero_accumulator(std::string(v) == "1");
  // QALG_NARROW_TMA_STORE=0|1|2|3: nl64x64's Y stores (set_narrow_tma_store: lanes, pair boxes (the
  // default), also a box per piece, also a box per group of pieces).
  if (const char* v = std::getenv("QALG_NARROW_TMA_STORE")) {
    const std::string m = v;
    if (m != "0" && m != "1" && m != "2" && m != "3") {
      std::cerr << "qalg_gpu_bench: QALG_NARROW_TMA_STORE must be 0, 1, 2 or 3 (got '" << m << "')\n";
      return 2;
    }
    qalg::gpu::set_narrow_tma_store(m[0] - '0');
  }
  // QALG_FFN_GATE=mma|ws64x64|ws64x128|wsl64x64: the gated FFN's gate/up kernel (M > 1).
  if (const char* v = std::getenv("QALG_FFN_GATE")) {
    const std::string e = v;
    if (e != "mma" && e != "ws64x64" && e != "ws64x128" && e != "wsl64x64") {
      std::cerr << "qalg_gpu_bench: QALG_FFN_GATE must be mma, ws64x64, ws64x128 or wsl64x64 (got '" << e << "')\n";
      return 2;
    }
    qalg::gpu::set_ffn_gate_engine(e == "mma"       ? qalg::gpu::FfnGateEngine::mma_sync
                                   : e == "ws64x64"  ? qalg::gpu::FfnGateEngine::ws64x64
                                   : e == "wsl64x64" ? qalg::gpu::FfnGateEngine::wsl64x64
                                                     : qalg::gpu::FfnGateEngine::ws64x128);
  }
  // QALG_DECODE_STAGING=registers|cp_async|bulk, QALG_DECODE_PDL=0|1, QALG_DECODE_DEEP=0|1: the decode
  // engines.
  {
    const char* st = std::getenv("QALG_DECODE_STAGING");
    const char* pdl = std::getenv("QALG_DECODE_PDL");
    const char* deep = std::getenv("QALG_DECODE_DEEP");
    const std::string v = st ? st : "registers", p = pdl ? pdl : "1", d = deep ? deep : "1";
    const auto bit = [](const std::string& b) { return b == "0" || b == "1"; };
    if ((v != "registers" && v != "cp_async" && v != "bulk") || !bit(p) || !bit(d)) {
      std::cerr << "qalg_gpu_bench: QALG_DECODE_STAGING must be registers, cp_async or bulk (got '" << v
                << "'), QALG_DECODE_PDL and QALG_DECODE_DEEP 0 or 1 (got '" << p << "', '" << d << "')\n";
      return 2;
    }
    const auto staging = v == "cp_async" ? qalg::gpu::DecodeStaging::cp_async
                         : v == "bulk"   ? qalg::gpu::DecodeStaging::bulk
                                         : qalg::gpu::DecodeStaging::registers;
    qalg::gpu::set_decode_engines(staging, p == "1", d == "1");
  }
  // QALG_NARROW_PREFETCH=N (twenty-seventh session): the narrow tiles' L2 prefetch, N units ahead (0-8).
  if (const char* v = std::getenv("QALG_NARROW_PREFETCH")) {
    const std::string m = v;
    if (m.size() != 1 || m[0] < '0' || m[0] > '8') {
      std::cerr << "qalg_gpu_bench: QALG_NARROW_PREFETCH must be 0 to 8 (got '" << m << "')\n";
      return 2;
    }
    qalg::gpu::set_narrow_prefetch(uint32_t(m[0] - '0'));
  }
  // QALG_NARROW_ORDER=runs|strided (twenty-eighth session): the narrow tiles' unit order per CTA;
  // QALG_DECODE_READY=0|1 (twenty-seventh): the FFN decode's hand-over by counters.
  if (!flag("QALG_NARROW_ORDER", qalg::gpu::set_narrow_unit_order, "runs", "strided") ||
      !flag("QALG_DECODE_READY", qalg::gpu::set_decode_ready_counters))
    return 2;
  // QALG_DECODE_FUSED=-1|0|1..8 (thirty-ninth session): the FFN decode in one launch (off, the rule's
  // chunks, or that many per output group).
  if (const char* v = std::getenv("QALG_DECODE_FUSED")) {
    const std::string f = v;
    static const char* const kFused[] = {"-1", "0", "1", "2", "3", "4", "5", "6", "7", "8"};
    if (std::find(std::begin(kFused), std::end(kFused), f) == std::end(kFused)) {
      std::cerr << "qalg_gpu_bench: QALG_DECODE_FUSED must be -1, 0 or 1 ... 8 (got '" << f << "')\n";
      return 2;
    }
    qalg::gpu::set_decode_fused(std::stoi(f));
  }
  // QALG_DECODE_RULE=fit|session10 and QALG_DECODE_SHAPES=ONE,TWO (cols x lanes x unroll, e.g.
  // 16x64x12,64x32x8; either may be empty = the rule's): the register decode's CTA shapes.
  if (const char* v = std::getenv("QALG_DECODE_RULE")) {
    const std::string r = v;
    if (r != "fit" && r != "session10") {
      std::cerr << "qalg_gpu_bench: QALG_DECODE_RULE must be fit or session10 (got '" << r << "')\n";
      return 2;
    }
    qalg::gpu::set_decode_rule(r == "fit" ? qalg::gpu::DecodeRule::fit : qalg::gpu::DecodeRule::session10);
  }
  if (const char* v = std::getenv("QALG_DECODE_SHAPES")) {
    const std::string all = v;
    const auto parse = [](const std::string& t) {
      qalg::gpu::DecodeShape d;
      if (t.empty()) return d;
      unsigned c = 0, l = 0, u = 0;
      char tail = 0;
      if (std::sscanf(t.c_str(), "%ux%ux%u%c", &c, &l, &u, &tail) != 3)
        throw std::invalid_argument("QALG_DECODE_SHAPES: '" + t + "' is not COLSxLANESxUNROLL");
      d.cols = c, d.lanes = l, d.unroll = u;
      return d;
    };
    try {
      const size_t comma = all.find(',');
      if (comma == std::string::npos) throw std::invalid_argument("QALG_DECODE_SHAPES must be ONE,TWO");
      qalg::gpu::set_decode_shapes(parse(all.substr(0, comma)), parse(all.substr(comma + 1)));
    } catch (const std::invalid_argument& e) {
      std::cerr << "qalg_gpu_bench: " << e.what() << "\n";
      return 2;
    }
  }
  // The run's QALG_ settings at the head of its log (thirty-fifth session: the calibration switches
  // change which variant a row shows, and a table's CSV does not say which were set).
  std::printf("# settings:");
  for (char** e = environ; *e; ++e)
    if (std::string(*e).rfind("QALG_", 0) == 0) std::printf(" %s", *e);
  std::printf("\n");
  try {
    Bench b(o);
    b.measure_ceilings();
    std::printf("# paired tiles resident at once: wsp64x64 %u CTAs, wsp64x128 %u CTAs\n",
                qalg::gpu::paired_tile_ctas({64, 64, 5, qalg::gpu::TileEngine::wgmma_ws_pair}),
                qalg::gpu::paired_tile_ctas({64, 128, 5, qalg::gpu::TileEngine::wgmma_ws_pair}));
    if (o.suite == "table" || o.suite == "all") {
      b.null_kernel_probe();  // every timed call holds one replay: the floor fraction reachable at all
      // the rows of table_suite_rows(), in its order, each where QALG_TABLE_ROWS keeps it
      const auto keeps = [&](const char* kind, const std::string& name, int M) {
        return table_rows.keeps({kind, name, M});
      };
      for (const auto& [name, D, F, M, q] : kProjectionTable)
        if (keeps("projection", name, M)) b.projection(name, D, F, M, q, "table");
      for (const auto& [name, D, F] : kFfnShapes) {
        for (int M : kFfnTableM)
          if (keeps("ffn", name, M)) b.ffn(name, D, F, M, 32);
        if (keeps("training", name + "/up", 2048)) b.training(name + "/up", D, F, 2048, 32);
        if (keeps("training", name + "/down", 2048)) b.training(name + "/down", F, D, 2048, 32);
      }
      for (int n : kTableSquares)
        if (keeps("square", std::to_string(n), n)) b.square(n, 128);
    }
    if (o.suite == "launch") {  // (forty-fourth session) the table's rows where the launch is a large share of the
      // time, each with the held warm protocol beside the plain one: the empty replay, the three smallest
      // M = 2048 projections, the five FFN decodes
      b.null_kernel_probe();
      for (const auto& [name, D, F, M, q] : kProjectionTable)
        if (M == 2048 && (name == "Qwen3-30B-A3B-expert" || name == "Qwen3-1.7B" || name == "DeepSeek-V3-expert"))
          b.projection(name, D, F, M, q, "table");
      for (const auto& [name, D, F] : kFfnShapes) b.ffn(name, D, F, 1, 32);
    }
    if (o.suite == "decode") {  // M = 1 only: the five FFN decodes and two projection decodes
      for (const auto& [name, D, F] : kFfnShapes) b.ffn(name, D, F, 1, 32);
      for (int q : {32, 64}) b.projection("Qwen3-8B", 4096, 12288, 1, q, "decode");
    }
    if (o.suite == "ffn") {  // M = 2048 only: the five gated FFNs (QALG_FFN_GATE picks gate/up's kernel)
      for (const auto& [name, D, F] : kFfnShapes) b.ffn(name, D, F, 2048, 32);
    }
    if (o.suite == "ffn30") {  // the Qwen3-30B expert's gated FFN at M = 2048 alone (sweeps of the one kernel)
      b.ffn("Qwen3-30B-A3B-expert", 2048, 768, 2048, 32);
    }
    auto keep = [&](const std::string& name) {  // QALG_ABLATE_SHAPES (checked above): ablate and peerlost
      if (ablate_shapes.empty()) return true;
      for (const std::string& p : ablate_shapes)
        if (name.rfind(p, 0) == 0) return true;
      return false;
    };
    if (o.suite == "ablate") {  // where the warp-specialised tiles' time goes (bench_ablate.hpp)
      b.launch_probe();
      const std::string square = "square n=" + std::to_string(square_n);
      if (keep(square)) b.ablate(square, square_n, square_n, square_n, square_n / 128, true);
      if (!std::getenv("QALG_ABLATE_SQUARE_ONLY"))
        for (const auto& [name, D, F, M, q] : kProjectionTable)
          if (M == 2048 && keep(name)) b.ablate(name, D, F, M, q, false);
    }
    if (o.suite == "segments") {  // the narrow kernel's memory pattern without its math (bench_cases_run.hpp)
      // 208-byte rows (the kernel's pieces) 1, 2 and 4 tiles ahead; 400 (a whole group) 1 and 2; 832, 1024
      for (const auto& [seg, ahead] : std::vector<std::pair<uint32_t, uint32_t>>{
               {208, 1}, {208, 2}, {208, 4}, {400, 1}, {400, 2}, {832, 1}, {1024, 1}})
        b.segments(seg, ahead);
      // the narrow kernel's strided unit order (twenty-eighth session; QALG_NARROW_ORDER=strided's
      // pattern): the CTAs of a row block copy adjacent tiles at once; 3 CTAs per row block (M = 8192)
      // and 16 (the runs at M = 32768) in both orders
      for (uint32_t seg : {208u, 400u}) b.segments(seg, 1, true);
      b.segments(208, 1, false, 16), b.segments(208, 1, true, 16);
    }
    if (o.suite == "square") b.square(square_n, 128);  // one square product (QALG_SQUARE_N, b = 128): for profilers
    if (o.suite == "probe") {  // one paper shape and one training step: for profilers and quick checks
      b.projection("Qwen3-8B", 4096, 12288, 2048, 32, "probe");
      b.training("Qwen3-1.7B/up", 2048, 6144, 2048, 32);
    }
    if (o.suite == "forward") {  // the projection rows and the squares of the table suite alone
      for (const auto& [name, D, F, M, q] : kProjectionTable) b.projection(name, D, F, M, q, "table");
      for (int n : {4096, 8192, 16384, 32768}) b.square(n, 128);
    }
    if (o.suite == "wide") {  // the two Qwen3-32B rows at M = 8192 and 32768 (q = 128, 256: s = 40, 20)
      // QALG_WIDE_M=8192|32768 (twenty-seventh session): one of them (profilers)
      if (wide_m != 32768) b.projection("Qwen3-32B", 5120, 25600, 8192, 128, "table");
      if (wide_m != 8192) b.projection("Qwen3-32B", 5120, 25600, 32768, 256, "table");
    }
    if (o.suite == "narrow") {  // the narrow-group rows, cyclic and interval types (a probe of row strides)
      for (bool interval : {false, true}) {
        b.projection(interval ? "Qwen3-32B/interval" : "Qwen3-32B", 5120, 25600, 32768, 256, "narrow", interval);
        b.projection(interval ? "Qwen3-32B/interval" : "Qwen3-32B", 5120, 25600, 8192, 128, "narrow", interval);
      }
    }
    if (o.suite == "rows") {  // set_row_formula off / on (experimental; printed, no CSV rows)
      b.row_formula_probe("Qwen3-8B", 4096, 12288, 2048, 32);
      b.row_formula_probe("Qwen3-1.7B", 2048, 6144, 2048, 32);
      b.row_formula_probe("Qwen3-30B-A3B-expert", 2048, 768, 2048, 32);
      b.row_formula_probe("square n=16384", 0, 0, 0, 128, 16384);
    }
    if (o.suite == "training") {  // the ten training rows of the table suite alone
      for (const auto& [name, D, F] : kFfnShapes) {
        b.training(name + "/up", D, F, 2048, 32);
        b.training(name + "/down", F, D, 2048, 32);
      }
    }
    if (o.suite == "peerlost") {  // the projections where the Triton peer is faster (for profilers)
      // (thirty-fourth session) QALG_ABLATE_SHAPES picks among them: with QALG_BENCH_VARIANTS, one
      // tile's full row (alternating with dense, warm and flushed, and alone) for one shape
      if (keep("Qwen3-1.7B")) b.projection("Qwen3-1.7B", 2048, 6144, 2048, 32, "peerlost");
      if (keep("Qwen3-8B")) b.projection("Qwen3-8B", 4096, 12288, 2048, 32, "peerlost");
      if (keep("DeepSeek-V3-expert")) b.projection("DeepSeek-V3-expert", 7168, 2048, 2048, 16, "peerlost");
    }
    if (o.suite == "residue") {  // (thirty-fourth session) which operand's L2 residue the M = 2048 projections gain from
      for (const auto& [name, D, F, M, q] : kProjectionTable)  // QALG_ABLATE_SHAPES picks among them
        if (M == 2048 && keep(name)) b.residue(name, D, F, M, q);
    }
    if (o.suite == "decode-residue") {  // (forty-fifth session) what the dense decode between trials costs qalg's
      for (const auto& [name, D, F] : kFfnShapes)  // QALG_ABLATE_SHAPES picks among them
        if (keep(name)) b.decode_residue(name, D, F);
    }
    if (o.suite == "stamps") {  // (thirty-seventh session) the M = 2048 projections' CTA starts (QALG_WS_STAMPS builds)
      for (const auto& [name, D, F, M, q] : kProjectionTable)  // QALG_ABLATE_SHAPES picks among them
        if (M == 2048 && keep(name)) b.stamps(name, D, F, M, q);
    }
    if (o.suite == "train30") {  // the two training rows still slower than dense (for profilers)
      b.training("Qwen3-30B-A3B-expert/up", 2048, 768, 2048, 32);
      b.training("Qwen3-30B-A3B-expert/down", 768, 2048, 2048, 32);
    }
    if (o.suite == "sweep" || o.suite == "all") {
      for (const auto& [name, D, F] : kFfnShapes)
        for (int M : {1, 32, 512, 2048})
          for (int q : {4, 8, 16, 32, 64}) b.projection(name, D, F, M, q, "sweep");
      for (int q : {32, 64, 128, 256}) b.projection("Qwen3-32B", 5120, 25600, 2048, q, "sweep");
    }
    return b.failures() ? 1 : 0;
  } catch (const std::exception& e) {
    std::cerr << "qalg_gpu_bench: " << e.what() << "\n";
    return 1;
  }
}
