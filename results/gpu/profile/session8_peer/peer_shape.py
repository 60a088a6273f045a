# Runs the Triton peer (../shared/peers/triton_qproj.py, carried as .gpu-carry/triton_qproj.py) on
# projection shapes at M = 2048 with cyclic types, prints the configuration its autotuner chose for
# each, and runs the FIRST shape once more between cudaProfilerStart/Stop (for
# `ncu --profile-from-start off`).   python3 peer_shape.py PEER.py D:F:q [D:F:q ...]
import importlib.util
import json
import sys

import torch

src, shapes = sys.argv[1], [tuple(int(v) for v in a.split(":")) for a in sys.argv[2:]]
sys.argv = [src, "none"]  # the peer's own checks only; its table passes are skipped
spec = importlib.util.spec_from_file_location("triton_qproj", src)  # from its file: triton.jit reads the source
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
peer = vars(module)
M = 2048
first = None
for D, F, q in shapes:
    X = torch.randn(M, D, device="cuda", dtype=torch.bfloat16)
    W = torch.randn(D, F, device="cuda", dtype=torch.bfloat16) / D ** 0.5
    peer["qproj"](X, W, q, True)  # autotunes
    torch.cuda.synchronize()
    t = peer["bench"](lambda: peer["qproj"](X, W, q, True))
    print(json.dumps({"D": D, "F": F, "q": q, "us": round(t, 1), "best_config": str(peer["qproj_kernel"].best_config)}),
          flush=True)
    if first is None:
        first = (X, W, q)
X, W, q = first
torch.cuda.profiler.start()
peer["qproj"](X, W, q, True)
torch.cuda.synchronize()
torch.cuda.profiler.stop()
