# Plots of a qalg_gpu_bench run (issue 7): left, the projection-table speedups of qalg, the Triton
# peer (its speedup over its own torch.matmul; the peer file may come from another call) and the paper; right, square block products (b = 128) time against n, log-log.
#   python3 plot_results.py bench_table.csv peer.jsonl out.png
import csv, json, math, os, sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["suite"] == "table"]
peer = [json.loads(l) for l in open(sys.argv[2]) if l.strip()] if len(sys.argv) > 3 else []
# The paper's warm M = 2048 figures: SPEC §6, kept once in scripts/issue7_targets.py.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from issue7_targets import PROJECTIONS  # noqa: E402
paper = {shape: warm for shape, M, q, warm, _ in PROJECTIONS if M == 2048 and shape != "Qwen3-32B"}
proj = [r for r in rows if r["kind"] == "projection" and r["M"] == "2048" and r["shape"] in paper]
peer_best = {}
for p in peer:
    if p.get("M") == 2048 and "shape" in p:
        peer_best[p["shape"].replace(" expert", "-expert").replace("A3B-expert", "A3B-expert")] = max(
            v for k, v in p.items() if k.startswith("speedup"))
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
fig.savefig(sys.argv[-1], dpi=110)
