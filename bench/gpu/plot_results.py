# Plots of a qalg_gpu_bench run (issue 7): left, the projection-table speedups of qalg (warm), the
# Triton peer (its speedup over its own torch.matmul in the same protocol: alternating with it, warm,
# where scripts/peer_protocols.py timed that; else each call alone, the peer's own pass) and the
# paper; right, square block products (b = 128) time against n, log-log.
#   python3 plot_results.py bench_table.csv [PEER_JSONL ...] out.png
import csv, json, os, sys

# The paper's warm M = 2048 figures: SPEC §6, kept once in scripts/issue7_targets.py.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from issue7_targets import PROJECTIONS  # noqa: E402


def peer_speedups(lines):
    """shape -> the peer's speedup over its own dense call at M = 2048: its fastest setting in the
    alternating warm protocol where a line gives it, else in its own (alone) pass."""
    best = {}  # shape -> (protocol rank, speedup)
    for p in lines:
        if "residue" in p:  # peer_protocols.py --residue: a diagnostic, not a protocol
            continue
        rank = {"alternating_warm": 0, "alone": 1}.get(p.get("protocol", "alone"))
        times = [v for k, v in p.items() if k.startswith("triton_") and k.endswith("_us")]
        if p.get("M") == 2048 and "shape" in p and rank is not None and times and p.get("dense_us"):
            shape = p["shape"].replace(" expert", "-expert")
            cand = (rank, p["dense_us"] / min(times))
            if shape not in best or cand[0] < best[shape][0]:
                best[shape] = cand
    return {k: v for k, (_, v) in best.items()}


def main(argv):
    if len(argv) < 3:
        sys.exit("usage: plot_results.py bench_table.csv [PEER_JSONL ...] out.png")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in csv.DictReader(open(argv[1])) if r["suite"] == "table"]
    peer = [json.loads(l) for path in argv[2:-1] for l in open(path) if l.strip()]
    paper = {shape: warm for shape, M, q, warm, _ in PROJECTIONS if M == 2048 and shape != "Qwen3-32B"}
    proj = [r for r in rows if r["kind"] == "projection" and r["M"] == "2048" and r["shape"] in paper]
    peer_best = peer_speedups(peer)
    fig, (a, b) = plt.subplots(1, 2, figsize=(13, 4.5))
    x = range(len(proj))
    a.bar([i - 0.27 for i in x], [float(r["speedup_warm"]) for r in proj], 0.27, label="qalg (warm)")
    a.bar([i for i in x], [peer_best.get(r["shape"], 0) for r in proj], 0.27, label="Triton peer (over its own dense)")
    a.bar([i + 0.27 for i in x], [paper[r["shape"]] for r in proj], 0.27, label="paper")
    a.set_xticks(list(x), [r["shape"] for r in proj], rotation=20, fontsize=8)
    a.set_ylabel("speedup over dense cuBLAS, M = 2048")
    a.legend(fontsize=8)
    sq = [r for r in rows if r["kind"] == "square"]
    n = [int(r["M"]) for r in sq]
    b.loglog(n, [float(r["alg_warm_us"]) for r in sq], "o-", label="qalg A*B (b = 128)")
    b.loglog(n, [float(r["dense_warm_us"]) for r in sq], "s-", label="dense cuBLAS")
    ps = [p for p in peer if "square_n" in p]
    if ps:
        b.loglog([p["square_n"] for p in ps], [p["triton_us"] for p in ps], "^-", label="Triton peer")
    b.set_xlabel("n")
    b.set_ylabel("time (us)")
    b.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(argv[-1], dpi=110)


if __name__ == "__main__":
    main(sys.argv)
