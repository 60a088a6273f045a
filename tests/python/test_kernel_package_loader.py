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


def export(tmp_path, spec, *args):
    out = tmp_path / spec.replace(":", "_")
    subprocess.run([os.environ["QALG_BINARY"], "export", spec, *args, "--out", str(out)],
                   check=True, capture_output=True)
    return out


@pytest.mark.parametrize("spec,args", [
    ("complete:2", ["--widths", "8"]),
    ("complete:3", ["--widths", "8"]),
    ("cycle:4", ["--widths", "8"]),
    ("complete:2", ["--power", "2", "--widths", "3,5,2,4", "--output-widths", "4,2,3,5"]),
])
def test_type_coefficients_from_the_table_are_the_plans_terms(qalg_torch, tmp_path, spec, args):
    # The dense reference of the device tests (reference_matmul) is built from table.json; the
    # kernels run plan.json. Each C[i][k][j] from the table's products must be the plan's
    # coefficient of x_k in y_j for type i (0 where B(i, j) has no k). (The forty-third session
    # found type_operators calling _fraction without its second argument: every device test that
    # compared with the reference raised TypeError, and no test here reached it.)
    pkg = qalg_torch.KernelPackage(str(export(tmp_path, spec, *args)))
    C = qalg_torch.type_coefficients(pkg)
    want = [[[0.0] * pkg.q for _ in range(pkg.q)] for _ in range(pkg.q)]
    for i in range(pkg.q):
        for j, b in pkg.terms[i]:
            for k, c in b:
                want[i][k][j] += c
    assert C == want
    assert any(c != 0 for plane in C for row in plane for c in row)


def test_a_table_coefficient_that_is_not_a_fraction_names_its_entry(qalg_torch, package, tmp_path):
    d = tmp_path / "copy"
    shutil.copytree(package, d)
    table = json.loads((d / "table.json").read_text())
    table["entries"][1][3] = "1/0"
    (d / "table.json").write_text(json.dumps(table))
    pkg = qalg_torch.KernelPackage(str(d))  # the loader checks plan.json only; the table is read when used
    with pytest.raises(ValueError, match=r"table\.json: entries\[1\]: coefficient '1/0'"):
        qalg_torch.type_coefficients(pkg)
