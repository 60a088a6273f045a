"""PyTorch op for an exported qalg kernel package (written by `qalg export`).

    import qalg_torch                        # this file, from <package>/torch
    pkg = qalg_torch.load()                  # builds the CUDA extension once (torch cpp_extension)
    layer = qalg_torch.AlgebraLinear(pkg.K, pkg.N, law=pkg, schedule="cyclic").cuda()
    y = layer(x, position_ids)               # x: (..., T, K); positions give each row its type

The op is an autograd Function whose forward, dX and dW are the package's CUDA kernels
(bf16 / fp16 / fp32, FP32 accumulation). For float64 it runs the same plan with torch ops
(`plan_forward`, `plan_backward_dx`, `plan_backward_dw`): the CUDA kernels have no FP64 path,
so FP64 gradcheck checks that path's backward formulas, not the kernels.
`reference_matmul` is the independent dense reference: T_i(W) materialised from table.json.
"""
import hashlib
import json
import os
import re

import torch

PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNEL_DTYPES = (torch.bfloat16, torch.float16, torch.float32)
# This package's name (`qalg export --name`): its sources are src/<name>.cpp and torch/<name>_torch.cpp,
# its C++ namespace <name>. Another package loaded through this module uses its own certificate's name.
PACKAGE_NAME = "qalg_kernels"
# The kernel runtime (CMakeLists.txt's qalg_kernels_runtime, less the C++20 sources below).
_RUNTIME_SOURCES = [
    "src/gpu/cuda/device_plan.cpp",
    "src/gpu/cuda/validate.cpp", "src/gpu/cuda/calibration.cpp", "src/gpu/cuda/tensor_map.cpp",
    "src/gpu/cuda/launch_forward.cu", "src/gpu/cuda/launch_forward_ws_bf16.cu",
    "src/gpu/cuda/launch_forward_ws_f16.cu", "src/gpu/cuda/launch_forward_types.cu",
    "src/gpu/cuda/launch_backward.cu", "src/gpu/cuda/launch_ffn.cu", "src/gpu/cuda/launch_narrow.cu", "src/gpu/cuda/launch_narrow_ffn.cu",
]


def _sources(name):
    """The sources of a package named `name` compiled with torch's flags."""
    return ["torch/%s_torch.cpp" % name, "src/%s.cpp" % name] + _RUNTIME_SOURCES
# C++20 sources (exact fractions); they include no torch header and are compiled apart, so every
# file that includes torch headers keeps torch's own language standard.
_CXX20_SOURCES = ["src/gpu/src/kernel_plan.cpp", "src/gpu/src/fraction.cpp"]


def _compile_cxx20(directory, build_dir):
    """Objects of _CXX20_SOURCES in build_dir, rebuilt when a source is newer or the flags change."""
    import subprocess
    from torch.utils import cpp_extension
    cxx = cpp_extension.get_cxx_compiler() if hasattr(cpp_extension, "get_cxx_compiler") else os.environ.get("CXX", "c++")
    # torch's std::string ABI: KernelPlan (strings, vectors) crosses between these objects and the
    # torch-flag ones, and torch wheels before 2.7 were built with the old ABI (torch passes the
    # macro to its own compiles only).
    flags = ["-std=c++20", "-O3", "-fPIC", "-fvisibility=hidden",
             "-D_GLIBCXX_USE_CXX11_ABI=%d" % int(torch._C._GLIBCXX_USE_CXX11_ABI)]
    tag = hashlib.sha256(" ".join([cxx] + flags).encode()).hexdigest()[:8]  # new flags: new objects
    objects = []
    for rel in _CXX20_SOURCES:
        src = os.path.join(directory, rel)
        obj = os.path.join(build_dir, "%s.cxx20-%s.o" % (os.path.basename(rel), tag))
        if not os.path.exists(obj) or os.path.getmtime(obj) < os.path.getmtime(src):
            subprocess.check_call([cxx] + flags + ["-c", src, "-o", obj,
                                                   "-I" + os.path.join(directory, "include"),
                                                   "-I" + os.path.join(directory, "src/gpu/src")])
        objects.append(obj)
    return objects


