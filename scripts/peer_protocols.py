"""The Triton peer (../shared/peers/triton_qproj.py) timed in each of qalg's bench protocols, so that
issue 7's comparison with it is like with like (thirty-fourth session).

The peer's own pass (`table1`) times each call alone: graph replays back to back, medians of 30.
qalg's table (bench/gpu/gpu_timing.hpp) states its headline time with a different protocol: the
dense call and the algebraic call replayed alternately (medians of 30 each), warm and with a
512 MiB memset before every replay (flushed); each call alone is its `alg_alone_us` column. Until
this script, issue7_targets.py compared qalg's alternating time with the peer's alone time.

This runs the peer's kernel (its own code, loaded from PEER_PY: only its imports and function
definitions are executed, not its benchmark passes) on table1's shapes and settings and prints one
JSON line per shape and protocol:
    {"shape", "M", "D", "F", "protocol": "alone" | "alternating_warm" | "alternating_flushed",
     "dense_us", "triton_q<q>_<int|cyc>_us", ...}   (the alone line also "config_q<q>_<int|cyc>": the
                                                    autotuner's pick)
`alone` uses the peer's own `bench` (its protocol unchanged); the alternating ones replay the
peer's graph alternately with the peer's dense `torch.matmul` graph, as qalg's Timer.alternate does.
Before timing, each setting's output is checked against the peer's own dense reference (relative
L2 error at most 1e-2, as the peer's checks require); a failure exits 1.

    python3 scripts/peer_protocols.py .gpu-carry/triton_qproj.py [--residue] [SHAPE ...] > peer_protocols.jsonl

--residue also prints, per shape, the peer alternating with read-only passes over X and W (see
main; the counterpart of qalg_gpu_bench's residue suite).

The flush is the call qalg's Timer makes, cudaMemsetAsync on the current stream (through ctypes from
the CUDA runtime library, thirty-fifth session: the flushed protocol is where qalg trails the peer
on DeepSeek-V3, so both must flush alike); where that library cannot be loaded, torch's fill_ (a
kernel's stores), and the flushed lines say which ("flush": "cudaMemsetAsync" | "fill_").

SHAPE names select table1 shapes (default all). Bad input (no such file, a file without the
peer's `qproj`, `bench` and `reference`, an unknown shape) exits 2 with a message naming it.

--squares (thirty-seventh session) times the square block products instead of table1's shapes: n =
4096 … 32768, b = 128, q = n / b, the peer's own setting (rows by interval types; its `more` pass), in
the same three protocols against the peer's dense `torch.matmul` of the two n x n operands, one line
per n and protocol: {"square_n", "b", "q", "protocol", "dense_us", "triton_us"}. Why: the peer's own
pass times each square alone after a few dense calls only, while qalg's alone time comes after its
row's alternating trials (at n = 32768 ~100 ms dense calls: session37/call2 ran qalg's kernel in
1848 µs before them and 2070 after), so that comparison was not like with like. The peer's output is
checked against its reference at n = 4096 (the same kernel and setting at every n; its reference in
double precision would need ~50 GB at n = 32768, and the peer's own pass checks none of its squares).

--profile qQ-int|qQ-cyc (thirty-sixth session, for Nsight Compute) times nothing: for the one SHAPE
named it autotunes and checks that setting as above, then calls the peer once more inside an NVTX
range `peer_profile`, so that `ncu --nvtx --nvtx-include peer_profile/ --kernel-name regex:qproj_kernel
--launch-count 1 python3 scripts/peer_protocols.py PEER_PY --profile q16-int "DeepSeek-V3 expert"`
profiles exactly that launch (ncu's own cache control flushes the caches before it: the flushed
case, as qalg's kernels under the device_session20 `ncu` step). One JSON line names the setting and
the autotuner's pick. Why: qalg trails the peer on DeepSeek-V3 only with L2 flushed, and its PM
timeline beside the peer's shows where.
"""
import re
import ast
import ctypes
import ctypes.util
import json
import os
import sys

