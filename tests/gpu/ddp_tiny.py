"""Two-GPU job for gputrace on torchrun: an NCCL all-reduce and one Conv2d
forward on each rank; each rank prints what it computed."""
import os

import torch
import torch.distributed as dist


def main():
    rank = int(os.environ["RANK"])
    local = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    dist.init_process_group("nccl")
    x = torch.full((4,), float(rank + 1), device="cuda")
    dist.all_reduce(x)
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(3, 16, 3).cuda()
    y = conv(torch.randn(8, 3, 64, 64, device="cuda"))
    torch.cuda.synchronize()
    print("rank %d: all_reduce %.1f conv %.4f" % (rank, x[0].item(), y.sum().item()), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
