#!/usr/bin/env python3
"""One Conv2d forward on CUDA: the smallest real PyTorch + cuDNN workload.

Imports torch, runs nn.Conv2d(3, 16, 3) on a 1x3x64x64 tensor on the GPU
(cuDNN loads its sub-libraries on this first convolution), and prints the sum
of the output with 4 decimals.  Inputs and weights come from a fixed seed on
the CPU, so the printed sum is the same run after run: bench/torch_overhead.sh
compares it between bare and traced runs.  Exits 1 when CUDA is unavailable.
"""
import sys

import torch


def main():
    if not torch.cuda.is_available():
        sys.stderr.write("torch_conv: torch.cuda.is_available() is False (torch %s, CUDA %s)\n"
                         % (torch.__version__, torch.version.cuda))
        return 1
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = True
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(3, 16, 3)
    x = torch.randn(1, 3, 64, 64)
    with torch.no_grad():
        y = conv.cuda()(x.cuda())
    torch.cuda.synchronize()
    print("%.4f" % y.sum().item())
    return 0


if __name__ == "__main__":
    sys.exit(main())
