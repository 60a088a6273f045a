"""scripts/peer_protocols.py refuses bad input before it needs a GPU (exit 2, the problem named): no
arguments, a peer file that cannot be read, one that is not Python, one without the Triton peer's
qproj / bench / reference, and a shape that is not one of table1's. The timing itself needs torch,
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
