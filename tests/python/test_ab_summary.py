"""scripts/ab_summary.py: the device script's same-call A/B of builds and settings. Laws: per row and
side, the ratio is that side's fastest round over the reference's fastest; flushed times get their
own section only where the rows carry them; the side written out is the one with the smallest
geometric mean of its warm times; rows the A/B does not compare are left out; a CSV without a
reference side, without a HEAD side or without any compared row is refused with exit code 2."""
import math
import subprocess
import sys

from conftest import ROOT

SCRIPT = ROOT / "scripts" / "ab_summary.py"
COLS = ["suite", "kind", "shape", "M", "variant", "alg_warm_us", "alg_flush_us"]


def write(path, rows):
    path.write_text("\n".join([",".join(COLS)] + [",".join(str(v) for v in r) for r in rows]) + "\n")


def run(path, tmp_path):
    best = tmp_path / "best"
    out = subprocess.run([sys.executable, str(SCRIPT), str(path), str(best)], capture_output=True, text=True,
                         check=False)
    return out.returncode, out.stdout, out.stderr, best.read_text() if best.exists() else None


def line(out, *words):
    hits = [l for l in out.splitlines() if all(w in l for w in words)]
    assert len(hits) >= 1, (words, out)
    return hits


def test_ratios_are_fastest_rounds_and_the_best_side_has_the_smallest_geomean(tmp_path):
    f = tmp_path / "ab.csv"
    # two rows, reference and two HEAD sides, two rounds each
    rows = []
    for rnd, (r1, a1, b1, r2, a2, b2) in enumerate([(10, 12, 9, 20, 18, 23), (11, 11, 8, 19, 21, 22)], 1):
        rows += [[f"ablate@ref{rnd}", "", "X", 2048, "fused-a", r1, ""],
                 [f"ablate@on{rnd}", "", "X", 2048, "fused-a", a1, ""],
                 [f"ablate@off{rnd}", "", "X", 2048, "fused-a", b1, ""],
                 [f"ablate@ref{rnd}", "", "Y", 2048, "fused-a", r2, ""],
                 [f"ablate@on{rnd}", "", "Y", 2048, "fused-a", a2, ""],
                 [f"ablate@off{rnd}", "", "Y", 2048, "fused-a", b2, ""]]
    write(f, rows)
    rc, out, err, best = run(f, tmp_path)
    assert rc == 0, err
    x = line(out, "X ", "fused-a")[0].split()
    y = line(out, "Y ", "fused-a")[0].split()
    # X: ref best 10, on best 11, off best 8; Y: ref 19, on 18, off 22
    assert float(x[-2]) == round(11 / 10, 3) and float(x[-1]) == round(8 / 10, 3)
    assert float(y[-2]) == round(18 / 19, 3) and float(y[-1]) == round(22 / 19, 3)
    geo_on, geo_off = math.sqrt(11 * 18), math.sqrt(8 * 22)
    assert best == ("on" if geo_on < geo_off else "off")
    assert "flushed" not in out  # no flushed times in these rows


def test_flushed_section_and_row_kinds(tmp_path):
    f = tmp_path / "ab.csv"
    write(f, [["table@ref1", "projection", "Qwen3-4B", 2048, "fused-wsl64x128", 43.0, 44.6],
              ["table@head1", "projection", "Qwen3-4B", 2048, "fused-wsl64x128", 43.4, 47.1],
              ["table@ref1", "ffn", "Qwen3-4B", 2048, "fused", 130.0, 131.0],
              ["table@head1", "ffn", "Qwen3-4B", 2048, "fused", 130.0, 133.0],
              ["table@ref1", "ffn", "Qwen3-4B", 1, "decode", 9.0, 9.5],          # M = 1 FFN: the decode row
              ["table@head1", "ffn", "Qwen3-4B", 1, "decode", 8.1, 9.6],
              ["table@head1", "training", "Qwen3-4B/up", 2048, "x", 100.0, 101.0],  # training: not compared
              ["ceiling", "", "H200", "", "", 3.99, ""]])                          # no side: not compared
    rc, out, err, best = run(f, tmp_path)
    assert rc == 0, err
    assert best == "head"
    warm, flushed = out.split("ab flushed")
    assert float(line(warm, "Qwen3-4B", "M=2048")[0].split()[-1]) == round(43.4 / 43.0, 3)
    assert float(line(flushed, "Qwen3-4B", "M=2048")[0].split()[-1]) == round(47.1 / 44.6, 3)
    assert float(line(flushed, "Qwen3-4B", "ffn ")[0].split()[-1]) == round(133.0 / 131.0, 3)
    assert float(line(warm, "Qwen3-4B", "ffn-decode")[0].split()[-1]) == round(8.1 / 9.0, 3)
    assert float(line(flushed, "Qwen3-4B", "ffn-decode")[0].split()[-1]) == round(9.6 / 9.5, 3)
    assert "Qwen3-4B/up" not in out and "H200" not in out


def test_refusals(tmp_path):
    f = tmp_path / "ab.csv"
    write(f, [["ablate@head1", "", "X", 2048, "fused-a", 10, ""]])
    rc, _, err, best = run(f, tmp_path)
    assert rc == 2 and "no reference side" in err and best is None
    write(f, [["ablate@ref1", "", "X", 2048, "fused-a", 10, ""]])
    rc, _, err, best = run(f, tmp_path)
    assert rc == 2 and "no HEAD side" in err and best is None
    write(f, [["table@ref1", "training", "X", 2048, "x", 10, ""]])
    rc, _, err, best = run(f, tmp_path)
    assert rc == 2 and "no ablate" in err and best is None
    rc, _, err, best = run(tmp_path / "missing.csv", tmp_path)
    assert rc == 2 and "cannot read" in err and best is None