SQUARES = (4096, 8192, 16384, 32768)  # --squares: n, with b = 128 (the peer's `more` pass)
SQUARE_B = 128
SHAPES = [("Qwen3-1.7B", 2048, 6144), ("Qwen3-4B", 2560, 9728), ("Qwen3-8B", 4096, 12288),
          ("Qwen3-30B-A3B expert", 2048, 768), ("DeepSeek-V3 expert", 7168, 2048)]
M = 2048
TRIALS = 30  # as qalg's table (bench_cases.hpp Options::trials) and the peer's bench
FLUSH_BYTES = 512 << 20  # as qalg's Timer::kFlushBytes


def fail(msg):
    print(f"peer_protocols.py: {msg}", file=sys.stderr)
    sys.exit(2)


def load_peer(path):
    """The peer's imports and function definitions, compiled under its own file name (Triton's
    jit reads a kernel's source through inspect, which finds it by that name and the line numbers)."""
    try:
        source = open(path).read()
    except OSError as e:
        fail(f"cannot read the peer {path}: {e}")
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as e:
        fail(f"{path} is not Python: {e}")
    keep = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom, ast.FunctionDef))]
    names = {n.name for n in keep if isinstance(n, ast.FunctionDef)}
    missing = [f for f in ("qproj", "bench", "reference") if f not in names]
    if missing:
        fail(f"{path} defines no {', '.join(missing)}: not the Triton peer")
    ns = {"__name__": "triton_qproj_peer", "__file__": os.path.abspath(path)}
    exec(compile(ast.Module(body=keep, type_ignores=[]), os.path.abspath(path), "exec"), ns)
    return ns


def cuda_memset_async():
    """cudaMemsetAsync(ptr, value, bytes, stream) from the CUDA runtime library, or None: the copy
    this process has loaded already (torch's, once CUDA is initialised) first, then the system's."""
    loaded = []
    try:
        with open("/proc/self/maps") as maps:
            loaded = sorted({line.split()[-1] for line in maps if "libcudart" in line and "/" in line})
    except OSError:
        pass
    names = loaded + [ctypes.util.find_library("cudart"), "libcudart.so", "libcudart.so.13", "libcudart.so.12",
                      "/usr/local/cuda/lib64/libcudart.so"]
    for name in filter(None, names):
        try:
            fn = ctypes.CDLL(name).cudaMemsetAsync
        except (OSError, AttributeError):
            continue
        fn.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t, ctypes.c_void_p]
        fn.restype = ctypes.c_int
        return fn
    return None


