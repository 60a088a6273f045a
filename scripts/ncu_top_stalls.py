#!/usr/bin/env python3
"""The instructions of one kernel where its warps spent the most stall samples, from Nsight Compute's
source page as CSV (ncu -i REPORT --page source --csv --print-source sass > FILE).

Prints the sampled total, the stall reasons summed over the kernel, then the TOP (default 40)
instructions by samples with their three largest reasons. Column names differ between ncu
versions, so the sample column is found by name ("Warp Stall Sampling (All Samples)" or the first
column naming stall samples) and the reasons are every other numeric column naming a stall.

  python3 scripts/ncu_top_stalls.py ncu_source.csv [TOP]
"""
import csv
import sys


def number(v):
    try:
        return float(str(v).replace(",", ""))
    except ValueError:
        return None


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    top = int(argv[2]) if len(argv) > 2 else 40
    with open(argv[1], newline="") as f:
        lines = f.read().splitlines()
    # ncu may print "==PROF==" or kernel-name lines before the CSV header: start at the first line
    # holding the source column.
    start = next((i for i, l in enumerate(lines) if '"Source"' in l or l.startswith("Address")), None)
    if start is None:
        print(f"{argv[1]}: no CSV header with a Source column", file=sys.stderr)
        return 2
    rows = list(csv.DictReader(lines[start:]))
    if not rows:
        print(f"{argv[1]}: no instructions", file=sys.stderr)
        return 2
    cols = list(rows[0].keys())
    all_col = next((c for c in cols if "Warp Stall Sampling (All" in c), None)
    all_col = all_col or next((c for c in cols if "Sampling" in c and "Stall" in c), None)
    if all_col is None:
        print(f"{argv[1]}: no stall-sample column among {cols}", file=sys.stderr)
        return 2
    # (the "(Not Issued)" columns are a subset of the same samples: left out, so shares add up)
    reasons = [c for c in cols if c != all_col and "stall" in c.lower() and "Sampling" not in c and "Not Issued" not in c]
    total = sum(number(r[all_col]) or 0 for r in rows)
    print(f"{len(rows)} instructions, {total:.0f} samples ({all_col})")
    sums = {c: sum(number(r[c]) or 0 for r in rows) for c in reasons}
    for c, v in sorted(sums.items(), key=lambda kv: -kv[1])[:16]:
        if v > 0:
            print(f"  {c:50s} {v:10.0f}  {100 * v / max(total, 1):5.1f} %")
    src = "Source" if "Source" in cols else cols[1]
    addr = "Address" if "Address" in cols else cols[0]
    ranked = sorted(rows, key=lambda r: -(number(r[all_col]) or 0))[:top]
    for r in ranked:
        n = number(r[all_col]) or 0
        why = sorted(((number(r[c]) or 0, c) for c in reasons), reverse=True)[:3]
        why_s = ", ".join(f"{c.replace('stall_', '')} {v:.0f}" for v, c in why if v > 0)
        print(f"{r[addr]:>8s} {100 * n / max(total, 1):5.1f} %  {r[src][:70]:70s} {why_s}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