def _process_libstdcxx():
    """Path of the libstdc++ this Python process (torch) already runs on, from /proc/self/maps."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                fields = line.split()
                if len(fields) >= 6 and os.path.basename(fields[5]).startswith("libstdc++.so"):
                    return fields[5]
    except OSError:
        pass
    return None


def _static_cxx_runtime(so_path):
    """True when the built extension defines libstdc++'s own ostream code (a second, static C++
    runtime); None when binutils' nm is not there to tell."""
    import subprocess
    try:
        out = subprocess.run(["nm", "-D", "--defined-only", so_path], capture_output=True, text=True).stdout
    except OSError:
        return None
    return "_ZNSo9_M_insertIlEERSoT_" in out


def _fraction(c, where):
    """A plan coefficient (an int or a "p/q" string) as a float; ValueError naming `where` otherwise."""
    if isinstance(c, int) and not isinstance(c, bool):
        return float(c)
    try:
        num, _, den = str(c).partition("/")
        value = int(num) / int(den or 1)
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"{where}: coefficient {c!r} is not an integer or a 'p/q' fraction") from None
    return value


def _checked_plan(plan, path, certificate):
    """Raises ValueError naming plan.json and the field unless the plan is well formed and is the plan
    the package's certificate names. Why (thirty-eighth session's audit): an edited coefficient loaded
    silently (the float64 path would then differ from the CUDA kernels, built from plan_data.hpp), a
    coefficient "1/0" raised a bare ZeroDivisionError and a type past q a bare IndexError."""
    q = plan.get("q")
    if not isinstance(q, int) or isinstance(q, bool) or q < 1:
        raise ValueError(f"{path}: q must be a positive integer, got {q!r}")
    for key in ("input_widths", "output_widths"):
        w = plan.get(key)
        if not isinstance(w, list) or len(w) != q or not all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in w):
            raise ValueError(f"{path}: {key} must be {q} positive integers, got {w!r}")
    for n, term in enumerate(plan.get("terms", [])):
        where = f"{path}: terms[{n}]"
        if not (isinstance(term, list) and len(term) == 3 and isinstance(term[2], list)):
            raise ValueError(f"{where}: expected [type, output group, [[input group, coefficient], ...]]")
        for index in (term[0], term[1], *(b[0] if isinstance(b, list) and b else None for b in term[2])):
            if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < q:
                raise ValueError(f"{where}: {index!r} is not a type or group in 0..{q - 1}")
    if certificate is not None:
        named = certificate.get("kernel_export", {}).get("plan_sha256")
        actual = hashlib.sha256(plan["_text"]).hexdigest()
        if named != actual:
            raise ValueError(f"{path}: its SHA-256 {actual[:16]}… is not the certificate's plan_sha256 "
                             f"{str(named)[:16]}… (plan.json was edited or belongs to another package)")


def _offsets(widths):
    off = [0]
    for w in widths:
        off.append(off[-1] + w)
    return off


