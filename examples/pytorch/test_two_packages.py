"""Two exported packages in one Python process (a gated FFN's up and down projections are two
shapes, so two packages): QALG_FFN_PACKAGES="UP:DOWN", exported with `--name ffn_up` and
`--name ffn_down` (UP's N = DOWN's K). Run by scripts/export_check.sh. Each package's qalg_torch
module is imported under its own name and builds its own extension (named by package and plan);
y = down(up(x)) through both extensions must equal the chain of both packages' dense references
(`reference_matmul`, float64 from the same rounded inputs), forward and gradients."""
import importlib.util
import os

import pytest
import torch

PAIR = [d for d in os.environ.get("QALG_FFN_PACKAGES", "").split(":") if d]
pytestmark = [
    pytest.mark.skipif(len(PAIR) != 2, reason="set QALG_FFN_PACKAGES=UP:DOWN (two exported packages)"),
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]
TOL = {torch.bfloat16: 2e-2, torch.float32: 1e-5}  # bf16: two roundings of the hidden layer


def rel_l2(a, b):
    a, b = a.double(), b.double()
    return float((a - b).norm() / b.norm().clamp_min(1e-30))


def module(directory, name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(directory, "torch", "qalg_torch.py"))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


@pytest.fixture(scope="module")
def both():
    up_mod, down_mod = module(PAIR[0], "qalg_torch_ffn_up"), module(PAIR[1], "qalg_torch_ffn_down")
    up, down = up_mod.load(PAIR[0]), down_mod.load(PAIR[1])
    assert up.N == down.K, f"the packages do not chain: up gives N = {up.N}, down takes K = {down.K}"
    return up_mod, up, down_mod, down


def test_both_extensions_are_distinct_modules(both):
    _, up, _, down = both
    assert up.extension() is not down.extension()
    assert up.extension().__name__ != down.extension().__name__


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_chain_matches_both_references(both, dtype):
    up_mod, up, down_mod, down = both
    M = 131
    g = torch.Generator(device="cpu").manual_seed(7)
    x = torch.randn(M, up.K, generator=g).to(dtype).cuda().requires_grad_()
    w_up = (torch.randn(up.K, up.N, generator=g) / up.K ** 0.5).to(dtype).cuda().requires_grad_()
    w_down = (torch.randn(down.K, down.N, generator=g) / down.K ** 0.5).to(dtype).cuda().requires_grad_()
    types = torch.arange(M) % up.q  # cyclic positions; q may differ between the packages
    types_down = torch.arange(M) % down.q
    h = up_mod.algebra_matmul(up, x, w_up, types)
    y = down_mod.algebra_matmul(down, h, w_down, types_down)
    dy = torch.randn(M, down.N, generator=g).to(dtype).cuda()
    (y * dy).sum().backward()

    xr, wur, wdr = (t.detach().double().requires_grad_() for t in (x, w_up, w_down))
    hr = up_mod.reference_matmul(up, xr, wur, types)
    # the kernels round h to dtype before the down projection; the reference does the same
    hr = hr.to(dtype).double() if dtype != torch.float32 else hr
    yr = down_mod.reference_matmul(down, hr, wdr, types_down)
    (yr * dy.double()).sum().backward()
    assert rel_l2(y, yr) <= TOL[dtype]
    for got, want in ((x.grad, xr.grad), (w_up.grad, wur.grad), (w_down.grad, wdr.grad)):
        assert rel_l2(got, want) <= 2 * TOL[dtype]
