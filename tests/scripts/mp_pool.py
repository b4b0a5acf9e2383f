"""Test script: a Pool of 2 workers with fork and with spawn; prints 285 twice."""
import multiprocessing as mp


def square(x):
    return x * x


if __name__ == "__main__":
    for method in ("fork", "spawn"):
        with mp.get_context(method).Pool(2) as pool:
            print(sum(pool.map(square, range(10))), flush=True)