class KernelPackage:
    """An exported directory: its plan, its table, and (on demand) the compiled extension."""

    def __init__(self, directory=PACKAGE_DIR):
        self.directory = os.path.abspath(directory)
        with open(os.path.join(self.directory, "plan.json"), "rb") as f:
            text = f.read()
        plan = json.loads(text)
        self.plan_sha256 = hashlib.sha256(text).hexdigest()
        plan_path = os.path.join(self.directory, "plan.json")
        cert_path = os.path.join(self.directory, "certificate.json")
        certificate = None
        if os.path.exists(cert_path):
            with open(cert_path) as f:
                certificate = json.load(f)
        _checked_plan(dict(plan, _text=text), plan_path, certificate)
        # The package's name picks its source files (a certificate-less copy: this module's package's).
        self.name = (certificate or {}).get("kernel_export", {}).get("name", PACKAGE_NAME)
        if not isinstance(self.name, str) or not re.fullmatch(r"[a-z][a-z0-9_]*", self.name):
            raise ValueError(f"{cert_path}: kernel_export.name {self.name!r} is not a package name")
        with open(os.path.join(self.directory, "table.json")) as f:
            self.table = json.load(f)
        self.q = plan["q"]
        self.input_widths, self.output_widths = plan["input_widths"], plan["output_widths"]
        self.in_off, self.out_off = _offsets(self.input_widths), _offsets(self.output_widths)
        self.K, self.N = self.in_off[-1], self.out_off[-1]
        self.table_hash = plan["table_hash"]
        # terms[i] = [(j, [(k, c), ...]), ...]: B(i, j) for the output groups j with terms.
        self.terms = [[] for _ in range(self.q)]
        for n, (i, j, b) in enumerate(plan["terms"]):
            self.terms[i].append((j, [(k, _fraction(c, f"{plan_path}: terms[{n}]")) for k, c in b]))
        self._ext = None

    def extension(self, verbose=False):
        """The compiled CUDA extension (torch.utils.cpp_extension.load, cached by torch)."""
        if self._ext is None:
            from torch.utils import cpp_extension
            d = self.directory
            # One extension per package name and plan: two packages load side by side in one
            # process (each extension has its own module name, namespace and hidden symbols).
            name = self.name + "_" + self.plan_sha256[:16]
            root = os.environ.get("TORCH_EXTENSIONS_DIR") or os.path.join(
                os.path.expanduser("~"), ".cache", "torch_extensions")
            build_dir = os.path.join(root, name)
            os.makedirs(build_dir, exist_ok=True)
            # The kernels use Hopper's wgmma, which only the sm_90a target has (plain sm_90 code
            # would trap at the first launch).
            os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "9.0a")
            self._ext = cpp_extension.load(
                name=name,
                sources=[os.path.join(d, s) for s in _sources(self.name)],
                extra_include_paths=[os.path.join(d, "include"), os.path.join(d, "src/gpu/cuda"),
                                     os.path.join(d, "src/gpu/src")],
                # Hidden visibility: two packages loaded into one process must not bind to each
                # other's symbols (same names, different plans; GCC makes inline variables and
                # template statics process-wide "unique" symbols otherwise).
                extra_cflags=["-O3", "-fvisibility=hidden"],
                # Link the C++ runtime this process already uses, by path, ahead of the driver's
                # own -lstdc++. On the H200 image, /opt/gcc's g++ linked a static libstdc++ into
                # the extension: a second runtime whose locale was never set up, so the first
                # integer streamed into an error message (ostream::_M_insert<long>) crashed
                # inside a codecvt facet (test_binding_checks_are_named, SIGSEGV).
                # -lcublas: the cublas_batched engine of dX and dW (batched_law.hpp); the process
                # already has torch's libcublas loaded, which this binds to.
                extra_ldflags=_compile_cxx20(d, build_dir) + [p for p in [_process_libstdcxx()] if p] + ["-lcublas"],
                build_directory=build_dir,
                extra_cuda_cflags=["-O3", "-Xcompiler", "-fvisibility=hidden", "--expt-relaxed-constexpr",
                                   "-U__CUDA_NO_HALF_OPERATORS__",
                                   "-U__CUDA_NO_HALF_CONVERSIONS__", "-U__CUDA_NO_BFLOAT16_CONVERSIONS__",
                                   "-U__CUDA_NO_HALF2_OPERATORS__"],
                verbose=verbose)
            if _static_cxx_runtime(self._ext.__file__):
                raise RuntimeError("the compiled extension %s carries its own static copy of libstdc++ (the "
                                   "compiler %s linked it); two C++ runtimes in one process crash on the "
                                   "first formatted error message. Build with the compiler torch uses "
                                   "(set CXX) or one that links libstdc++.so" % (self._ext.__file__, os.environ.get("CXX", "c++")))
            if self._ext.table_hash() != self.table_hash or (self._ext.K(), self._ext.N()) != (self.K, self.N):
                raise RuntimeError("the compiled extension does not match plan.json (stale build?)")
        return self._ext

    def use_calibration(self, path=None):
        """Load per-shape tile choices (default: the package's calibration.csv, from qalg's last
        H200 benchmark); later forward calls whose (K, N, q, rows) match a row use its tiles.
        Returns the number of rows; a malformed file raises ValueError naming file:line."""
        return self.extension().use_calibration(path or os.path.join(self.directory, "calibration.csv"))

    def types(self, position_ids, schedule="cyclic"):
        """Row types from absolute positions (SPEC §4): 'cyclic' τ(p) = p mod q,
        'intervals:L' τ(p) = ⌊(p mod qL)/L⌋, or a callable positions -> types."""
        p = torch.as_tensor(position_ids)
        if p.dtype not in (torch.int64, torch.int32):
            raise TypeError("position_ids must be int64 or int32, got %s" % p.dtype)
        if p.numel() and int(p.min()) < 0:
            raise ValueError("position_ids must be non-negative")
        if callable(schedule):
            t = torch.as_tensor(schedule(p)).to(torch.int64)
        elif schedule == "cyclic":
            t = p.to(torch.int64) % self.q
        elif isinstance(schedule, str) and schedule.startswith("intervals:"):
            length = int(schedule.split(":", 1)[1])
            if length <= 0:
                raise ValueError("schedule 'intervals:L' needs L > 0")
            t = (p.to(torch.int64) % (self.q * length)) // length
        else:
            raise ValueError("schedule %r: expected 'cyclic', 'intervals:L' or a callable" % (schedule,))
        if t.shape != p.shape or (t.numel() and (int(t.min()) < 0 or int(t.max()) >= self.q)):
            raise ValueError("the schedule must give one type in [0, q = %d) per position" % self.q)
        return t


