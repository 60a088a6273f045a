"""scripts/compare_targets.py: two targets.md files side by side. Laws: a row is keyed by its target
and label without the parenthesised q and µs (so the same row in two tables pairs up however its
times moved); a row is marked changed exactly when both files hold it and its verdicts differ, and
the changed rows come first; rows in only one file are listed as such; the count line repeats each
file's 'met' line and counts the changed rows; the other tables of targets.md (held warm, unmet
ratios) are not read; an unreadable file, one without either table or a verdict row with a wrong
number of cells or the same row twice exits 2 naming the file."""
import subprocess
import sys

from conftest import ROOT

SCRIPT = ROOT / "scripts" / "compare_targets.py"
TARGETS = "| target | row | paper warm / flushed | qalg warm / flushed | met |\n|---|---|---|---|---|\n"
PEER = ("| against the Triton peer (qalg µs / peer µs, its fastest q) | alternating, warm | alternating, flushed "
        "| each alone | qalg faster? |\n|---|---|---|---|---|\n")
HELD = "| warm ratio, held (stated, not counted) | paper | qalg warm | qalg warm held | held ≥ paper |\n|---|---|---|---|---|\n"


def run(*paths):
    out = subprocess.run([sys.executable, str(SCRIPT)] + [str(p) for p in paths], capture_output=True, text=True,
                         check=False)
    return out.returncode, out.stdout, out.stderr


def targets_md(path, rows, peer_rows=(), met="met: 1 of 3"):
    text = "Prose | with a bar, not a table.\n\n" + TARGETS + "".join(rows) + "\n"
    if peer_rows:
        text += PEER + "".join(peer_rows) + "\n"
    text += HELD + "| 1: Qwen3-8B M = 2048 | 5.04 | 5.52 | 5.31 | yes |\n\ncard: NVIDIA H200\n\n" + met + "\n"
    path.write_text(text)
    return path


def lines_with(out, word):
    return [l for l in out.splitlines() if word in l]


def test_rows_pair_up_across_moved_times_and_changes_come_first(tmp_path):
    old = targets_md(tmp_path / "old.md", [
        "| 1 | Qwen3-8B M = 2048 (q = 32, 53.8 µs) | 5.04 / 4.52 | 5.52 / 4.88 | warm yes, flushed yes |\n",
        "| 1 | Qwen3-30B-A3B-expert M = 2048 (q = 16, 9.0 µs) | 1.57 / 1.30 | 1.53 / 1.28 | warm **no**, flushed **no** |\n",
        "| 2 | Qwen3-1.7B M = 2048 | floor fraction ≥ 0.77 | 0.68 (at most 0.83: floor 14.7 µs) | **no** |\n"],
        ["| DeepSeek-V3-expert M = 2048 | 24.8 / 23.4 | 28.6 / 27.2 | 24.6 / 25.0 | **no** |\n"], "met: 1 of 4")
    new = targets_md(tmp_path / "new.md", [
        "| 1 | Qwen3-8B M = 2048 (q = 32, 55.1 µs) | 5.04 / 4.52 | 5.40 / 4.80 | warm yes, flushed yes |\n",
        "| 1 | Qwen3-30B-A3B-expert M = 2048 (q = 16, 8.6 µs) | 1.57 / 1.30 | 1.58 / 1.31 | warm yes, flushed yes |\n",
        "| 2 | Qwen3-1.7B M = 2048 | floor fraction ≥ 0.77 | 0.69 (at most 0.82: floor 14.7 µs) | **no** |\n"],
        ["| DeepSeek-V3-expert M = 2048 | 24.1 / 23.4 | 27.0 / 27.2 | 24.6 / 25.0 | yes |\n"], "met: 4 of 4")
    rc, out, err = run(old, new)
    assert rc == 0, err
    body = [l for l in out.splitlines() if l.startswith("| ") and not l.startswith("| row")]
    assert len(body) == 4  # three target rows and one peer row; the held table is not read
    changed = [l for l in body if l.endswith("| **yes** |")]
    assert body[:2] == changed  # the two changed rows first
    assert "1: Qwen3-30B-A3B-expert M = 2048 | 1.53 / 1.28 | 1.58 / 1.31" in changed[0]
    assert "peer: DeepSeek-V3-expert M = 2048 | 24.8 / 23.4 · 28.6 / 27.2 · 24.6 / 25.0" in changed[1]
    same = lines_with(out, "Qwen3-8B M = 2048")
    assert len(same) == 1 and same[0].endswith("|  |")  # times moved, verdict did not: one row, unmarked
    assert "| 2: Qwen3-1.7B M = 2048 | 0.68 | 0.69 |" in out  # target 2's bound dropped from the cell
    assert out.strip().endswith("met: old 1 of 4, new 4 of 4; verdicts changed: 2")


def test_rows_in_one_file_only(tmp_path):
    old = targets_md(tmp_path / "old.md", ["| 1 | Qwen3-4B M = 2048 (q = 32, 41.3 µs) | 3.14 / 2.94 | 3.35 / 3.25 | warm yes, flushed yes |\n"])
    new = targets_md(tmp_path / "new.md", ["| 1 | Qwen3-1.7B M = 2048 (q = 32, 21.7 µs) | 3.04 / 2.84 | 3.23 / 2.92 | warm yes, flushed yes |\n"],
                     met="")
    rc, out, err = run(old, new)
    assert rc == 0, err
    assert "not in the new file" in lines_with(out, "Qwen3-4B")[0] and lines_with(out, "Qwen3-4B")[0].endswith("only one file |")
    assert "not in the old file" in lines_with(out, "Qwen3-1.7B")[0]
    assert "new no count; verdicts changed: 0" in out


def test_refusals_name_the_file(tmp_path):
    good = targets_md(tmp_path / "good.md", ["| 1 | Qwen3-4B M = 2048 | 3.14 / 2.94 | 3.35 / 3.25 | warm yes, flushed yes |\n"])
    prose = tmp_path / "prose.md"
    prose.write_text("no tables here\n")
    short = tmp_path / "short.md"
    short.write_text(TARGETS + "| 1 | Qwen3-4B M = 2048 | 3.35 / 3.25 |\n")
    twice = tmp_path / "twice.md"
    row = "| 1 | Qwen3-4B M = 2048 (q = 32, {} µs) | 3.14 / 2.94 | 3.35 / 3.25 | warm yes, flushed yes |\n"
    twice.write_text(TARGETS + row.format(41.3) + row.format(42.0))
    binary = tmp_path / "binary.md"
    binary.write_bytes(b"\xff\xfe\x00")
    for bad, words in [(prose, "neither the targets table"), (short, "without 5 cells"), (twice, "twice"),
                       (tmp_path / "missing.md", "cannot read"), (binary, "cannot read")]:
        for args in [(good, bad), (bad, good)]:
            rc, out, err = run(*args)
            assert rc == 2 and bad.name in err and words in err and out == "", (bad, err)
    rc, _, err = run(good)
    assert rc == 2 and "usage" in err
