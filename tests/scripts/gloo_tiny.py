"""Test script for torchrun: init_process_group("gloo"), one all_reduce of a
tensor, print the result.  With GLOO_TINY_FAIL_RANK=R set, rank R exits with
status 3 after the all_reduce (the job's exit status must be kept)."""
import os
import sys

import torch
import torch.distributed as dist


def main():
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    t = torch.tensor([float(rank + 1)])
    dist.all_reduce(t)
    print("rank %d of %d: all_reduce = %g" % (rank, world, t.item()), flush=True)
    dist.destroy_process_group()
    if os.environ.get("GLOO_TINY_FAIL_RANK") == str(rank):
        sys.exit(3)


if __name__ == "__main__":
    main()
