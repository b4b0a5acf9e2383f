"""A stand-in for a CUDA build of PyTorch, for the doctor's framework layer
on a machine without one: it loads the fake CUDA runtime and cuDNN of
fixtures/ by absolute path (as torch's wheels load theirs) and answers
torch_doctor.py's questions from them. Nothing here computes: a "tensor" is
one number, enough for torch_doctor.py's matmul check to compare the device
result with the CPU's.

FAKE_TORCH_CUDART and FAKE_TORCH_CUDNN name the two libraries."""
import ctypes
import os

from . import version
from .version import __version__

# Each import says so, for the test that the doctor imports torch once.
if os.environ.get("FAKE_TORCH_IMPORT_LOG"):
    with open(os.environ["FAKE_TORCH_IMPORT_LOG"], "a") as _log:
        _log.write("imported\n")

_rt = ctypes.CDLL(os.environ["FAKE_TORCH_CUDART"])
_dnn = ctypes.CDLL(os.environ["FAKE_TORCH_CUDNN"])
_dnn.cudnnGetVersion.restype = ctypes.c_size_t


class _Tensor:
    def __init__(self, value, device="cpu"):
        self.value = float(value)
        self.device = device

    def __matmul__(self, other):
        return _Tensor(self.value * other.value, self.device)

    def __sub__(self, other):
        return _Tensor(self.value - other.value, self.device)

    def __truediv__(self, other):
        return _Tensor(self.value / other.value, self.device)

    def abs(self):
        return _Tensor(abs(self.value), self.device)

    def sum(self):
        return self

    max = sum

    def cpu(self):
        return _Tensor(self.value)

    def item(self):
        return self.value


def randn(*shape, device="cpu"):
    if device == "cuda":
        ptr = ctypes.c_void_p()
        status = _rt.cudaMalloc(ctypes.byref(ptr), ctypes.c_size_t(4 * shape[0] * shape[1]))
        if status != 0:
            raise RuntimeError(f"CUDA error: cudaMalloc returned {status}")
    return _Tensor(1.5, device)


class _Props:
    name = "Fake GPU"
    major, minor = 9, 0
    total_memory = 80 << 30


class cuda:
    @staticmethod
    def device_count():
        n = ctypes.c_int(0)
        return n.value if _rt.cudaGetDeviceCount(ctypes.byref(n)) == 0 else 0

    @staticmethod
    def is_available():
        return cuda.device_count() > 0

    @staticmethod
    def init():
        n = ctypes.c_int(0)
        status = _rt.cudaGetDeviceCount(ctypes.byref(n))
        if status != 0:
            raise RuntimeError(f"cudaGetDeviceCount returned {status}")

    @staticmethod
    def get_device_properties(_index):
        return _Props()

    @staticmethod
    def synchronize():
        pass


class backends:
    class cudnn:
        @staticmethod
        def version():
            return int(_dnn.cudnnGetVersion())
