#!/usr/bin/env python3
"""Compile time of two shardc builds, interleaved: the bundled tiny GPT-2
example end to end (ccache off), and a slice of the ONNX conformance run
(scripts/conformance.py: compile and run every node test matching
--filter).

  bench/bench_compile.py BASE_DIR [--rounds 3] [--filter REGEX]

BASE_DIR holds the reference build as scripts/compare-builds.py describes
(shardc, runtime/, include/). Prints each side's best wall time per task
and the ratio new / base.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
PY = "/usr/bin/python3"


def timed(cmd, env):
    t = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode:
        sys.exit("failed: %s\n%s%s" % (" ".join(cmd), p.stdout[-2000:], p.stderr[-2000:]))
    return time.time() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("base")
    ap.add_argument("--new", default=os.path.join(ROOT, "build", "tools", "shardc", "shardc"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--filter", default="test_(add|mul|sub|relu|sigmoid|softmax|matmul|gemm|conv|reduce_sum|transpose|concat|gather|layer_normalization)")
    args = ap.parse_args()
    base_env = dict(os.environ, SHARDC_NO_CCACHE="1",
                    SHARDC_RUNTIME_LIB_DIR=os.path.join(args.base, "runtime"),
                    SHARDC_RUNTIME_INCLUDE_DIR=os.path.join(args.base, "include"))
    new_env = dict(os.environ, SHARDC_NO_CCACHE="1")
    sides = {"base": (os.path.join(args.base, "shardc"), base_env),
             "new": (args.new, new_env)}
    work = tempfile.mkdtemp(prefix="shardc-bench-compile-")
    gpt = os.path.join(ROOT, "examples", "tiny_gpt2.onnx")
    best = {}
    for r in range(args.rounds):
        for side, (shardc, env) in sides.items():
            t = timed([shardc, gpt, "--input-shape", "ids=1x16", "-o",
                       os.path.join(work, "gpt_" + side)], env)
            best.setdefault(("tiny GPT-2 compile", side), []).append(t)
            t = timed([PY, os.path.join(ROOT, "scripts", "conformance.py"), "--shardc", shardc,
                       "--filter", args.filter], env)
            best.setdefault(("conformance slice", side), []).append(t)
        print("round %d done" % (r + 1), flush=True)
    for task in ("tiny GPT-2 compile", "conformance slice"):
        b, n = min(best[(task, "base")]), min(best[(task, "new")])
        print("%-20s base %.2f s, new %.2f s, new/base %.3f" % (task, b, n, n / b))


if __name__ == "__main__":
    main()
