# A fork Pool after CUDA init whose task uses CUDA (chainer#1087, pytorch's
# "Cannot re-initialize CUDA in forked subprocess"): used by longtail.sh,
# copies_gpu.sh and forkpool_loop.sh.
import multiprocessing as mp
import torch
x = torch.zeros(1, device="cuda")   # the parent initialises CUDA
def f(i):
    return torch.ones(1, device="cuda").sum().item()
if __name__ == "__main__":
    with mp.get_context("fork").Pool(2) as p:
        print(p.map(f, range(2)))