def load(directory=PACKAGE_DIR, verbose=False):
    """The package in `directory` with its CUDA extension built."""
    pkg = KernelPackage(directory)
    pkg.extension(verbose)
    return pkg


# ---- the plan with torch ops (FP64 path; also the readable statement of the three maps) ----

def _rows_by_type(types, q):
    return [(i, torch.nonzero(types == i).squeeze(1)) for i in range(q)]


def plan_forward(pkg, x, w, types):
    """y_j = Σ_{k∈B(i,j)} c · x_k W_kj for the rows of type i (SPEC §4)."""
    y = x.new_zeros(x.shape[0], pkg.N)
    for i, rows in _rows_by_type(types.to(x.device), pkg.q):
        if rows.numel() == 0:
            continue
        xi = x.index_select(0, rows)
        for j, b in pkg.terms[i]:
            acc = sum(c * xi[:, pkg.in_off[k]:pkg.in_off[k + 1]] @ w[pkg.in_off[k]:pkg.in_off[k + 1],
                                                                     pkg.out_off[j]:pkg.out_off[j + 1]]
                      for k, c in b)
            y[rows, pkg.out_off[j]:pkg.out_off[j + 1]] = acc
    return y


def plan_backward_dx(pkg, dy, w, types):
    """x̄_k += c · ȳ_j W_kjᵀ for every term (k, c) of B(i, j) (SPEC §5)."""
    dx = dy.new_zeros(dy.shape[0], pkg.K)
    for i, rows in _rows_by_type(types.to(dy.device), pkg.q):
        if rows.numel() == 0:
            continue
        dyi, dxi = dy.index_select(0, rows), dy.new_zeros(rows.numel(), pkg.K)
        for j, b in pkg.terms[i]:
            for k, c in b:
                dxi[:, pkg.in_off[k]:pkg.in_off[k + 1]] += c * dyi[:, pkg.out_off[j]:pkg.out_off[j + 1]] @ \
                    w[pkg.in_off[k]:pkg.in_off[k + 1], pkg.out_off[j]:pkg.out_off[j + 1]].T
        dx[rows] = dxi
    return dx


def plan_backward_dw(pkg, x, dy, types):
    """W̄_kj += c · x_kᵀ ȳ_j over the rows of every type i with (k, c) in B(i, j) (SPEC §5)."""
    dw = x.new_zeros(pkg.K, pkg.N)
    for i, rows in _rows_by_type(types.to(x.device), pkg.q):
        if rows.numel() == 0:
            continue
        xi, dyi = x.index_select(0, rows), dy.index_select(0, rows)
        for j, b in pkg.terms[i]:
            for k, c in b:
                dw[pkg.in_off[k]:pkg.in_off[k + 1], pkg.out_off[j]:pkg.out_off[j + 1]] += \
                    c * xi[:, pkg.in_off[k]:pkg.in_off[k + 1]].T @ dyi[:, pkg.out_off[j]:pkg.out_off[j + 1]]
    return dw


# ---- the independent dense reference, from the table ----

