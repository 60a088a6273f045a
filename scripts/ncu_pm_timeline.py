#!/usr/bin/env python3
"""One kernel's PM-sampling timeline from Nsight Compute's raw page (the `full` set samples a few
counters every ~1.5 us over the kernel's duration): DRAM read and write throughput, L2 throughput
and tensor-pipe activity (% of peak) and SM cycles active, one line per sample, over the samples
with SMs active and one more on each side.

Why: the details page gives only averages over the kernel; whether a kernel is slow throughout or
slow at its start and end (the copies not yet begun, the last tiles draining) shows only over time.

  ncu -i REPORT --page raw --csv --print-metric-instances values | gzip > raw.csv.gz   (on the GPU machine)
  python3 scripts/ncu_pm_timeline.py raw.csv.gz [KERNEL_ROW]
"""
import csv
import gzip
import re
import sys

COLUMNS = [
    ("dram rd %", "dramc__read_throughput.avg.pct_of_peak_sustained_elapsed"),
    ("dram wr %", "dramc__write_throughput.avg.pct_of_peak_sustained_elapsed"),
    ("L2 %", "lts__throughput.avg.pct_of_peak_sustained_elapsed"),
    ("tensor %", "sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed"),
    ("SM cycles", "sm__cycles_active.avg"),
]


def series(header, row, suffix):
    """The sampled values of the column whose name ends with suffix ("total (v0; v1; ...)"), or None."""
    for name, value in zip(header, row):
        if name.endswith(suffix):
            m = re.search(r"\(([^()]*)\)", value)
            if m:
                try:
                    return [float(v.strip().replace(",", "") or 0) for v in m.group(1).split(";")]
                except ValueError:
                    raise ValueError(f"column {name}: a sample that is not a number in ({m.group(1)[:60]}...)")
    return None


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    opener = gzip.open if argv[1].endswith(".gz") else open
    try:
        with opener(argv[1], "rt") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        print(f"ncu_pm_timeline: cannot read {argv[1]}: {e}", file=sys.stderr)
        return 2
    except (UnicodeDecodeError, csv.Error) as e:
        print(f"ncu_pm_timeline: {argv[1]} is not a CSV file: {e}", file=sys.stderr)
        return 2
    if not rows:
        print(f"ncu_pm_timeline: {argv[1]} is empty (no CSV header)", file=sys.stderr)
        return 2
    # row 0: names, row 1: units, then one row per profiled kernel
    kernels = rows[2:]
    if len(argv) > 2 and not argv[2].isdigit():
        print(f"ncu_pm_timeline: KERNEL_ROW must be a row number 0, 1, ... (got '{argv[2]}')", file=sys.stderr)
        return 2
    k = int(argv[2]) if len(argv) > 2 else 0
    if not 0 <= k < len(kernels):
        print(f"ncu_pm_timeline: {argv[1]} has {len(kernels)} kernel row(s), asked for row {k}", file=sys.stderr)
        return 2
    try:
        cols = [(label, series(rows[0], kernels[k], suffix)) for label, suffix in COLUMNS]
    except ValueError as e:
        print(f"ncu_pm_timeline: {argv[1]}: {e}", file=sys.stderr)
        return 2
    cols = [(label, s) for label, s in cols if s is not None]
    if not cols:
        print(f"ncu_pm_timeline: no PM-sampling columns in {argv[1]} (profiled without the full set?)", file=sys.stderr)
        return 2
    n = min(len(s) for _, s in cols)
    # The kernel's window: the samples with SMs active (the buffer also holds samples from before
    # and after it, L2 traffic of the profiler's own cache flushes among them), one more each side.
    sm = dict(cols).get("SM cycles")
    active = [i for i in range(n) if (sm[i] > 0 if sm else any(s[i] > 1 for _, s in cols))]
    if not active:
        print("ncu_pm_timeline: no sample with the kernel running", file=sys.stderr)
        return 2
    print("sample " + " ".join(f"{label:>10s}" for label, _ in cols))
    first, last = max(0, active[0] - 1), min(n - 1, active[-1] + 1)
    for i in range(first, last + 1):
        print(f"{i - first:6d} " + " ".join(f"{s[i]:10.1f}" for _, s in cols))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
