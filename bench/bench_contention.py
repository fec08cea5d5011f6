#!/usr/bin/env python3
"""CPU latency under contention: shardc executables and ONNX Runtime, each
in its own process, with and without busy-loop processes on the cores.

  bench/bench_contention.py [--models mobilenet_v3_small,cnn,tiny_gpt2]
                            [--busy N] [--pin] [--threads 2]
                            [--iterations 100] [--warmup 10] [--rounds 5]
                            [--env NAME=VALUE ...] [--markdown FILE]

Models come from bench/bench_cpu.py's setup (torch exports through
test/Models/Inputs/torch_reference.py; tiny_gpt2 is the bundled example),
compiled with shardc's defaults. Two phases, quiet (nothing else started)
and loaded (`--busy` processes spinning in `while True: pass`, default one
per core, pinned one to a core with `--pin`, else left to the scheduler).
In each phase the executable (`--benchmark --threads N`) and an ONNX
Runtime session (intra_op_num_threads=N, inter_op_num_threads=1,
sequential, in a fresh `python3` process of its own, not this one) run in
turn, `--rounds` times over; each side reports its best p50. The slowdown
of a side is its loaded p50 over its quiet p50.

`--env NAME=VALUE` sets variables for the executable only (to compare
OpenMP settings such as OMP_WAIT_POLICY or GOMP_SPINCOUNT against the
runtime's own choice).

The machine this runs on is usually shared: the quiet phase is only as
quiet as the other users leave it, hence the interleaved rounds and best
p50s (docs/performance.md, "Under contention").
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_cpu  # noqa: E402  (prepare(), ROOT, PY)
from benchutil import ORT_WORKER  # noqa: E402  (a process of its own)


def p50_of(out, what):
    m = re.search(r"p50=([0-9.]+)", out)
    if not m:
        sys.exit("no latency line from %s:\n%s" % (what, out))
    return float(m.group(1))


def start_busy(n, pin):
    """n processes spinning forever; pinned to cores round-robin with pin."""
    cores = sorted(os.sched_getaffinity(0))
    procs = []
    for i in range(n):
        core = cores[i % len(cores)]
        pre = (lambda c=core: os.sched_setaffinity(0, {c})) if pin else None
        procs.append(subprocess.Popen([bench_cpu.PY, "-c", "while True: pass"],
                                      preexec_fn=pre))
    time.sleep(0.5)  # let them reach the loop
    return procs


def stop_busy(procs):
    for p in procs:
        p.kill()
    for p in procs:
        p.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default="mobilenet_v3_small,cnn,tiny_gpt2")
    ap.add_argument("--busy", type=int, default=len(os.sched_getaffinity(0)),
                    help="busy-loop processes in the loaded phase (default: one per core)")
    ap.add_argument("--pin", action="store_true", help="pin each busy loop to one core")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--env", action="append", default=[],
                    help="NAME=VALUE for the shardc executable only")
    ap.add_argument("--shardc", default=os.path.join(bench_cpu.ROOT, "build", "tools",
                                                     "shardc", "shardc"))
    ap.add_argument("--markdown", help="append the table to this file")
    args = ap.parse_args()

    exe_env = dict(os.environ)
    for kv in args.env:
        k, v = kv.split("=", 1)
        exe_env[k] = v
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for name in args.models.split(","):
            model, inp, x, flag = bench_cpu.prepare(name, work)
            xin = os.path.join(work, name + ".in.npy")
            np.save(xin, x)
            exe = os.path.join(work, name)
            subprocess.check_call([args.shardc, model, "--input-shape", flag, "-o", exe])

            def ours():
                out = subprocess.check_output(
                    [exe, "--input", "%s=%s" % (inp, xin), "--benchmark", "--threads",
                     str(args.threads), "--iterations", str(args.iterations),
                     "--warmup", str(args.warmup)],
                    text=True, stderr=subprocess.STDOUT, env=exe_env)
                return p50_of(out, exe)

            def theirs():
                out = subprocess.check_output(
                    [bench_cpu.PY, "-c", ORT_WORKER, model, str(args.threads),
                     str(args.iterations), str(args.warmup), "%s=%s" % (inp, xin)],
                    text=True, stderr=subprocess.STDOUT)
                return p50_of(out, "onnxruntime")

            best = {}
            for phase in ("quiet", "loaded"):
                busy = start_busy(args.busy, args.pin) if phase == "loaded" else []
                try:
                    o = t = float("inf")
                    for _ in range(args.rounds):
                        o = min(o, ours())
                        t = min(t, theirs())
                finally:
                    stop_busy(busy)
                best[phase] = (o, t)
            (oq, tq), (ol, tl) = best["quiet"], best["loaded"]
            rows.append((name, oq, ol, ol / oq, tq, tl, tl / tq))
            print("%-20s shardc %7.3f -> %7.3f ms (%.2fx)   onnxruntime %7.3f -> %7.3f ms "
                  "(%.2fx)" % rows[-1], flush=True)

    if args.markdown:
        import onnxruntime
        env = " ".join(args.env) or "none"
        lines = ["", "Threads: %d, %d busy-loop processes (%s), iterations: %d (warm-up %d), "
                 "best p50 of %d interleaved rounds per phase; onnxruntime %s in its own "
                 "process; extra environment of the executable: %s." % (
                     args.threads, args.busy, "pinned" if args.pin else "not pinned",
                     args.iterations, args.warmup, args.rounds, onnxruntime.__version__, env),
                 "",
                 "| model | shardc quiet (ms) | shardc loaded (ms) | slowdown | "
                 "ORT quiet (ms) | ORT loaded (ms) | slowdown |",
                 "|---|---:|---:|---:|---:|---:|---:|"]
        lines += ["| %s | %.3f | %.3f | %.2fx | %.3f | %.3f | %.2fx |" % r for r in rows]
        with open(args.markdown, "a") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
