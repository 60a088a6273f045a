"""scripts/stamps_summary.py: the stamps rows of device_stamps.sh (a side first) and of the bench's own
file (none) become one markdown row each, the start's stamps in the kernel's order (entry, barriers,
producer start, dep-wait, item, steps, stage, issued, landed, done, stored), a slot a row lacks (the
first build's 8-slot rows) shown "—"; other rows are skipped; bad input exits 2 with the problem named."""
import subprocess
import sys

from conftest import ROOT

SCRIPT = ROOT / "scripts" / "stamps_summary.py"


def run(*paths):
    r = subprocess.run([sys.executable, str(SCRIPT), *map(str, paths)], capture_output=True, text=True, check=False)
    return r.returncode, r.stdout, r.stderr


def stamps_row(side, slots):
    # slot s's median is s + 0.5, its latest s + 0.75
    vals = []
    for s in range(slots):
        vals += [f"{s + 0.5}", f"{s + 0.75}"]
    head = [side] if side is not None else []
    return ",".join(head + ["stamps", "alone", "DeepSeek-V3-expert", "2048", "7168", "2048", "16",
                            "fused-ws128x128", "26.25"] + vals)


def test_rows_in_the_kernels_order(tmp_path):
    f = tmp_path / "s.csv"
    f.write_text("\n".join(["base,suite,kind,shape", "base,ceiling,copy_bandwidth_TBps,NVIDIA H200",
                            stamps_row("base", 16), stamps_row(None, 16), stamps_row("old", 8)]) + "\n")
    rc, out, err = run(f)
    assert rc == 0, err
    lines = [l for l in out.splitlines() if l.startswith("| DeepSeek")]
    assert len(lines) == 3
    # entry 0, barriers 10, prod-start 11, dep-wait 1, item 2, steps 8, stage 9, issued 3, landed 4, done 5, stored 6
    assert lines[0] == ("| DeepSeek-V3-expert ws128x128 | base | alone | 26.2 | 0.50 | 10.50 | 11.50 | 1.50 | 2.50 | "
                        "8.50 | 9.50 | 3.50 | 4.50 | 5.50 | 6.50 |")
    assert lines[1].startswith("| DeepSeek-V3-expert ws128x128 | — | alone |")
    assert lines[2] == ("| DeepSeek-V3-expert ws128x128 | old | alone | 26.2 | 0.50 | — | — | 1.50 | 2.50 | — | — | "
                        "3.50 | 4.50 | 5.50 | 6.50 |")


def test_refusals(tmp_path):
    rc, _, err = run()
    assert rc == 2 and "usage: stamps_summary.py" in err
    rc, _, err = run(tmp_path / "missing.csv")
    assert rc == 2 and "cannot read" in err
    empty = tmp_path / "empty.csv"
    empty.write_text("base,suite,kind\n")
    rc, _, err = run(empty)
    assert rc == 2 and "no stamps rows" in err
    short = tmp_path / "short.csv"
    short.write_text(stamps_row("base", 16).rsplit(",", 1)[0] + "\n")
    rc, _, err = run(short)
    assert rc == 2 and "short.csv:1: a stamps row of 41 fields" in err
    nan = tmp_path / "nan.csv"
    nan.write_text(stamps_row("base", 16).replace("26.25", "fast") + "\n")
    rc, _, err = run(nan)
    assert rc == 2 and "nan.csv:1:" in err and "fast" in err
