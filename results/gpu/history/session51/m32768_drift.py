#!/usr/bin/env python3
"""Fifty-first session: the Qwen3-32B M = 32768 row (fused-nl64x64) over every committed H200 table.

    cd results/gpu && python3 history/session51/m32768_drift.py

Prints, per table, the bench's bf16 GEMM probe (measured at the run's start), the row's qalg
warm median alternating with dense, qalg before dense's graph exists, dense, and the ratio; then
medians and correlations for the sessions 15-26 and 29-51 (nl64x64 throughout; no H200 came in
27-28). Reads only the CSVs under history/."""
import csv, glob, re, statistics as st

def rows_of(path):
    with open(path) as f:
        return list(csv.DictReader(f))

def corr(a, b):
    ma, mb = st.mean(a), st.mean(b)
    num = sum((x - ma) * (y - mb) for x, y in zip(a, b))
    return num / (sum((x - ma) ** 2 for x in a) * sum((y - mb) ** 2 for y in b)) ** 0.5

pts = []
for path in sorted(set(glob.glob("history/**/bench_table*.csv", recursive=True))):
    rows = rows_of(path)
    if not any("H200" in (r.get("shape") or "") for r in rows if r.get("suite") == "ceiling"):
        continue
    bf16 = next((float(r["dense_warm_us"]) for r in rows if r.get("kind") == "bf16_gemm_TFLOPs"), None)
    row = [r for r in rows if r.get("kind") == "projection" and r.get("shape") == "Qwen3-32B"
           and r.get("M") == "32768" and "nl64x64" in r.get("variant", "")]
    m = re.search(r"session(\d+)", path)
    if bf16 is None or not row or not m or not row[0].get("alg_before_dense_us"):
        continue
    r = row[0]
    pts.append((int(m.group(1)), path, bf16, float(r["alg_warm_us"]), float(r["alg_before_dense_us"]),
                float(r["dense_warm_us"]), float(r["speedup_warm"])))

print("session,table,bf16_TFLOPs,alg_warm_us,alg_before_dense_us,dense_warm_us,speedup_warm")
for p in sorted(pts):
    print(f"{p[0]},{p[1]},{p[2]:.1f},{p[3]:.1f},{p[4]:.1f},{p[5]:.1f},{p[6]:.2f}")
for name, lo, hi in (("sessions 15-26", 15, 26), ("sessions 29-51", 29, 99)):
    g = [p for p in pts if lo <= p[0] <= hi]
    print(f"{name}: {len(g)} tables; medians alg {st.median(p[3] for p in g):.1f}, before dense "
          f"{st.median(p[4] for p in g):.1f}, dense {st.median(p[5] for p in g):.1f} us; "
          f"corr(bf16 probe, alg) {corr([p[2] for p in g], [p[3] for p in g]):.2f}")
