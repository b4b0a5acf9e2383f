"""One GPU operation per framework, in the order named on the command line:
`python3 tests/gpu/frameworks.py cupy torch` imports cupy, runs its op, then
torch. Each op prints one deterministic line, so a bare and a traced run can
be compared byte for byte. For tests/gpu/matrix.sh (issue 34)."""
import sys


def op_torch():
    import torch
    x = torch.ones(64, 64, device="cuda")
    print("torch", float((x @ x).sum()))


def op_jax():
    import jax
    import jax.numpy as jnp
    x = jnp.ones((64, 64))
    print("jax", jax.devices()[0].platform, float((x @ x).sum()))


def op_cupy():
    import cupy as cp
    x = cp.ones((64, 64), dtype=cp.float32)
    print("cupy", float((x @ x).sum()))


def op_numba():
    # numba-cuda 0.30 fails at import with numpy 2.5 on the GPU host
    # (numpy.row_stack is gone): exit 1 bare, and must be exit 1 traced.
    import numpy as np
    from numba import cuda

    @cuda.jit
    def add_one(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += 1

    a = cuda.to_device(np.zeros(64, dtype=np.float32))
    add_one[1, 64](a)
    print("numba", float(a.copy_to_host().sum()))


def op_triton():
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
                 mask=mask)

    x = torch.ones(1024, device="cuda")
    out = torch.empty_like(x)
    add[(4,)](x, x, out, x.numel(), BLOCK=256)
    print("triton", float(out.sum()))


def op_onnxruntime():
    import onnxruntime as ort
    print("onnxruntime", "CUDAExecutionProvider" in ort.get_available_providers())


def op_forkinit():
    # A child forked after CUDA was initialised: PyTorch raises "Cannot
    # re-initialize CUDA in forked subprocess" before any CUDA call, the child
    # exits 1, the parent goes on (issue 28: gputrace said "all clear").
    import multiprocessing as mp
    import torch
    torch.zeros(1, device="cuda")

    def child():
        torch.zeros(1, device="cuda")

    p = mp.get_context("fork").Process(target=child)
    p.start()
    p.join()
    print("forkinit child exit", p.exitcode)


OPS = {name[3:]: fn for name, fn in globals().items() if name.startswith("op_")}

if __name__ == "__main__":
    for name in sys.argv[1:]:
        OPS[name]()
        sys.stdout.flush()
