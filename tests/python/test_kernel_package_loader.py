"""An exported package's PyTorch loader (torch/qalg_torch.py) checks plan.json before anything is
built: an edited plan, a coefficient that is not a fraction and a type past q are ValueErrors naming
plan.json and the term (thirty-eighth session's audit: they loaded silently, or raised a bare
ZeroDivisionError / IndexError). torch is not installed here: a stand-in module lets the loader be
imported; KernelPackage reads only JSON until its extension is asked for."""
import importlib
import json
import os
import shutil
import subprocess
import sys
import unittest.mock

import pytest


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    out = tmp_path_factory.mktemp("pkg") / "q2"
    subprocess.run([os.environ["QALG_BINARY"], "export", "complete:2", "--widths", "8", "--out", str(out)],
                   check=True, capture_output=True)
    return out


@pytest.fixture
def qalg_torch(package, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", unittest.mock.MagicMock())
    monkeypatch.syspath_prepend(str(package / "torch"))
    sys.modules.pop("qalg_torch", None)
    module = importlib.import_module("qalg_torch")
    yield module
    sys.modules.pop("qalg_torch", None)


def edited_copy(package, tmp_path, edit, keep_certificate=True):
    d = tmp_path / "copy"
    shutil.copytree(package, d)
    plan = json.loads((d / "plan.json").read_text())
    edit(plan)
    (d / "plan.json").write_text(json.dumps(plan))
    if not keep_certificate:
        (d / "certificate.json").unlink()
    return d


def test_the_exported_package_loads(qalg_torch, package):
    pkg = qalg_torch.KernelPackage(str(package))
    assert pkg.q == 2 and pkg.K == 16 and pkg.N == 16


def set_coefficient(value):
    def edit(plan):
        plan["terms"][0][2][0][1] = value
    return edit


def set_type(value):
    def edit(plan):
        plan["terms"][0][0] = value
    return edit


@pytest.mark.parametrize("edit,keep_certificate,message", [
    (set_coefficient("2"), True, "plan_sha256"),    # a plan the certificate does not name
    (set_coefficient("1/0"), False, r"terms\[0\]: coefficient '1/0'"),
    (set_coefficient("x"), False, r"terms\[0\]: coefficient 'x'"),
    (set_type(9), False, r"terms\[0\]: 9 is not a type or group in 0..1"),
    (set_type(True), False, r"terms\[0\]: True is not a type"),
])
def test_a_bad_plan_is_a_value_error_naming_the_term(qalg_torch, package, tmp_path, edit, keep_certificate, message):
    d = edited_copy(package, tmp_path, edit, keep_certificate)
    with pytest.raises(ValueError, match=message) as e:
        qalg_torch.KernelPackage(str(d))
    assert "plan.json" in str(e.value)
