#!/usr/bin/env python3
"""A markdown table of the bench's stamps rows (bench/gpu/bench_stamps.hpp, scripts/device_stamps.sh):
per shape, tile, side and protocol, the replay's median and each stamp's median over the CTAs (µs
from the first CTA's entry; each the median over the trials), the start's stamps in the order the
kernel passes them: entry, barriers made, producer start, griddepcontrol.wait passed, first item
loaded, its steps counted, first stage free, first stage issued, first stage landed, kDone seen,
last stores done.

    python3 scripts/stamps_summary.py stamps.csv [stamps.csv ...]

A row is `side,stamps,<protocol>,<shape>,M,D,F,q,<tile>,<replay µs>,` then 16 slots' median and
latest (device_stamps.sh puts the side first; the bench's own file has no side: `stamps,…`); the
first build's rows (session37/call3) had 8 slots, the finer ones shown "—". Other
rows (the bench's header, its ceiling rows) are skipped. Exit 2 with the problem named for a file
that cannot be read, a stamps row of the wrong length or a value that is not a number, or no stamps
rows at all.
"""
import csv
import sys

SLOTS = (8, 16)  # the first build's rows had 8 (session37/call3)
ORDER = [(0, "entry"), (10, "barriers"), (11, "prod-start"), (1, "dep-wait"), (2, "item"), (8, "steps"),
         (9, "stage"), (3, "issued"), (4, "landed"), (5, "done"), (6, "stored")]


def fail(msg):
    print(f"stamps_summary.py: {msg}", file=sys.stderr)
    sys.exit(2)


def rows_of(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        fail(f"cannot read {path}: {e}")
    out = []
    for n, row in enumerate(rows, 1):
        if row[:1] == ["stamps"]:
            row = [""] + row  # the bench's own file: no side
        if len(row) < 2 or row[1] != "stamps":
            continue
        if (len(row) - 10) // 2 not in SLOTS or len(row) % 2:
            fail(f"{path}:{n}: a stamps row of {len(row)} fields (a side, 9, and 16 or 32 stamps expected)")
        try:
            values = [float(v) for v in row[9:]]
        except ValueError as e:
            fail(f"{path}:{n}: {e}")
        side, _, protocol, shape, _, _, _, _, tile = row[:9]
        med = values[1::2]
        out.append((shape, tile.replace("fused-", ""), side, protocol, values[0], med + [-1.0] * (16 - len(med))))
    return out


def main(argv):
    if len(argv) < 2:
        fail("usage: stamps_summary.py STAMPS_CSV [STAMPS_CSV ...]")
    rows = [r for path in argv[1:] for r in rows_of(path)]
    if not rows:
        fail("no stamps rows in " + ", ".join(argv[1:]))
    print("| shape, tile | side | protocol | replay µs | " + " | ".join(name for _, name in ORDER) + " |")
    print("|---|---|---|---|" + "---|" * len(ORDER))
    for shape, tile, side, protocol, replay, med in rows:
        cells = " | ".join("—" if med[s] < 0 else f"{med[s]:.2f}" for s, _ in ORDER)
        print(f"| {shape} {tile} | {side or '—'} | {protocol} | {replay:.1f} | {cells} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
