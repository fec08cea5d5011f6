#!/usr/bin/env python3
"""Tensor-parallel scaling on CPU ranks: a GEMM-bound GPT-2-style decoder
(d=1024, 16 heads, 4 layers, batch 4 x 128 tokens, fp32) compiled by shardc
for one rank and with --tp=2, timed with the executables' --benchmark.

  bench/bench_tp.py [--iterations 10] [--warmup 2] [--rounds 3]
                    [--shardc build/tools/shardc/shardc] [--markdown FILE]

Runs, interleaved round by round (each reports its best p50):
  one rank, 1 thread          (the baseline)
  TP=2, 1 thread per rank     (mpirun -np 2): parallel efficiency =
                              t(1 rank) / (2 * t(TP=2))
  one rank, 2 threads         (OpenMP inside one process): TP=2 x 1 thread
                              against it is the ratio reported
The outputs of TP=2 are checked against one rank's (1e-5 relative) first.
"""
import argparse
import os
import sys
import tempfile

import numpy as np

from benchutil import PY, ROOT, p50, run

EXPORT = r'''
import sys, torch
sys.path.insert(0, %(inputs)r)
from export_models import GPT2
torch.manual_seed(0)
model = GPT2(vocab=1024, d=1024, heads=16, layers=4, ctx=128).eval()
ids = torch.randint(0, 1024, (4, 128))
torch.onnx.export(model, (ids,), %(path)r, input_names=["ids"], output_names=["logits"],
                  opset_version=17)
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iterations", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--shardc", default=os.path.join(ROOT, "build", "tools", "shardc", "shardc"))
    ap.add_argument("--markdown")
    args = ap.parse_args()
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    work = tempfile.mkdtemp(prefix="shardc-bench-tp-")
    onnx_path = os.path.join(work, "gpt2_d1024.onnx")
    run([PY, "-c", EXPORT % {"inputs": os.path.join(ROOT, "test", "Models", "Inputs"),
                            "path": onnx_path}])
    ids = os.path.join(work, "ids.npy")
    np.save(ids, (np.arange(4 * 128, dtype=np.int64).reshape(4, 128) * 7) % 1024)
    one, tp2 = os.path.join(work, "one"), os.path.join(work, "tp2")
    run([args.shardc, onnx_path, "-o", one])
    run([args.shardc, onnx_path, "--tp=2", "-o", tp2])

    # Correctness first.
    run([one, "--input", "ids=" + ids, "--output", one + ".out"])
    run(["mpirun", "--oversubscribe", "-np", "2", tp2, "--input", "ids=" + ids,
         "--output", tp2 + ".out"], env)
    a = np.load(one + ".out/logits.npy").astype(np.float64)
    b = np.load(tp2 + ".out/logits.npy").astype(np.float64)
    err = float(np.max(np.abs(a - b)) / np.max(np.abs(a)))
    print("TP=2 vs one rank: max_rel_err=%.3g" % err)
    if err > 1e-5:
        sys.exit("TP=2 differs from one rank")

    bench = ["--input", "ids=" + ids, "--benchmark", "--warmup", str(args.warmup),
             "--iterations", str(args.iterations)]
    best = {"one rank, 1 thread": [], "TP=2, 1 thread per rank": [],
            "one rank, 2 threads": []}
    for r in range(args.rounds):
        best["one rank, 1 thread"].append(p50(run([one, "--threads", "1"] + bench)))
        best["TP=2, 1 thread per rank"].append(p50(run(
            ["mpirun", "--oversubscribe", "--bind-to", "core", "-np", "2", tp2,
             "--threads", "1"] + bench, env)))
        best["one rank, 2 threads"].append(p50(run([one, "--threads", "2"] + bench)))
        print("round %d: %s" % (r + 1, ", ".join("%s %.1f ms" % (k, v[-1]) for k, v in best.items())))
    t1 = min(best["one rank, 1 thread"])
    t2 = min(best["TP=2, 1 thread per rank"])
    t12 = min(best["one rank, 2 threads"])
    eff = t1 / (2 * t2)
    lines = [
        "| configuration | p50 (ms) |",
        "|---|---|",
        "| one rank, 1 thread | %.1f |" % t1,
        "| TP=2, 1 thread per rank (mpirun -np 2) | %.1f |" % t2,
        "| one rank, 2 threads | %.1f |" % t12,
        "",
        "Parallel efficiency of TP=2 against one rank with one thread: "
        "%.0f%% (t1 / (2 t2)); TP=2 x 1 thread / one rank x 2 threads: %.2f." % (100 * eff, t2 / t12),
    ]
    print("\n".join(lines))
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
