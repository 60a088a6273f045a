"""pytest setup for the PyTorch op tests: the exported packages to test come from
QALG_EXPORT_DIRS (colon-separated); their torch/ folders hold the qalg_torch module."""
import os

import pytest


def pytest_generate_tests(metafunc):
    if "package_dir" in metafunc.fixturenames:
        dirs = [d for d in os.environ.get("QALG_EXPORT_DIRS", "").split(":") if d]
        metafunc.parametrize("package_dir", dirs or [pytest.param(None, marks=pytest.mark.skip(
            reason="set QALG_EXPORT_DIRS to exported package directories"))], scope="module")
