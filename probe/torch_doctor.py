#!/usr/bin/env python3
"""gputrace doctor's framework checks: PyTorch, step by step.

Same line format as probe/gputrace-probe.c, on stdout:
    step<TAB>torch_NAME<TAB>ok|FAILED|skipped<TAB>MS<TAB>DETAIL
and, once torch is imported, framework<TAB>torch<TAB>VERSION<TAB>CUDA<TAB>CUDNN.
NAME: import, cuda_build, is_available, device (one per device), matmul,
cudnn. A step that cannot run because an earlier one failed is skipped with
the reason; a failure says why in DETAIL (torch's own message when it has
one). Exit status 0 when no step FAILED, else 1.
"""
import sys
import time
import warnings

failures = 0


def flat(text):
    """One line, no tabs, not too long: DETAIL is a single field."""
    text = " ".join(str(text).split())
    return text if len(text) <= 500 else text[:497] + "..."


def step(name, status, t0, detail):
    global failures
    ms = (time.perf_counter() - t0) * 1e3
    print(f"step\ttorch_{name}\t{status}\t{ms:.3f}\t{flat(detail)}", flush=True)
    failures += status == "FAILED"


def why(exc):
    return f"{type(exc).__name__}: {exc}"


def cudnn_text(v):
    """91900 -> 9.19.0 (cuDNN 9 and later); 8907 -> 8.9.7."""
    if v >= 10000:
        return f"{v // 10000}.{v % 10000 // 100}.{v % 100}"
    return f"{v // 1000}.{v % 1000 // 100}.{v % 100}"


def check_import():
    t0 = time.perf_counter()
    try:
        import torch
    except Exception as e:  # ImportError, or a CUDA library failing to load
        step("import", "FAILED", t0, why(e))
        return None
    step("import", "ok", t0, f"{torch.__version__} from {torch.__file__}")
    say_framework(torch)
    return torch


def say_framework(torch):
    """The doctor's environment block: torch's own word on its versions, with
    the cuDNN it was built with (which takes torch imported: the doctor reads
    the rest without importing it, so that torch is imported once)."""
    try:
        cudnn = ".".join(map(str, torch._C._cudnn.getCompileVersion()))
    except Exception:
        cudnn = ""
    cuda = getattr(torch.version, "cuda", None) or ""
    print(f"framework\ttorch\t{flat(torch.__version__)}\t{flat(cuda)}\t{flat(cudnn)}", flush=True)


def check_cuda_build(torch):
    t0 = time.perf_counter()
    cuda = getattr(torch.version, "cuda", None)
    if cuda:
        step("cuda_build", "ok", t0, cuda)
    else:
        step("cuda_build", "FAILED", t0, f"CPU-only build (torch {torch.__version__})")
    return bool(cuda)


def unavailable_reason(torch, caught):
    """torch's own explanation: the warning is_available() gave, or what
    torch.cuda.init() raises (no driver, driver too old, no device)."""
    for w in caught:
        return str(w.message)
    try:
        torch.cuda.init()
    except Exception as e:
        return why(e)
    return "torch.cuda.is_available() is False, with no reason given"


def check_is_available(torch, cuda_build):
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        available = torch.cuda.is_available()
    if available:
        step("is_available", "ok", t0, f"{torch.cuda.device_count()} device(s)")
    elif not cuda_build:
        step("is_available", "FAILED", t0, "no CUDA in this torch build")
    else:
        step("is_available", "FAILED", t0, unavailable_reason(torch, caught))
    return available


def check_devices(torch):
    for i in range(torch.cuda.device_count()):
        t0 = time.perf_counter()
        try:
            p = torch.cuda.get_device_properties(i)
        except Exception as e:
            step("device", "FAILED", t0, f"{i}: {why(e)}")
            continue
        step("device", "ok", t0, f"{i}: {p.name}, compute {p.major}.{p.minor}, "
             f"{p.total_memory // (1024 * 1024)} MiB total")


def check_matmul(torch):
    t0 = time.perf_counter()
    try:
        a = torch.randn(1000, 1000, device="cuda")
        b = torch.randn(1000, 1000, device="cuda")
        (a @ b).sum().item()  # warm-up: context, cuBLAS handle, kernels
        t1 = time.perf_counter()
        c = a @ b
        torch.cuda.synchronize()
        run_ms = (time.perf_counter() - t1) * 1e3
        ref = a.cpu() @ b.cpu()
        err = ((c.cpu() - ref).abs().max() / ref.abs().max()).item()
    except Exception as e:
        step("matmul", "FAILED", t0, why(e))
        return
    if err > 1e-2:
        step("matmul", "FAILED", t0, f"result differs from the CPU's (relative error {err:.2g})")
    else:
        step("matmul", "ok", t0, f"1000x1000 float32 in {run_ms:.3f} ms; MS includes warm-up and the CPU check")


def check_cudnn(torch):
    t0 = time.perf_counter()
    try:
        v = torch.backends.cudnn.version()
    except Exception as e:  # e.g. the cuDNN found is not the one torch was built for
        step("cudnn", "FAILED", t0, why(e))
        return
    if v:
        step("cudnn", "ok", t0, cudnn_text(v))
    else:
        step("cudnn", "FAILED", t0, "torch.backends.cudnn.version() is None: cuDNN not found or not usable")


def main():
    torch = check_import()
    if torch is None:
        for name in ("cuda_build", "is_available", "device", "matmul", "cudnn"):
            step(name, "skipped", time.perf_counter(), "torch not imported")
        return 1
    cuda_build = check_cuda_build(torch)
    available = check_is_available(torch, cuda_build)
    if available:
        check_devices(torch)
        check_matmul(torch)
    else:
        for name in ("device", "matmul"):
            step(name, "skipped", time.perf_counter(), "CUDA not available to torch")
    if cuda_build:
        check_cudnn(torch)
    else:
        step("cudnn", "skipped", time.perf_counter(), "CPU-only build")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