def type_coefficients(pkg):
    """C[i][k][j] as nested lists of floats: block (k, j) of T_i(W) is C[i][k][j] · W_kj, summed
    from the table's entries e_a e_b -> c e_g with slot(a) = (i, k), slot(b) = (k, j),
    slot(g) = (i, j). Plain Python (no torch), so it is checked against the plan's terms without
    a GPU (tests/python/test_kernel_package_loader.py)."""
    t = pkg.table
    cells = t["slots"]["cells"]
    where = os.path.join(pkg.directory, "table.json")
    C = [[[0.0] * pkg.q for _ in range(pkg.q)] for _ in range(pkg.q)]
    for n, (a, b, g, c) in enumerate(t["entries"]):
        (i, k), (k2, j), (i2, j2) = cells[a], cells[b], cells[g]
        if k == k2 and i2 == i and j2 == j:
            C[i][k][j] += _fraction(c, f"{where}: entries[{n}]")
    return C


def type_operators(pkg, dtype=torch.float64, device="cpu"):
    """C[i] (q×q) of type_coefficients as one q×q×q tensor."""
    return torch.tensor(type_coefficients(pkg), dtype=torch.float64).to(dtype=dtype, device=device)


def reference_matmul(pkg, x, w, types):
    """Dense masked reference: y_p = x_p T_τ(p)(W) with T_i(W) = W ⊙ expand(C[i]); plain torch
    ops, so autograd gives the reference gradients."""
    C = type_operators(pkg, x.dtype, x.device)
    s = torch.tensor(pkg.input_widths, device=x.device)
    r = torch.tensor(pkg.output_widths, device=x.device)
    y = x.new_zeros(x.shape[0], pkg.N)
    types = types.to(x.device)
    for i in range(pkg.q):
        rows = torch.nonzero(types == i).squeeze(1)
        if rows.numel():
            mask = C[i].repeat_interleave(s, dim=0).repeat_interleave(r, dim=1)
            y = y.index_put((rows,), x.index_select(0, rows) @ (w * mask))
    return y


# ---- the autograd op ----

class _AlgebraMatmul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, types, pkg, schedule):
        ctx.pkg, ctx.types = pkg, types
        ctx.save_for_backward(x, w)
        if x.dtype == torch.float64:
            ctx.batch = None
            return plan_forward(pkg, x, w, types)
        ext = pkg.extension()
        ctx.batch = ext.make_batch(types.cpu(), x.device.index)
        return ext.forward(x, w, ctx.batch, schedule)

    @staticmethod
    def backward(ctx, dy):
        x, w = ctx.saved_tensors
        dy = _aligned(dy.contiguous())
        dx = dw = None
        if ctx.batch is None:
            if ctx.needs_input_grad[0]:
                dx = plan_backward_dx(ctx.pkg, dy, w, ctx.types)
            if ctx.needs_input_grad[1]:
                dw = plan_backward_dw(ctx.pkg, x, dy, ctx.types)
        else:
            ext = ctx.pkg.extension()
            if ctx.needs_input_grad[0]:
                dx = ext.backward_dx(dy, w, ctx.batch)
            if ctx.needs_input_grad[1]:
                dw = ext.backward_dw(x, dy, ctx.batch)
        return dx, dw, None, None, None


def _check(pkg, x, w, types):
    if not isinstance(x, torch.Tensor) or not isinstance(w, torch.Tensor):
        raise TypeError("x and weight must be tensors")
    if x.dim() != 2 or x.shape[1] != pkg.K:
        raise ValueError("x must have shape [M, K = %d], got %s" % (pkg.K, list(x.shape)))
    if tuple(w.shape) != (pkg.K, pkg.N):
        raise ValueError("weight must have shape [K, N] = [%d, %d], got %s" % (pkg.K, pkg.N, list(w.shape)))
    if x.dtype != w.dtype:
        raise TypeError("x is %s but weight is %s (one dtype per call)" % (x.dtype, w.dtype))
    if x.dtype not in KERNEL_DTYPES + (torch.float64,):
        raise TypeError("dtype %s: the kernels take bfloat16, float16, float32 (float64 runs the torch path)" % x.dtype)
    if x.device != w.device:
        raise ValueError("x is on %s but weight is on %s" % (x.device, w.device))
    if x.dtype != torch.float64 and x.device.type != "cuda":
        raise ValueError("x is on %s: the kernels need CUDA tensors" % x.device)
    if not x.is_contiguous() or not w.is_contiguous():
        raise ValueError("x and weight must be contiguous (row-major); call .contiguous()")
    if types.dim() != 1 or types.shape[0] != x.shape[0]:
        raise ValueError("types must have one entry per row of x (%d), got shape %s" % (x.shape[0], list(types.shape)))
    if types.dtype not in (torch.int64, torch.int32):
        raise TypeError("types must be int64 or int32, got %s" % types.dtype)
    if types.numel() and (int(types.min()) < 0 or int(types.max()) >= pkg.q):
        raise ValueError("types must lie in [0, q = %d), got values in [%d, %d]"
                         % (pkg.q, int(types.min()), int(types.max())))


