"""scripts/ncu_pm_timeline.py: one kernel's PM-sampling timeline from Nsight Compute's raw page.
Laws: the window printed is the samples with SMs active and one on each side, numbered from 0, with
each counter's value at that sample in its column; samples outside it (the profiler's own traffic)
are not printed; a missing, empty or non-gzip file, a kernel row that is not a number or not there,
a sample that is not a number, a file without PM-sampling columns or one where no sample has the
kernel running is refused with exit code 2 and a message naming what is wrong. Also run on the thirty-
third session's committed report of DeepSeek-V3's ws128x128 (H100)."""
import gzip
import subprocess
import sys

from conftest import ROOT

SCRIPT = ROOT / "scripts" / "ncu_pm_timeline.py"
PREFIX = "TriageCompute."
NAMES = ["dramc__read_throughput.avg.pct_of_peak_sustained_elapsed",
         "dramc__write_throughput.avg.pct_of_peak_sustained_elapsed",
         "lts__throughput.avg.pct_of_peak_sustained_elapsed",
         "sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed",
         "sm__cycles_active.avg"]


def run(path, *extra):
    out = subprocess.run([sys.executable, str(SCRIPT), str(path), *extra], capture_output=True, text=True, check=False)
    return out.returncode, out.stdout, out.stderr


def write(path, columns):
    """A raw page: names, units, one kernel row whose cells are "total (v0; v1; ...)"."""
    names = ["ID", "Kernel Name"] + [f"X.{PREFIX}{n}" for n in columns]
    cells = ["0", "k"] + ['"{} ({})"'.format(1, "; ".join(f"{v:,}" for v in vs)) for vs in columns.values()]
    path.write_text(",".join(f'"{n}"' for n in names) + "\n" + ",".join('""' for _ in names) + "\n" + ",".join(cells) + "\n")


def test_prints_the_samples_with_sms_active_and_one_each_side(tmp_path):
    sm = [0, 0, 0, 500, 2400, 2400, 0, 0]
    dram = [0, 0, 0, 1, 80, 95, 0, 0]
    l2 = [9, 9, 0, 2, 60, 70, 5, 9]  # the profiler's flushes before and after: not the kernel
    f = tmp_path / "raw.csv"
    write(f, {NAMES[0]: dram, NAMES[2]: l2, NAMES[4]: sm})
    rc, out, err = run(f)
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["sample", "dram", "rd", "%", "L2", "%", "SM", "cycles"]
    rows = [l.split() for l in lines[1:]]
    assert [int(r[0]) for r in rows] == [0, 1, 2, 3, 4]  # samples 2 … 6
    assert [float(r[1]) for r in rows] == [float(v) for v in dram[2:7]]
    assert [float(r[2]) for r in rows] == [float(v) for v in l2[2:7]]
    assert [float(r[3]) for r in rows] == [float(v) for v in sm[2:7]]


def test_reads_gzip(tmp_path):
    f = tmp_path / "raw.csv"
    write(f, {NAMES[0]: [0, 50, 0], NAMES[4]: [0, 100, 0]})
    g = tmp_path / "raw.csv.gz"
    g.write_bytes(gzip.compress(f.read_bytes()))
    rc, out, err = run(g)
    assert rc == 0, err
    assert [l.split()[1] for l in out.splitlines()[1:]] == ["0.0", "50.0", "0.0"]


def test_refuses_what_it_cannot_read(tmp_path):
    rc, _, err = run(tmp_path / "missing.csv.gz")
    assert rc == 2 and "cannot read" in err
    f = tmp_path / "raw.csv"
    write(f, {NAMES[0]: [0, 50, 0], NAMES[4]: [0, 100, 0]})
    rc, _, err = run(f, "1")
    assert rc == 2 and "1 kernel row(s), asked for row 1" in err
    g = tmp_path / "nopm.csv"
    write(g, {"gpu__time_duration.sum": [1, 2]})
    rc, _, err = run(g)
    assert rc == 2 and "no PM-sampling columns" in err
    e = tmp_path / "empty.csv"
    e.write_text("")
    rc, _, err = run(e)
    assert rc == 2 and "is empty" in err
    rc, _, err = run(f, "first")
    assert rc == 2 and "KERNEL_ROW must be a row number" in err
    b = tmp_path / "bad.csv"
    write(b, {NAMES[0]: [0, 50, 0], NAMES[4]: [0, 100, 0]})
    b.write_text(b.read_text().replace("50", "n/a"))
    rc, _, err = run(b)
    assert rc == 2 and "not a number" in err and "dramc__read_throughput" in err
    z = tmp_path / "notgzip.csv.gz"
    z.write_text("plain text")
    rc, _, err = run(z)
    assert rc == 2 and "cannot read" in err
    h = tmp_path / "idle.csv"
    write(h, {NAMES[0]: [0, 0, 0], NAMES[4]: [0, 0, 0]})
    rc, _, err = run(h)
    assert rc == 2 and "no sample with the kernel running" in err


def test_the_committed_deepseek_report_spans_its_duration():
    report = ROOT / "results" / "gpu" / "history" / "session33" / "call4" / "ds128_raw.csv.gz"
    rc, out, err = run(report)
    assert rc == 0, err
    rows = [l.split() for l in out.splitlines()[1:]]
    # ~1.5 us per sample over a 30.2 us kernel (ds128_details.txt): about 20 samples with SMs active
    active = [r for r in rows if float(r[5]) > 0]
    assert 18 <= len(active) <= 22
    # DRAM reads: below 5 % at the start (the copies not yet begun) and the end, above 50 % between
    assert float(active[0][1]) < 5 and float(active[-1][1]) < 5
    assert max(float(r[1]) for r in active) > 50
