#!/usr/bin/env python3
"""The device script's `ab` step: compare builds/settings ("sides") timed in one call.

usage: ab_summary.py AB_CSV BEST_OUT

AB_CSV is the bench's CSV whose `suite` column reads SUITE@SIDEROUND (e.g. ablate@ref1,
table@law12): the reference build is side `ref`, every other side a HEAD setting. Rows compared:
ablate rows by (shape, variant), the gated FFNs at M = 2048 and M = 1 (the decode suite) and the
forward suite's projections and squares by (shape, M). For warm times and, where the rows have them, flushed times, each row shows
every side-round and, per side, the fastest of its rounds over the reference's fastest. Then the
geometric mean of each HEAD side's fastest warm times over the rows; the side with the smallest is
written to BEST_OUT (the device script runs its later steps with that side's settings). A CSV
without a `ref` side, or with no HEAD side, or with no row to compare, is refused (exit code 2)."""
import csv
import math
import sys


def fail(msg):
    print(f"ab_summary.py: {msg}", file=sys.stderr)
    sys.exit(2)


def row_key(r):
    if r["suite"] == "ablate":
        return (r["shape"], r["variant"])
    if r["suite"] == "table" and r["kind"] == "ffn" and r["M"] == "2048":
        return (r["shape"], "ffn")
    if r["suite"] == "table" and r["kind"] == "ffn" and r["M"] == "1":  # the decode suite (twenty-seventh session)
        return (r["shape"], "ffn-decode")
    if r["suite"] == "table" and r["kind"] in ("projection", "square"):
        return (r["shape"], "M=" + r["M"])
    return None


def main(argv):
    if len(argv) != 3:
        fail("usage: ab_summary.py AB_CSV BEST_OUT")
    t, keys, sides = {}, [], []
    try:
        with open(argv[1], newline="") as f:
            for r in csv.DictReader(f):
                suite, _, side = (r.get("suite") or "").partition("@")
                if not side or not side[-1].isdigit():
                    continue
                r = dict(r, suite=suite)
                k = row_key(r)
                if k is None or not r.get("alg_warm_us"):
                    continue
                if k not in keys:
                    keys.append(k)
                if side not in sides:
                    sides.append(side)
                t[k, side] = float(r["alg_warm_us"])
                if r.get("alg_flush_us"):
                    t[k, side, "f"] = float(r["alg_flush_us"])
    except (OSError, KeyError, ValueError) as e:
        fail(f"cannot read {argv[1]}: {e}")
    names = []
    for s in sides:
        if s[:-1] not in names:
            names.append(s[:-1])
    heads = [n for n in names if n != "ref"]
    if not keys:
        fail(f"{argv[1]}: no ablate, ffn (M = 2048 or 1), projection or square rows with a side")
    if "ref" not in names:
        fail(f"{argv[1]}: no reference side (suite@ref<round>)")
    if not heads:
        fail(f"{argv[1]}: no HEAD side besides ref")

    def best(k, n, suffix):
        return min((t[(k, s) + suffix] for s in sides if s[:-1] == n and (k, s) + suffix in t), default=None)

    for suffix, what in (((), "warm"), (("f",), "flushed")):
        rows = [k for k in keys if any((k, s) + suffix in t for s in sides)]
        if not rows:
            continue
        print(f"ab {what}".ljust(44) + "".join(f"{s:>9s}" for s in sides) + "".join(f"  {n}/ref" for n in heads))
        for k in rows:
            ref = best(k, "ref", suffix)
            cells = "".join(f"{t.get((k, s) + suffix, float('nan')):9.1f}" for s in sides)
            ratios = ""
            for n in heads:
                b = best(k, n, suffix)
                ratios += f"  {b / ref:{len(n) + 4}.3f}" if b is not None and ref else "  " + "-".rjust(len(n) + 4)
            print(f"{k[0]:24s} {k[1]:18s} {cells}{ratios}")
    geo = {}
    for n in heads:
        times = [best(k, n, ()) for k in keys]
        times = [x for x in times if x]
        if times:
            geo[n] = math.exp(sum(math.log(x) for x in times) / len(times))
    if not geo:
        fail(f"{argv[1]}: no HEAD side has a warm time")
    print("ab geomean over warm rows: " + ", ".join(f"{n} {g:.2f}" for n, g in geo.items()))
    with open(argv[2], "w") as f:
        f.write(min(geo, key=geo.get))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
