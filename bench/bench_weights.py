#!/usr/bin/env python3
"""Weights at scale: how fast shardc turns a model's weights into its
weights file, and how much memory it needs (docs/performance.md, "Weights
at scale").

  bench/bench_weights.py [--models DIR] [--out DIR] [--modes fp32,fp16,tp2]
                         [--which gpt2,stack] [--shardc PATH] [--base DIR]

The models come from bench/make_big_models.py (made in --models when
missing): a GPT-2-small-sized PyTorch export (124 M parameters, one 650 MB
protobuf file) and a stack of 8192x8192 MatMuls with 4.3 GB of fp32 weights
in an external data file. Each compile runs under /usr/bin/time -v with -v:

  weights GB  the model's fp32 weight bytes (initializers)
  wall        the whole compile, .onnx to executable + weights file
  weights s   until the weights file is written: import, precision
              conversion, slicing per rank, checksums, C++ generation and
              the file (the host C++ compile and link, the one stage that
              does not touch weights, runs beside the file's writing)
  cxx s       the host compile and link, from its start to its end
  GB/s        weights GB / wall (end to end), and / weights s
  peak RSS    maximum resident set, against the bound: model files + 1 GB
  cpu         user + system seconds (the machine is shared: compare it with
              wall to see the contention)

--no-ccache compiles the generated C++ without ccache (SHARDC_NO_CCACHE=1),
as a first compile of a new model does; by default a model compiled before
finds its C++ in ccache (a hit needs the same program and the same weights:
their checksums are in the source).

--out is where the executables and weights files go (default: a folder in
/dev/shm, so that the figure is the compiler's, not the disk's; give a
folder on disk to include the disk). --base DIR runs a reference build laid
out as scripts/compare-builds.py describes (DIR/shardc, DIR/runtime,
DIR/include) instead. Outputs are removed after each compile.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
PY = "/usr/bin/python3"
MODES = {"fp32": [], "fp16": ["--precision=fp16"], "bf16": ["--precision=bf16"],
         "tp2": ["--tp=2"]}


def model_files(models, which):
    """The model's path, its files (for the RSS bound) and its weight bytes."""
    if which == "gpt2":
        path = os.path.join(models, "gpt2_small.onnx")
        if not os.path.exists(path):
            subprocess.run([PY, os.path.join(ROOT, "bench", "make_big_models.py"), "gpt2", models],
                           check=True)
        import onnx
        m = onnx.load(path)
        weights = sum(len(t.raw_data) for t in m.graph.initializer)
        return path, [path], weights
    path = os.path.join(models, "stack.onnx")
    data = os.path.join(models, "stack.data")
    if not os.path.exists(path):
        subprocess.run([PY, os.path.join(ROOT, "bench", "make_big_models.py"), "stack", models],
                       check=True)
    return path, [path, data], os.path.getsize(data)


def compile_once(shardc, env, model, flags, out):
    cmd = ["/usr/bin/time", "-v", shardc, model, "-o", os.path.join(out, "m"), "-v"] + flags
    load = os.getloadavg()[0]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), p.stderr[-3000:]))
    err = p.stderr
    # The -v times are cumulative from the start.
    stages = {name: float(ms) / 1000
              for name, ms in re.findall(r"^shardc: (.+?)\s+([0-9.]+) ms$", err, re.M)}
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([0-9.]+)", err)
    wall = int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", err).group(1)) * 1024
    cpu = sum(float(x) for x in re.findall(r"(?:User|System) time \(seconds\): ([0-9.]+)", err))
    wsize = os.path.getsize(os.path.join(out, "m.weights"))
    for f in os.listdir(out):
        os.remove(os.path.join(out, f))
    return wall, stages, rss, cpu, wsize, load


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="/work/bigmodels")
    ap.add_argument("--out", default=None)
    ap.add_argument("--modes", default="fp32,fp16,tp2")
    ap.add_argument("--which", default="gpt2,stack")
    ap.add_argument("--shardc", default=os.path.join(ROOT, "build", "tools", "shardc", "shardc"))
    ap.add_argument("--base", default=None, help="reference build dir (compare-builds.py layout)")
    ap.add_argument("--rounds", type=int, default=1, help="best of N")
    ap.add_argument("--no-ccache", action="store_true", help="compile without ccache")
    args = ap.parse_args()
    env = dict(os.environ)
    if args.no_ccache:
        env["SHARDC_NO_CCACHE"] = "1"
    shardc = args.shardc
    if args.base:
        shardc = os.path.join(args.base, "shardc")
        env.update(SHARDC_RUNTIME_LIB_DIR=os.path.join(args.base, "runtime"),
                   SHARDC_RUNTIME_INCLUDE_DIR=os.path.join(args.base, "include"))
    out = args.out or "/dev/shm/shardc-bench-weights-%d" % os.getpid()
    os.makedirs(out, exist_ok=True)
    os.makedirs(args.models, exist_ok=True)
    print("%-6s %-5s %8s %7s %9s %6s %7s %7s %9s %9s %6s %5s" % (
        "model", "mode", "weights", "wall s", "weights s", "cxx s", "GB/s", "GB/s w",
        "peak RSS", "bound", "cpu s", "load"))
    try:
        for which in args.which.split(","):
            model, files, wbytes = model_files(args.models, which)
            bound = sum(os.path.getsize(f) for f in files) + 2**30
            for mode in args.modes.split(","):
                best = None
                for _ in range(args.rounds):
                    r = compile_once(shardc, env, model, MODES[mode], out)
                    if best is None or r[0] < best[0]:
                        best = r
                wall, stages, rss, cpu, wsize, load = best
                wstages = stages["weights written"]
                # The compile starts once the C++ is generated (and NVRTC ran).
                cxx = stages["compiled and linked"] - max(
                    t for n, t in stages.items() if n not in ("weights written", "compiled and linked"))
                print("%-6s %-5s %7.2fG %7.2f %9.2f %6.2f %7.2f %7.2f %8.2fG %8.2fG%s %6.1f %5.1f" % (
                    which, mode, wbytes / 1e9, wall, wstages, cxx, wbytes / 1e9 / wall,
                    wbytes / 1e9 / wstages, rss / 2**30, bound / 2**30,
                    " " if rss < bound else "!", cpu, load), flush=True)
    finally:
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
