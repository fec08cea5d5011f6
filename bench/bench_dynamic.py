#!/usr/bin/env python3
"""What one executable for every shape costs (bounded dynamic dims, issue
32): all-MiniLM-L6-v2 with its real weights (exported with dynamic batch and
sequence axes) compiled once with --max-shape ids=8x128, against an
executable compiled for exactly that shape with --input-shape, and ONNX
Runtime (which runs every shape) in a process of its own, at several
shapes. Best p50 of interleaved rounds.

  bench/bench_dynamic.py [--shapes 8x128,1x128,1x16] [--threads 2] [--markdown FILE]
"""
import argparse
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from benchutil import ORT_WORKER, PY, ROOT, p50, run  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shapes", default="8x128,1x128,1x16")
    ap.add_argument("--bound", default="8x128")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--keep")
    ap.add_argument("--shardc", default=os.path.join(ROOT, "build", "tools", "shardc", "shardc"))
    ap.add_argument("--markdown")
    args = ap.parse_args()

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or tmp
        os.makedirs(work, exist_ok=True)
        run([PY, os.path.join(ROOT, "test", "Integration", "Inputs", "export_bert.py"), work, "17"])
        model = os.path.join(work, "bert.onnx")
        bounded = os.path.join(work, "bounded")
        run([args.shardc, model, "-o", bounded, "--max-shape", "ids=" + args.bound])
        bench = ["--benchmark", "--threads", str(args.threads), "--iterations",
                 str(args.iterations), "--warmup", str(args.warmup)]
        rng = np.random.RandomState(0)
        for shape in args.shapes.split(","):
            b, s = (int(v) for v in shape.split("x"))
            feeds = {"ids": rng.randint(1000, 30000, (b, s)).astype(np.int64),
                     "mask": np.ones((b, s), np.int64),
                     "types": np.zeros((b, s), np.int64)}
            pairs = []
            for k, v in feeds.items():
                path = os.path.join(work, "%s_%s.npy" % (k, shape))
                np.save(path, v)
                pairs.append("%s=%s" % (k, path))
            fixed = os.path.join(work, "fixed_" + shape)
            run([args.shardc, model, "-o", fixed] +
                sum((["--input-shape", "%s=%s" % (k, shape)] for k in feeds), []))
            inputs = sum((["--input", p] for p in pairs), [])
            best = {"bounded": float("inf"), "fixed": float("inf"), "ort": float("inf")}
            for _ in range(args.rounds):
                best["bounded"] = min(best["bounded"], p50(run([bounded] + inputs + bench)))
                best["fixed"] = min(best["fixed"], p50(run([fixed] + inputs + bench)))
                best["ort"] = min(best["ort"], p50(run(
                    [PY, "-c", ORT_WORKER, model, str(args.threads), str(args.iterations),
                     str(args.warmup)] + pairs)))
            rows.append((shape, best["bounded"], best["fixed"], best["ort"],
                         best["bounded"] / best["fixed"], best["bounded"] / best["ort"]))
            print("%-7s bounded %8.3f ms  --input-shape %8.3f ms  onnxruntime %8.3f ms  "
                  "bounded/fixed %.2fx  bounded/ort %.2fx" % rows[-1], flush=True)

    if args.markdown:
        import onnxruntime
        lines = ["", "all-MiniLM-L6-v2, one executable with --max-shape ids=%s against one "
                 "per shape (--input-shape) and ONNX Runtime %s (own process); threads %d, "
                 "iterations %d (warm-up %d), best p50 of %d interleaved rounds." % (
                     args.bound, onnxruntime.__version__, args.threads, args.iterations,
                     args.warmup, args.rounds), "",
                 "| shape | bounded (ms) | --input-shape (ms) | ONNX Runtime (ms) | bounded / fixed | bounded / ORT |",
                 "|---|---:|---:|---:|---:|---:|"]
        lines += ["| %s | %.3f | %.3f | %.3f | %.2fx | %.2fx |" % r for r in rows]
        with open(args.markdown, "a") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