def algebra_matmul(pkg, x, weight, types, schedule="endpoint-fused"):
    """Rows of x (M×K) through T_types[p](weight) (K×N): the package's kernels, differentiable."""
    types = torch.as_tensor(types)
    _check(pkg, x, weight, types)
    if x.shape[0] == 0:  # no rows: nothing for the kernels to do
        return x.new_zeros(0, pkg.N) + 0 * weight.sum()
    x, weight = _aligned(x), _aligned(weight)
    return _AlgebraMatmul.apply(x, weight, types, pkg, schedule)


def _aligned(t):
    """The kernels read 16-byte aligned rows; a view into the middle of a tensor may not be."""
    return t if t.data_ptr() % 16 == 0 else t.clone()


class AlgebraLinear(torch.nn.Module):
    """A linear layer whose weight bank W (in_features × out_features, dense-sized) acts through
    the algebra's law: row p of the input uses T_τ(p)(W), τ from its absolute position.

    law: a KernelPackage (or an export directory); schedule: 'cyclic', 'intervals:L' or a
    callable positions -> types. forward(x, position_ids=None): x is (..., T, K); position_ids
    is (..., T) or (T,), default 0..T-1, so decoding one token at position p with
    position_ids=[p] gives the row it has in the full sequence."""

    def __init__(self, in_features, out_features, law, schedule="cyclic", kernel_schedule="endpoint-fused",
                 device=None, dtype=None):
        super().__init__()
        self.law = law if isinstance(law, KernelPackage) else KernelPackage(law)
        if (in_features, out_features) != (self.law.K, self.law.N):
            raise ValueError("AlgebraLinear(%d, %d): the package was exported for K = %d, N = %d"
                             % (in_features, out_features, self.law.K, self.law.N))
        self.in_features, self.out_features = in_features, out_features
        self.schedule, self.kernel_schedule = schedule, kernel_schedule
        self.weight = torch.nn.Parameter(torch.empty(in_features, out_features, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        # Each output sums ~K_eff inputs; use the largest per-type fan-in of the plan.
        fan_in = max(sum(self.law.input_widths[k] for j, b in t for k, _ in b) / max(len(t), 1)
                     for t in self.law.terms)
        torch.nn.init.normal_(self.weight, std=(1.0 / max(fan_in, 1.0)) ** 0.5)

    def forward(self, x, position_ids=None):
        if x.dim() < 2:
            raise ValueError("x must be (..., T, K), got shape %s" % list(x.shape))
        T = x.shape[-2]
        if position_ids is None:
            position_ids = torch.arange(T, device=x.device)
        position_ids = torch.as_tensor(position_ids, device=x.device)
        if position_ids.shape[-1:] != (T,) or position_ids.dim() > x.dim() - 1:
            raise ValueError("position_ids must be (..., T = %d), got shape %s" % (T, list(position_ids.shape)))
        types = self.law.types(position_ids.expand(x.shape[:-1]).reshape(-1), self.schedule)
        rows = x.reshape(-1, x.shape[-1]).contiguous()
        needs_grad = torch.is_grad_enabled() and (x.requires_grad or self.weight.requires_grad)
        if rows.shape[0] == 1 and not needs_grad and rows.dtype in KERNEL_DTYPES:
            _check(self.law, rows, self.weight, types)  # decoding one token: the decode kernel
            y = self.law.extension().decode(_aligned(rows), _aligned(self.weight), int(types[0]))
        else:
            y = algebra_matmul(self.law, rows, self.weight, types, self.kernel_schedule)
        return y.reshape(*x.shape[:-1], self.out_features)

    def extra_repr(self):
        return "in_features=%d, out_features=%d, q=%d, schedule=%r" % (
            self.in_features, self.out_features, self.law.q, self.schedule)
