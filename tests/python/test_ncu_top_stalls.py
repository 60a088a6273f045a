"""scripts/ncu_top_stalls.py: the instructions of a kernel with the most stall samples, from Nsight
Compute's source page as CSV. Laws: instructions are ranked by their samples, each shown with its
share of the total and its largest stall reasons; reasons are summed over the kernel; a file
without a source table, or without a sample column, is refused with exit code 2."""
import subprocess
import sys

from conftest import ROOT

SCRIPT = ROOT / "scripts" / "ncu_top_stalls.py"
COLS = ["Address", "Source", "Warp Stall Sampling (All Samples)", "stall_long_sb", "stall_wait", "Instructions Executed"]


def run(path, *extra):
    out = subprocess.run([sys.executable, str(SCRIPT), str(path), *extra], capture_output=True, text=True, check=False)
    return out.returncode, out.stdout, out.stderr


def write(path, rows, cols=COLS, preamble='"Kernel Name","k"\n'):
    lines = [preamble.rstrip("\n")] if preamble else []
    lines.append(",".join(f'"{c}"' for c in cols))
    lines += [",".join(f'"{v}"' for v in r) for r in rows]
    path.write_text("\n".join(lines) + "\n")


def test_ranks_by_samples_with_shares_and_reasons(tmp_path):
    f = tmp_path / "src.csv"
    write(f, [["0x10", "LDS R1, [R2]", "10", "2", "8", "100"],
              ["0x20", "@!P0 BRA 0x10", "70", "65", "5", "100"],
              ["0x30", "HGMMA.64x128x16", "20", "0", "20", "50"]])
    rc, out, err = run(f, "2")
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("3 instructions, 100 samples")
    # reasons summed over the kernel, largest first: long_sb 67, wait 33
    assert "stall_long_sb" in lines[1] and " 67 " in lines[1] and "67.0 %" in lines[1]
    assert "stall_wait" in lines[2] and "33.0 %" in lines[2]
    ranked = [l for l in lines if l.strip().startswith("0x")]
    assert len(ranked) == 2  # TOP = 2
    assert ranked[0].split()[0] == "0x20" and "70.0 %" in ranked[0] and "long_sb 65" in ranked[0]
    assert ranked[1].split()[0] == "0x30" and "wait 20" in ranked[1]


def test_refuses_files_without_a_source_table_or_samples(tmp_path):
    f = tmp_path / "none.csv"
    f.write_text("==PROF== nothing profiled\n")
    rc, _, err = run(f)
    assert rc == 2 and "no CSV header" in err
    g = tmp_path / "nosamples.csv"
    write(g, [["0x10", "NOP", "5"]], cols=["Address", "Source", "Instructions Executed"])
    rc, _, err = run(g)
    assert rc == 2 and "no stall-sample column" in err
    h = tmp_path / "empty.csv"
    write(h, [])
    rc, _, err = run(h)
    assert rc == 2 and "no instructions" in err
