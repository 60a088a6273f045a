#!/usr/bin/env python3
"""Two statements of issue 7's targets side by side: which verdicts a new table changes.

usage: compare_targets.py OLD_TARGETS_MD NEW_TARGETS_MD

Each file is `scripts/issue7_targets.py`'s output (results/gpu/targets.md, or the targets.md a
device call writes beside its table; prose above the tables is skipped). Prints one Markdown table:
every verdict row of the targets table (key: target and row, without the parenthesised q and µs,
which move from table to table; target 2's reachable bound in parentheses is dropped from qalg's
cell too) and of the peer table (key: the row), with qalg's figures and the
verdict in each file, the rows whose verdict changed first and marked; then each file's `met: N of
T` line. Rows in only one file are listed as such. Exit 0 when both were read, 2 when a file
cannot be read, holds neither table, a row without 5 cells or the same row twice.

Why: a session that gets a table decides whether it becomes the current one by comparing it with
the current table row by row (the READMEs' "against the current table" paragraphs); this does the
mechanical part the same way every time, from the committed files."""
import re
import sys

TARGETS_HEADER = "| target | row |"
PEER_HEADER = "| against the Triton peer"


def fail(msg):
    print(f"compare_targets.py: {msg}", file=sys.stderr)
    sys.exit(2)


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def row_key(label):
    """A row's label without the parenthesised q and times: '(q = 32, 21.7 µs)' moves between tables."""
    return re.sub(r"\s*\([^)]*\)", "", label).strip()


def read(path):
    """{key: (qalg figures, verdict)} in file order, and the 'met: N of T' line (or None)."""
    try:
        text = open(path, encoding="utf-8").read()
    except (OSError, UnicodeDecodeError) as e:
        fail(f"cannot read {path}: {e}")
    rows, met, table = {}, None, None
    for line in text.splitlines():
        if line.startswith(TARGETS_HEADER):
            table = "targets"
            continue
        if line.startswith(PEER_HEADER):
            table = "peer"
            continue
        if not line.startswith("|"):
            table = None if line.strip() == "" else table
            m = re.match(r"met: (\d+) of (\d+)\s*$", line)
            if m:
                met = (int(m.group(1)), int(m.group(2)))
            continue
        if table is None or line.startswith("|---"):
            continue
        c = cells(line)
        if len(c) != 5:
            fail(f"{path}: a {table} row without 5 cells: {line.strip()}")
        if table == "targets":
            key, value = f"{c[0]}: {row_key(c[1])}", (row_key(c[3]), c[4])  # target 2's bound in () dropped
        else:
            key, value = f"peer: {row_key(c[0])}", (" · ".join(c[1:4]), c[4])
        if key in rows:  # one row would hide the other
            fail(f"{path}: the row '{key}' twice")
        rows[key] = value
    if not rows:
        fail(f"{path}: neither the targets table ('{TARGETS_HEADER} …') nor the peer table")
    return rows, met


def main(argv):
    if len(argv) != 3:
        fail("usage: compare_targets.py OLD_TARGETS_MD NEW_TARGETS_MD")
    old, old_met = read(argv[1])
    new, new_met = read(argv[2])
    keys = list(old) + [k for k in new if k not in old]
    changed = [k for k in keys if k in old and k in new and old[k][1] != new[k][1]]
    rest = [k for k in keys if k not in changed]
    print("| row | old qalg | new qalg | old verdict | new verdict | changed |")
    print("|---|---|---|---|---|---|")
    for k in changed + rest:
        o = old.get(k, ("not in the old file", "—"))
        n = new.get(k, ("not in the new file", "—"))
        mark = "**yes**" if k in changed else ("only one file" if k not in old or k not in new else "")
        print(f"| {k} | {o[0]} | {n[0]} | {o[1]} | {n[1]} | {mark} |")
    print()
    say = lambda m: f"{m[0]} of {m[1]}" if m else "no count"
    print(f"met: old {say(old_met)}, new {say(new_met)}; verdicts changed: {len(changed)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
