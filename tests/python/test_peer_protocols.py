"""scripts/peer_protocols.py refuses bad input before it needs a GPU (exit 2, the problem named): no
arguments, a peer file that cannot be read, one that is not Python, one without the Triton peer's
qproj / bench / reference, a shape that is not one of table1's, and (--profile, thirty-sixth session)
a setting that is not table1's, none or several shapes, or --residue beside it; (--squares, thirty-
seventh session) a shape, --residue or --profile beside it. The timing itself needs torch,
Triton and a GPU (results/gpu/README.md, thirty-fourth session)."""
import subprocess
import sys

from conftest import ROOT

SCRIPT = ROOT / "scripts" / "peer_protocols.py"


def run(*args):
    out = subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True, check=False)
    return out.returncode, out.stderr


def test_refusals(tmp_path):
    rc, err = run()
    assert rc == 2 and "usage: peer_protocols.py PEER_PY" in err
    rc, err = run("--residue")  # the flag alone is not a peer file
    assert rc == 2 and "usage" in err
    rc, err = run(tmp_path / "missing.py")
    assert rc == 2 and "cannot read the peer" in err
    bad = tmp_path / "bad.py"
    bad.write_text("def qproj(:\n")
    rc, err = run(bad)
    assert rc == 2 and "is not Python" in err
    partial = tmp_path / "partial.py"
    partial.write_text("def qproj(X, W, q, cyc):\n    pass\n\ndef bench(fn):\n    pass\n")
    rc, err = run(partial)
    assert rc == 2 and "defines no reference: not the Triton peer" in err
    peer = ROOT.parent / "shared" / "peers" / "triton_qproj.py"
    rc, err = run(peer if peer.exists() else partial, "--residue", "Qwen3-9B")
    assert rc == 2 and "unknown shape(s) ['Qwen3-9B']" in err


def test_profile_refusals(tmp_path):
    peer = ROOT.parent / "shared" / "peers" / "triton_qproj.py"
    if not peer.exists():  # a peer-shaped file: the refusals come before anything runs it
        peer = tmp_path / "peer.py"
        peer.write_text("def qproj(X, W, q, cyc):\n    pass\n\ndef bench(fn):\n    pass\n\ndef reference(X, W, q, cyc):\n    pass\n")
    for bad in ("q64-int", "q16", "q16-interleaved", "Q16-INT"):
        rc, err = run(peer, "--profile", bad, "DeepSeek-V3 expert")
        assert rc == 2 and f"--profile must be q16-int, q16-cyc, q32-int or q32-cyc (table1's settings), got '{bad}'" in err, err
    rc, err = run(peer, "DeepSeek-V3 expert", "--profile")
    assert rc == 2 and "got ''" in err, err
    rc, err = run(peer, "--profile", "q16-int")
    assert rc == 2 and "--profile takes exactly one SHAPE and no --residue" in err, err
    rc, err = run(peer, "--profile", "q16-int", "Qwen3-8B", "Qwen3-4B")
    assert rc == 2 and "--profile takes exactly one SHAPE" in err, err
    rc, err = run(peer, "--residue", "--profile", "q16-int", "Qwen3-8B")
    assert rc == 2 and "no --residue" in err, err
    rc, err = run(peer, "--profile", "q16-int", "Qwen3-9B")
    assert rc == 2 and "unknown shape(s) ['Qwen3-9B']" in err, err
    # table1 has no q = 32 setting for the 30B expert (F / q = 24): refused before torch is imported
    rc, err = run(peer, "--profile", "q32-int", "Qwen3-30B-A3B expert")
    assert rc == 2 and "--profile q32: Qwen3-30B-A3B expert (D = 2048, F = 768) has no such setting" in err, err


def test_squares_refusals(tmp_path):
    peer = tmp_path / "peer.py"  # a peer-shaped file: the refusals come before anything runs it
    peer.write_text("def qproj(X, W, q, cyc):\n    pass\n\ndef bench(fn):\n    pass\n\ndef reference(X, W, q, cyc):\n    pass\n")
    for extra in (["Qwen3-8B"], ["--residue"], ["--profile", "q16-int", "Qwen3-8B"]):
        rc, err = run(peer, "--squares", *extra)
        assert rc == 2 and "--squares takes no SHAPE, --residue or --profile" in err, (extra, err)
    rc, err = run("--squares")
    assert rc == 2 and "usage: peer_protocols.py PEER_PY [--residue | --squares" in err, err