def in_table1(D, F, q):
    """Whether table1 times setting q on this shape (the peer's blocks: D / q and F / q multiples of 16)."""
    return (F // q) % 16 == 0 and (D // q) % 16 == 0


def operands(D, F):
    """X (M x D) and W (D x F), bf16, seeded: the same inputs in every mode."""
    import torch

    torch.manual_seed(0)
    return (torch.randn(M, D, device="cuda", dtype=torch.bfloat16),
            torch.randn(D, F, device="cuda", dtype=torch.bfloat16) / D**0.5)


def checked_call(peer, name, X, W, q, cyc):
    """The peer's call once (its autotuning, outside any graph or range, as the peer does), checked
    against its own dense reference (relative L2 at most 1e-2, else exit 1); returns the error."""
    Y = peer["qproj"](X, W, q, cyc)
    R = peer["reference"](X, W, q, cyc)
    err = ((Y.double() - R).norm() / R.norm()).item()
    if not err <= 1e-2:
        print(f"peer_protocols.py: the peer's {name} q={q} cyclic={cyc} has relative L2 error {err}", file=sys.stderr)
        sys.exit(1)
    return err


def profile_setting(argv):
    """--profile's value as (q, cyclic) and argv without the option, or (None, argv); refuses a bad one."""
    if "--profile" not in argv:
        return None, argv
    i = argv.index("--profile")
    value = argv[i + 1] if i + 1 < len(argv) else ""
    m = re.fullmatch(r"q(16|32)-(int|cyc)", value)
    if not m:
        fail(f"--profile must be q16-int, q16-cyc, q32-int or q32-cyc (table1's settings), got '{value}'")
    return (int(m.group(1)), m.group(2) == "cyc"), argv[:i] + argv[i + 2:]


def profile(peer, name, D, F, q, cyc):
    """The peer's one launch for Nsight Compute (see --profile above)."""
    import torch

    X, W = operands(D, F)
    err = checked_call(peer, name, X, W, q, cyc)  # autotunes first, outside the range
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("peer_profile")
    peer["qproj"](X, W, q, cyc)
    torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    cfg = getattr(peer.get("qproj_kernel"), "best_config", None)
    print(json.dumps({"profile": name, "M": M, "D": D, "F": F, "q": q, "cyclic": cyc, "rel_l2": err,
                      "config": str(cfg)}), flush=True)
    return 0


def main(argv):
    residue, squares = "--residue" in argv, "--squares" in argv
    argv = [a for a in argv if a not in ("--residue", "--squares")]
    setting, argv = profile_setting(argv)
    if len(argv) < 2:
        fail("usage: peer_protocols.py PEER_PY [--residue | --squares | --profile qQ-int|qQ-cyc] [SHAPE ...]")
    wanted = argv[2:]
    if squares and (wanted or residue or setting):
        fail("--squares takes no SHAPE, --residue or --profile (it times the squares n = 4096 ... 32768)")
    unknown = [s for s in wanted if s not in {n for n, _, _ in SHAPES}]
    if unknown:
        fail(f"unknown shape(s) {unknown}; table1's: {[n for n, _, _ in SHAPES]}")
    if setting and (residue or len(wanted) != 1):
        fail("--profile takes exactly one SHAPE and no --residue")
    if setting:  # (checked before the peer's imports run: they need torch)
        name, D, F = next(s for s in SHAPES if s[0] == wanted[0])
        q = setting[0]
        if not in_table1(D, F, q):
            fail(f"--profile q{q}: {name} (D = {D}, F = {F}) has no such setting in table1 (D / q and F / q must be multiples of 16)")
        return profile(load_peer(argv[1]), name, D, F, *setting)
    peer = load_peer(argv[1])
    import torch

    qproj, bench = peer["qproj"], peer["bench"]
    flush = torch.empty(FLUSH_BYTES, dtype=torch.uint8, device="cuda")
    memset = cuda_memset_async()
    if memset:  # one trial call: a runtime library that cannot work beside torch's falls back to fill_
        rc = memset(flush.data_ptr(), 0, FLUSH_BYTES, torch.cuda.current_stream().cuda_stream)
        torch.cuda.synchronize()
        if rc != 0:
            print(f"peer_protocols.py: cudaMemsetAsync returned {rc}: flushing with fill_", file=sys.stderr)
            memset = None
    flush_kind = "cudaMemsetAsync" if memset else "fill_"
    salt = [0]

    def graph(fn):
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                fn()
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            fn()
        return g

    def once(g, flushed):
        # qalg's Timer::once: the flush (a memset) before the first event, then one replay
        if flushed:
            salt[0] = (salt[0] + 1) % 256
            if memset:
                rc = memset(flush.data_ptr(), salt[0], FLUSH_BYTES, torch.cuda.current_stream().cuda_stream)
                if rc != 0:
                    print(f"peer_protocols.py: cudaMemsetAsync returned {rc}", file=sys.stderr)
                    sys.exit(1)
            else:
                flush.fill_(salt[0])
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        b.synchronize()
        return a.elapsed_time(b) * 1e3

    def median(v):
        v = sorted(v)
        return v[len(v) // 2]

    def alternate(gd, gp, flushed):
        once(gd, flushed), once(gp, flushed)
        td, tp = [], []
        for _ in range(TRIALS):
            td.append(once(gd, flushed))
            tp.append(once(gp, flushed))
        return median(td), median(tp)

    for name, D, F in [] if squares else SHAPES:
        if wanted and name not in wanted:
            continue
        X, W = operands(D, F)
        Yd = torch.empty(M, F, device="cuda", dtype=torch.bfloat16)
        gd = graph(lambda: torch.matmul(X, W, out=Yd))
        lines = {p: {"shape": name, "M": M, "D": D, "F": F, "protocol": p}
                 for p in ("alone", "alternating_warm", "alternating_flushed")}
        lines["alternating_flushed"]["flush"] = flush_kind
        lines["alone"]["dense_us"] = round(bench(lambda: torch.matmul(X, W, out=Yd)), 1)
        dense_alt = {}
        # --residue (as qalg_gpu_bench's residue suite): the peer alternating with a read-only pass
        # over X, over W, over both in either order (a sum: it reads the operand once and writes one
        # number), so that the L2 holds what was read. Lines {"shape", "M", "residue": kind, ...}:
        # diagnostics, which issue7_targets.py skips.
        sx, sw = torch.empty((), device="cuda"), torch.empty((), device="cuda")
        rx = lambda: torch.sum(X.view(-1), 0, dtype=torch.float32, out=sx)
        rw = lambda: torch.sum(W.view(-1), 0, dtype=torch.float32, out=sw)
        reads = {} if not residue else {
            "read-x": graph(rx), "read-w": graph(rw),
            "read-x-then-w": graph(lambda: (rx(), rw())), "read-w-then-x": graph(lambda: (rw(), rx()))}
        residue_lines = {}
        for q in (16, 32):  # table1's settings
            if not in_table1(D, F, q):
                continue
            for cyc in (False, True):
                key = f"triton_q{q}_{'cyc' if cyc else 'int'}_us"
                checked_call(peer, name, X, W, q, cyc)  # autotune outside the graphs, as the peer does
                lines["alone"][key] = round(bench(lambda: qproj(X, W, q, cyc)), 1)
                cfg = getattr(peer.get("qproj_kernel"), "best_config", None)  # the autotuner's pick
                if cfg is not None:
                    lines["alone"][key.replace("triton_", "config_").replace("_us", "")] = str(cfg)
                gp = graph(lambda: qproj(X, W, q, cyc))  # (its output in the graph's pool, as in the peer's bench)
                for p, flushed in (("alternating_warm", False), ("alternating_flushed", True)):
                    d, t = alternate(gd, gp, flushed)
                    lines[p][key] = round(t, 1)
                    dense_alt.setdefault(p, []).append(d)
                for kind, g in reads.items():  # --residue: after a read-only pass instead of dense
                    residue_lines.setdefault(kind, {"shape": name, "M": M, "D": D, "F": F, "residue": kind})[key] = \
                        round(alternate(g, gp, False)[1], 1)
                del gp
        for p, ds in dense_alt.items():
            lines[p]["dense_us"] = round(median(ds), 1)
        for p in ("alone", "alternating_warm", "alternating_flushed"):
            print(json.dumps(lines[p]), flush=True)
        for line in residue_lines.values():
            print(json.dumps(line), flush=True)
    for n in SQUARES if squares else ():
        q = n // SQUARE_B
        A = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
        B = torch.randn(n, n, device="cuda", dtype=torch.bfloat16) / n**0.5
        C = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
        if n == SQUARES[0]:  # (see --squares above)
            Y = qproj(A, B, q, False)
            R = peer["reference"](A, B, q, False)
            err = ((Y.double() - R).norm() / R.norm()).item()
            del Y, R
            if not err <= 1e-2:
                print(f"peer_protocols.py: the peer's square n = {n} has relative L2 error {err}", file=sys.stderr)
                sys.exit(1)
        else:
            qproj(A, B, q, False)  # autotune outside the graphs
        base = {"square_n": n, "b": SQUARE_B, "q": q}
        gd = graph(lambda: torch.matmul(A, B, out=C))
        gp = graph(lambda: qproj(A, B, q, False))
        print(json.dumps({**base, "protocol": "alone", "dense_us": round(bench(lambda: torch.matmul(A, B, out=C)), 1),
                          "triton_us": round(bench(lambda: qproj(A, B, q, False)), 1)}), flush=True)
        for p, flushed in (("alternating_warm", False), ("alternating_flushed", True)):
            d, t = alternate(gd, gp, flushed)
            line = {**base, "protocol": p, "dense_us": round(d, 1), "triton_us": round(t, 1)}
            if flushed:
                line["flush"] = flush_kind
            print(json.dumps(line), flush=True)
        del gd, gp, A, B, C
        torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
