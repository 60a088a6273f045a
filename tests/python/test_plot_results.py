"""bench/gpu/plot_results.py: the peer's bar is its speedup over its own dense call in the same
protocol, dense_us over its fastest setting, taken from the alternating warm line where there is one
(scripts/peer_protocols.py), else from its own (alone) pass; lines at another M, squares and checks
give no bar. The whole plot is written from a table and peer files."""
import importlib.util
import json
import subprocess
import sys

from conftest import ROOT

SCRIPT = ROOT / "bench" / "gpu" / "plot_results.py"


def load():
    spec = importlib.util.spec_from_file_location("plot_results", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_peer_speedups_prefer_the_alternating_protocol():
    plot = load()
    lines = [
        {"check": "q=4", "rel_l2": 0.0016},
        {"shape": "DeepSeek-V3 expert", "M": 2048, "protocol": "alone", "dense_us": 78.0, "triton_q16_int_us": 26.0},
        {"shape": "DeepSeek-V3 expert", "M": 2048, "protocol": "alternating_warm", "dense_us": 80.0,
         "triton_q16_int_us": 25.0, "triton_q16_cyc_us": 20.0},
        {"shape": "DeepSeek-V3 expert", "M": 2048, "protocol": "alternating_flushed", "dense_us": 77.0,
         "triton_q16_int_us": 10.0},
        {"shape": "Qwen3-1.7B", "M": 2048, "dense_us": 74.0, "triton_q32_int_us": 37.0, "speedup_q32_int": 2.0},
        {"shape": "Qwen3-8B", "M": 512, "dense_us": 72.0, "triton_q16_us(M=512)": 46.0},
        {"square_n": 4096, "b": 128, "dense_us": 180.0, "triton_us": 38.0},
        {"shape": "Qwen3-1.7B", "M": 2048, "residue": "read-x", "dense_us": 74.0, "triton_q32_int_us": 1.0},
    ]
    got = plot.peer_speedups(lines)
    assert got == {"DeepSeek-V3-expert": 80.0 / 20.0, "Qwen3-1.7B": 2.0}
    # the order of the lines does not matter
    assert plot.peer_speedups(list(reversed(lines))) == got


def test_the_plot_is_written(tmp_path):
    cols = ["suite", "kind", "shape", "M", "speedup_warm", "alg_warm_us", "dense_warm_us"]
    rows = [["table", "projection", "DeepSeek-V3-expert", 2048, 3.0, 25.0, 75.0]]
    rows += [["table", "square", f"b=128 n={n}", n, 5.0, n * 1e-2, n * 5e-2] for n in (4096, 8192)]
    table = tmp_path / "t.csv"
    table.write_text("\n".join([",".join(cols)] + [",".join(str(v) for v in r) for r in rows]) + "\n")
    peer = tmp_path / "p.jsonl"
    peer.write_text(json.dumps({"shape": "DeepSeek-V3 expert", "M": 2048, "dense_us": 78.0, "triton_q16_int_us": 26.0})
                    + "\n" + json.dumps({"square_n": 4096, "b": 128, "triton_us": 38.0}) + "\n")
    out = tmp_path / "s.png"
    r = subprocess.run([sys.executable, str(SCRIPT), str(table), str(peer), str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
