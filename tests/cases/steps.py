"""The program of a corpus case (tests/cases/README.md): does, with ctypes,
what the failing framework did, one step at a time, and fails the way it
failed.  argv[1] is a JSON list of steps:

  {"open": PATH-OR-NAME, "as": H, "global": true}   ctypes.CDLL (RTLD_LOCAL unless global)
  {"call": "H.func", "args": [...], "ptr": true}    rc = func(args..., &int) ; ok when rc == expect (0)
  {"cudnn_version": H, "at_least": N, "same": N}   cudnnGetVersion() checked as a framework does
  {"probe": H, "name": NAME, "sym": SYMBOL}        H's gt_probe: dlopen(NAME) from inside H, then dlsym
  {"sym": H, "name": SYMBOL}                       dlsym on a loaded handle
  {"print": TEXT}
  {"fork_pool": [STEPS]}                           the call steps in a multiprocessing Pool worker
                                                   started by fork; a failing one fails here

A failing step prints its "fail" text (with {err}, {rc}, {out}, {maj}, {min},
{patch} filled in) and exits with "exit" (default 1), or aborts when "abort"
is set, as C++ frameworks do.  Steps with "then_ok" end the program with
status 0 after a failure (a framework that falls back to the CPU); steps with
"go_on" print their text and carry on (an optional plug-in a library probes
for and does without, as NCCL does for libnccl-net.so)."""
import ctypes
import json
import os
import sys


def cudnn_parts(v):
    if v >= 10000:
        return v // 10000, (v % 10000) // 100, v % 100
    return v // 1000, (v % 1000) // 100, v % 100


def fail(step, **kw):
    text = step.get("fail", "{err}")
    for k, v in kw.items():
        text = text.replace("{%s}" % k, str(v))
    print(text, flush=True)
    if step.get("go_on"):
        return
    if step.get("then_ok"):
        print(step["then_ok"], flush=True)
        sys.exit(0)
    if step.get("abort"):
        sys.stdout.flush()
        os.abort()
    sys.exit(step.get("exit", 1))


handles = {}


def call_rc(step):
    h, fn = step["call"].split(".", 1)
    args = [ctypes.c_void_p(a) if a is None else a for a in step.get("args", [])]
    out = ctypes.c_int(0)
    if step.get("ptr"):
        args.append(ctypes.byref(out))
    return getattr(handles[h], fn)(*args), out.value


def worker_steps(steps):
    """In a forked worker: the call steps; the first failing one's text, else None."""
    for step in steps:
        rc, out = call_rc(step)
        if rc != step.get("expect", 0):
            return step.get("fail", "{rc}").replace("{rc}", str(rc)).replace("{out}", str(out))
    return None


def main():
    for step in json.loads(sys.argv[1]):
        if "open" in step:
            mode = ctypes.RTLD_GLOBAL if step.get("global") else ctypes.RTLD_LOCAL
            try:
                handles[step.get("as", "_")] = ctypes.CDLL(step["open"], mode=mode)
            except OSError as e:
                fail(step, err=e)
        elif "call" in step:
            rc, out = call_rc(step)
            if rc != step.get("expect", 0):
                fail(step, rc=rc, out=out)
            if step.get("print"):
                print(step["print"].replace("{rc}", str(rc)).replace("{out}", str(out)), flush=True)
        elif "fork_pool" in step:
            import multiprocessing
            with multiprocessing.get_context("fork").Pool(1) as pool:
                err = pool.apply(worker_steps, (step["fork_pool"],))
            if err:
                fail(step, err=err)
        elif "cudnn_version" in step:
            f = handles[step["cudnn_version"]].cudnnGetVersion
            f.restype = ctypes.c_size_t
            v = f()
            maj, mi, pa = cudnn_parts(v)
            need = step.get("at_least") or step.get("same")
            nmaj, nmi, npa = cudnn_parts(need)
            bad = maj != nmaj or (step.get("at_least") and (mi, pa) < (nmi, npa)) or \
                (step.get("same") and v != need)
            if bad:
                fail(step, maj=maj, min=mi, patch=pa, rc=v)
            print("cudnn %d.%d.%d" % (maj, mi, pa), flush=True)
        elif "probe" in step:
            buf = ctypes.create_string_buffer(1024)
            f = handles[step["probe"]].gt_probe
            rc = f(step["name"].encode(), step.get("sym", "").encode(), buf, ctypes.c_ulong(1024))
            if rc:
                fail(step, err=buf.value.decode(errors="replace"), rc=rc)
        elif "sym" in step:
            try:
                getattr(handles[step["sym"]], step["name"])
            except AttributeError as e:
                fail(step, err=e)
        elif "print" in step:
            print(step["print"], flush=True)
    print("ok", flush=True)


if __name__ == "__main__":
    main()
