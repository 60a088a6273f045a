"""bench/gpu/calibration_from_bench.py: the per-shape forward calibration written from benchmark CSVs
(issue 7). Laws: each shape takes its fastest row over all runs; a "-types" variant writes the
type-outer item order, any other "columns"; a training row's forward tile only where no projection
timed the shape; an unknown variant is refused."""
import csv
import io
import subprocess
import sys

from conftest import ROOT

SCRIPT = ROOT / "bench" / "gpu" / "calibration_from_bench.py"
HEADER = ["suite", "kind", "shape", "M", "D", "F", "q", "variant", "alg_warm_us"]


def write_run(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(HEADER)
        for r in rows:
            w.writerow(r)


def calibrate(*paths):
    out = subprocess.run([sys.executable, str(SCRIPT), *map(str, paths)], capture_output=True, text=True, check=False)
    return out.returncode, out.stdout, out.stderr


def rows_of(stdout):
    return {(r["K"], r["N"], r["q"], r["M"]): r for r in csv.DictReader(io.StringIO(stdout))}


def test_fastest_row_over_runs_and_item_order(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    write_run(a, [
        ["table", "projection", "4B", 2048, 2560, 9728, 32, "fused-wsl64x128", 43.0],
        ["table", "projection", "DS", 2048, 7168, 2048, 16, "fused-ws64x128-types", 25.5],
        ["table", "square", "n", 8192, 8192, 8192, 64, "fused-wsl64x128-types", 116.3],
        ["table", "projection", "x", 2048, 1024, 1024, 16, "diagonal-first", 9.0],
    ])
    write_run(b, [
        ["table", "projection", "4B", 2048, 2560, 9728, 32, "fused-wsl64x128-types", 42.7],  # faster: wins
        ["table", "projection", "DS", 2048, 7168, 2048, 16, "fused-wr64x128", 25.9],         # slower: loses
        ["table", "training", "4B/down", 2048, 9728, 2560, 32, "wr64x128-types+dX-cb+dW-cb+2s", 119.6],
        ["table", "training", "4B/up", 2048, 2560, 9728, 32, "ws64x64+dX-cb+dW-cb+2s", 1.0],  # projection timed it
    ])
    rc, out, err = calibrate(a, b)
    assert rc == 0, err
    assert out.splitlines()[0] == "K,N,q,M,schedule,bm,bn,warps,engine,order"
    rows = rows_of(out)
    four_b = rows[("2560", "9728", "32", "2048")]
    assert (four_b["bn"], four_b["engine"], four_b["order"]) == ("128", "wgmma_ws_lean", "types")
    ds = rows[("7168", "2048", "16", "2048")]
    assert (ds["engine"], ds["order"], ds["warps"]) == ("wgmma_ws", "types", "5")
    assert rows[("8192", "8192", "64", "8192")]["order"] == "types"
    down = rows[("9728", "2560", "32", "2048")]
    assert (down["engine"], down["order"]) == ("wgmma_ws_resident", "types")
    assert rows[("1024", "1024", "16", "2048")]["schedule"] == "diagonal-first"
    # the same runs in the other order pick the same rows
    assert rows_of(calibrate(b, a)[1]) == rows


def test_columns_order_for_plain_variants_and_unknown_refused(tmp_path):
    a = tmp_path / "a.csv"
    write_run(a, [["table", "projection", "8B", 2048, 4096, 12288, 32, "fused-wsp64x128", 51.0]])
    rc, out, err = calibrate(a)
    assert rc == 0, err
    row = rows_of(out)[("4096", "12288", "32", "2048")]
    assert (row["engine"], row["warps"], row["order"]) == ("wgmma_ws_pair", "5", "columns")
    # the group-pair tile (the Qwen3-30B expert's candidate): two consumer warpgroups and the producer
    write_run(a, [["table", "projection", "30B", 2048, 2048, 768, 16, "fused-wsg128x128", 8.9]])
    rc, out, err = calibrate(a)
    assert rc == 0, err
    row = rows_of(out)[("2048", "768", "16", "2048")]
    assert (row["bm"], row["bn"], row["engine"], row["warps"], row["order"]) == (
        "128", "128", "wgmma_ws_group_pairs", "9", "columns")
    # the row-pair tile (Qwen3-8B's candidate at 64 rows per type)
    write_run(a, [["table", "projection", "8B", 2048, 4096, 12288, 32, "fused-wsm128x128", 49.0]])
    rc, out, err = calibrate(a)
    assert rc == 0, err
    row = rows_of(out)[("4096", "12288", "32", "2048")]
    assert (row["bm"], row["bn"], row["engine"], row["warps"], row["order"]) == (
        "128", "128", "wgmma_ws_row_pairs", "9", "columns")
    # (thirty-fifth session) the items last first: "-desc" after the order, "-descending" after the field's order
    for variant, order in (("fused-wsl64x128-types-desc", "types-descending"), ("fused-ws128x128-desc", "columns-descending")):
        write_run(a, [["table", "projection", "8B", 2048, 4096, 12288, 32, variant, 50.7]])
        rc, out, err = calibrate(a)
        assert rc == 0, err
        assert rows_of(out)[("4096", "12288", "32", "2048")]["order"] == order
    write_run(a, [["table", "projection", "8B", 2048, 4096, 12288, 32, "fused-ws64x128-desc-types", 51.0]])
    rc, out, err = calibrate(a)
    assert rc != 0 and "unknown variant fused-ws64x128-desc-types" in err
    write_run(a, [["table", "projection", "8B", 2048, 4096, 12288, 32, "fused-ws64x128-rows", 51.0]])
    rc, out, err = calibrate(a)
    assert rc != 0 and "unknown variant fused-ws64x128-rows" in err


def test_committed_calibration_has_an_order_on_every_row():
    lines = (ROOT / "results" / "gpu" / "calibration.csv").read_text().splitlines()
    assert lines[0] == "K,N,q,M,schedule,bm,bn,warps,engine,order"
    for line in lines[1:]:
        fields = line.split(",")
        assert len(fields) == 10, line
        assert fields[9] in ("columns", "types", "columns-descending", "types-descending"), line
