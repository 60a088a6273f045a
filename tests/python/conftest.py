"""Shared fixtures for the qalg Python module tests (run by ctest with PYTHONPATH=<build>/python)."""
import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(os.environ.get("QALG_ROOT", pathlib.Path(__file__).resolve().parents[2]))


@pytest.fixture(scope="session")
def qalg_cli():
    """Runs the qalg command with --json and returns the parsed output (exit code must be 0)."""
    binary = os.environ.get("QALG_BINARY", str(ROOT / "build" / "qalg"))
    if not pathlib.Path(binary).is_file():
        pytest.fail(f"qalg command not found at {binary} (set QALG_BINARY)")

    def run(*args):
        out = subprocess.run([binary, *args], capture_output=True, text=True, check=False)
        assert out.returncode == 0, f"qalg {' '.join(args)} exited {out.returncode}: {out.stderr}"
        return json.loads(out.stdout)

    return run


def complete_graph_edges(q):
    """The arrows of the complete graph on q vertices, in the order of the qalg family complete:q."""
    return [(i, j) for i in range(q) for j in range(q) if i != j]
