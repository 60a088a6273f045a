# Runs the Triton peer (../shared/peers/triton_qproj.py, carried as .gpu-carry/triton_qproj.py) on
# projection shapes (M = 2048 and cyclic types unless given: D:F:q:M:int for interval types, e.g.
# a square 32768:32768:256:32768:int), prints the configuration its autotuner chose for each, and
# runs the FIRST shape once more between cudaProfilerStart/Stop (for `ncu --profile-from-start off`).
#   python3 peer_shape.py PEER.py D:F:q[:M[:int]] ...
# PEER_CONFIG=BM,BN,BK,WARPS,STAGES (eighteenth session): the autotuner gets that one configuration
# (no tuning runs: under ncu they outlast the call), e.g. the best_config an earlier run printed.
import importlib.util
import json
import os
import sys

import torch


def parse(a):
    f = a.split(":")
    return int(f[0]), int(f[1]), int(f[2]), int(f[3]) if len(f) > 3 else 2048, not (len(f) > 4 and f[4] == "int")


src, shapes = sys.argv[1], [parse(a) for a in sys.argv[2:]]
sys.argv = [src, "none"]  # the peer's own checks only; its table passes are skipped
spec = importlib.util.spec_from_file_location("triton_qproj", src)  # from its file: triton.jit reads the source
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
peer = vars(module)
if os.environ.get("PEER_CONFIG"):
    bm, bn, bk, warps, stages = (int(v) for v in os.environ["PEER_CONFIG"].split(","))
    peer["qproj_kernel"].configs = [peer["triton"].Config({"BM": bm, "BN": bn, "BK": bk}, num_warps=warps,
                                                          num_stages=stages)]
first = None
for D, F, q, M, cyclic in shapes:
    X = torch.randn(M, D, device="cuda", dtype=torch.bfloat16)
    W = torch.randn(D, F, device="cuda", dtype=torch.bfloat16) / D ** 0.5
    peer["qproj"](X, W, q, cyclic)  # autotunes
    torch.cuda.synchronize()
    t = peer["bench"](lambda: peer["qproj"](X, W, q, cyclic))
    print(json.dumps({"D": D, "F": F, "q": q, "M": M, "cyclic": cyclic, "us": round(t, 1),
                      "best_config": str(peer["qproj_kernel"].best_config)}), flush=True)
    if first is None:
        first = (X, W, q, cyclic)
X, W, q, cyclic = first
torch.cuda.profiler.start()
peer["qproj"](X, W, q, cyclic)
torch.cuda.synchronize()
torch.cuda.profiler.stop()
