#!/usr/bin/env python3
"""Per-shape forward calibration (gpu/include/qalg/gpu/kernels.hpp) from benchmark CSVs: for each
projection/square shape, the variant its row chose, as K,N,q,M,schedule,bm,bn,warps,engine,order
(order: the warp-specialised tiles' item order, "types" for a "…-types" variant, else "columns", with
"-descending" for a "…-desc" variant: the items last first); for a
shape only the training rows timed (a down projection), the forward tile their calibration chose. With
several CSVs (runs), a shape takes the row with the lowest measured warm median (alg_warm_us):
a run's pick comes from a short calibration phase whose timings vary by 10-20 % between runs.
Run: python3 bench/gpu/calibration_from_bench.py results/gpu/bench_table.csv [more.csv …] > results/gpu/calibration.csv
"""
import csv
import re
import sys

ENGINES = {"": "mma", "wg": "wgmma", "ws": "wgmma_ws", "wr": "wgmma_ws_resident", "wt": "wgmma_ws_types", "wm": "wgmma_many", "wmr": "wgmma_many_rows", "wl": "wgmma_many_lean", "wsl": "wgmma_ws_lean", "wsp": "wgmma_ws_pair", "wsg": "wgmma_ws_group_pairs", "wsm": "wgmma_ws_row_pairs", "nl": "narrow_law"}
best = {}  # (D, F, q, M) -> fastest row over the runs, in first-seen order
trained = {}  # the same from training rows ("ws64x192+dX-wm+dW-wm": the forward tile comes first)
for path in sys.argv[1:]:
    for r in csv.DictReader(open(path)):
        if not r["variant"]:
            continue
        key = (r["D"], r["F"], r["q"], r["M"])
        if r["kind"] == "training" and "+" in r["variant"]:
            fwd = r["variant"].split("+")[0]
            if fwd in ("default", "fwd"):  # "fwd+dX+dW": rows written before the training calibration
                continue
            r = dict(r, variant="fused-" + fwd)
            if key not in trained or float(r["alg_warm_us"]) < float(trained[key]["alg_warm_us"]):
                trained[key] = r
            continue
        if r["kind"] not in ("projection", "square"):
            continue
        if key not in best or float(r["alg_warm_us"]) < float(best[key]["alg_warm_us"]):
            best[key] = r
# A training row's pick (e.g. a down projection F -> D) only where no projection row timed the shape:
# training times are of forward + dX + dW and do not compare with a projection's.
for key, r in trained.items():
    best.setdefault(key, r)
print("K,N,q,M,schedule,bm,bn,warps,engine,order")
for r in best.values():
    v = r["variant"]
    if v == "diagonal-first":
        print(f'{r["D"]},{r["F"]},{r["q"]},{r["M"]},diagonal-first,64,128,5,wgmma_ws,columns')
        continue
    m = re.fullmatch(r"fused-(wg|wsl|wsp|wsg|wsm|ws|wr|wt|wmr|wm|wl|nl)?(\d+)x(\d+)(?:w(\d+))?(-types)?(-desc)?", v)
    if not m:
        sys.exit(f"unknown variant {v}")
    eng, bm, bn, w = m.group(1) or "", int(m.group(2)), int(m.group(3)), m.group(4)
    warps = int(w) if w else (bm // 16 + (1 if eng in ("ws", "wr", "wt", "wsl", "wsp", "wsg", "wsm") else 0))
    if eng == "nl":  # the narrow-group law tiles: nl64x64 has 8 warps (two per 16-row strip), nl64x128 4
        warps = 8 if bn == 64 else 4
    order = ("types" if m.group(5) else "columns") + ("-descending" if m.group(6) else "")
    print(f'{r["D"]},{r["F"]},{r["q"]},{r["M"]},endpoint-fused,{bm},{bn},{warps},{ENGINES[eng]},{order}')
