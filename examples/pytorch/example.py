"""Example: an exported qalg kernel package as a PyTorch layer.

    qalg export complete:4 --widths 64 --dtype bf16 --out pkg     # on a machine with qalg
    python3 examples/pytorch/example.py pkg                        # on a machine with a GPU
"""
import os
import sys

import torch

package_dir = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "pkg")
sys.path.insert(0, os.path.join(package_dir, "torch"))
import qalg_torch  # noqa: E402  (the package's own module)

pkg = qalg_torch.load(package_dir)
layer = qalg_torch.AlgebraLinear(pkg.K, pkg.N, law=pkg, schedule="cyclic").cuda().to(torch.bfloat16)
x = torch.randn(2, 16, pkg.K, device="cuda", dtype=torch.bfloat16, requires_grad=True)
y = layer(x)                                        # positions 0..15 in both sequences
y.float().square().mean().backward()                # dX and dW kernels
print("y", tuple(y.shape), "grad x", tuple(x.grad.shape), "grad W", tuple(layer.weight.grad.shape))

# Decoding token 5 alone gives the row it had in the full sequence (types from positions).
with torch.no_grad():
    step = layer(x[:1, 5:6].detach(), position_ids=torch.tensor([5], device="cuda"))
print("decode at position 5 matches prefill:", torch.allclose(step[0, 0].float(), y[0, 5].float(), atol=1e-2, rtol=1e-2))
