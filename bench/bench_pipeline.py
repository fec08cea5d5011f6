#!/usr/bin/env python3
"""Pipeline parallelism on CPU ranks: the bubble measured from the
executables' traces against (p-1)/(m+p-1), and throughput against one rank.

  bench/bench_pipeline.py [--stages 2,4] [--microbatches 1,2,4,8]
                          [--iterations 6] [--warmup 2]
                          [--shardc build/tools/shardc/shardc]

The model has equal stages by construction: 8 identical residual MLP layers
(x + relu(x W1) W2, hidden 256, inner 1024) on a [16, 64, 256] fp32 batch,
made with onnx.helper. For each p and m, shardc --pp=p --microbatches=m
builds it, mpirun -np p runs it with one thread per rank (--benchmark, a
trace of every run), and scripts/pipeline-trace.py reports the median
bubble over the timed runs. Throughput (inferences/s, rank 0's --benchmark)
is compared with one rank, one thread. Outputs are checked against one
rank's (1e-5 relative) first. p = 4 runs 4 ranks on this machine's 2 cores
(oversubscribed; Open MPI told to yield when idle).
"""
import argparse
import os
import re
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import benchutil
from benchutil import MPI_ENV, PY, ROOT


def make_model(path, layers=8, batch=16, seq=64, hidden=256, inner=1024):
    rng = np.random.default_rng(0)
    nodes, inits = [], []
    x = "x"
    for i in range(layers):
        w1 = rng.standard_normal((hidden, inner), np.float32) / np.sqrt(hidden)
        w2 = rng.standard_normal((inner, hidden), np.float32) / np.sqrt(inner)
        inits += [numpy_helper.from_array(w1, "w1_%d" % i),
                  numpy_helper.from_array(w2, "w2_%d" % i)]
        nodes += [helper.make_node("MatMul", [x, "w1_%d" % i], ["a%d" % i]),
                  helper.make_node("Relu", ["a%d" % i], ["r%d" % i]),
                  helper.make_node("MatMul", ["r%d" % i, "w2_%d" % i], ["m%d" % i]),
                  helper.make_node("Add", ["m%d" % i, x], ["h%d" % i])]
        x = "h%d" % i
    nodes.append(helper.make_node("Identity", [x], ["y"]))
    graph = helper.make_graph(
        nodes, "mlp_stack",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", seq, hidden])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", seq, hidden])],
        inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    np.save(os.path.join(os.path.dirname(path), "x.npy"),
            rng.standard_normal((batch, seq, hidden), np.float32))
    return "x=%dx%dx%d" % (batch, seq, hidden)


def run(cmd):
    return benchutil.run(cmd, MPI_ENV)


def throughput(text):
    m = re.search(r"latency_ms p50=([0-9.]+).*throughput=([0-9.]+)", text)
    return float(m.group(1)), float(m.group(2))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stages", default="2,4")
    ap.add_argument("--microbatches", default="1,2,4,8")
    ap.add_argument("--iterations", type=int, default=6)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--shardc", default=os.path.join(ROOT, "build/tools/shardc/shardc"))
    args = ap.parse_args()
    d = tempfile.mkdtemp(prefix="bench_pp")
    model = os.path.join(d, "mlp.onnx")
    shape = make_model(model)
    xs = os.path.join(d, "x.npy")
    bench = ["--benchmark", "--warmup", str(args.warmup), "--iterations",
             str(args.iterations), "--threads", "1"]
    run([args.shardc, model, "--input-shape", shape, "-o", os.path.join(d, "one")])
    run([os.path.join(d, "one"), "--input", "x=" + xs, "--output", os.path.join(d, "one.out")])
    base_lat, base_tp = throughput(run([os.path.join(d, "one"), "--input", "x=" + xs] + bench))
    print("one rank, 1 thread: p50 %.1f ms, %.2f inferences/s" % (base_lat, base_tp))
    print("| p | m | bubble measured | (p-1)/(m+p-1) | ratio | p50 ms | throughput vs 1 rank |")
    print("|---|---|---|---|---|---|---|")
    for p in [int(v) for v in args.stages.split(",")]:
        for m in [int(v) for v in args.microbatches.split(",")]:
            exe = os.path.join(d, "pp%d_m%d" % (p, m))
            run([args.shardc, model, "--input-shape", shape, "--pp=%d" % p,
                 "--microbatches=%d" % m, "-o", exe])
            mpi = ["mpirun", "--oversubscribe", "--mca", "mpi_yield_when_idle", "1",
                   "-np", str(p), exe, "--input", "x=" + xs]
            out = exe + ".out"
            run(mpi + ["--output", out])
            run([PY, os.path.join(ROOT, "scripts/compare-npy.py"),
                 os.path.join(out, "y.npy"), os.path.join(d, "one.out", "y.npy"),
                 "--rtol", "1e-5"])
            trace = exe + ".json"
            lat, tp = throughput(run(mpi + bench + ["--trace", trace]))
            summary = run([PY, os.path.join(ROOT, "scripts/pipeline-trace.py"),
                           trace, "--skip", str(args.warmup)]).strip().splitlines()[-1]
            b = re.search(r"bubble ([0-9.]+), ideal \S+ ([0-9.]+)", summary)
            measured, ideal = float(b.group(1)), float(b.group(2))
            print("| %d | %d | %.3f | %.3f | %s | %.1f | %.2fx |" % (
                p, m, measured, ideal,
                "%.2f" % (measured / ideal) if ideal > 0 else "-", lat, tp / base_tp))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
