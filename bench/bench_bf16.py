#!/usr/bin/env python3
"""fp32 against bf16 on the CPU: GPT-2-small at B x S (bench/make_big_models.py
gpt2 --batch B --seq S), compiled twice (`--precision=bf16`: bf16 GEMMs on
oneDNN, AMX where the CPU has it), each run with `--benchmark` at
`--threads N`; prints both p50s, the speed-up, and bf16's agreement with
fp32 on the same input: top-1 (argmax over the vocabulary per token) and
the cosine of the logits.

  bench/bench_bf16.py [--batch 8] [--seq 512] [--threads 2] [--iterations 3]
                      [--shardc build/tools/shardc/shardc] [--work DIR]
"""
import argparse
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchutil import PY, ROOT, p50, run  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seq", type=int, default=512)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=3)
    ap.add_argument("--shardc", default=os.path.join(ROOT, "build", "tools", "shardc", "shardc"))
    ap.add_argument("--work")
    args = ap.parse_args()
    work = args.work or tempfile.mkdtemp(prefix="bench_bf16_")
    model = os.path.join(work, "gpt2_small.onnx")
    if not os.path.exists(model):
        run([PY, os.path.join(ROOT, "bench", "make_big_models.py"), "gpt2", work,
             "--batch", str(args.batch), "--seq", str(args.seq)])
    ids = os.path.join(work, "gpt2_small_ids.npy")
    shape = "ids=%dx%d" % (args.batch, args.seq)
    results = {}
    for prec in ("fp32", "bf16"):
        exe = os.path.join(work, prec)
        flags = [] if prec == "fp32" else ["--precision=bf16"]
        run([args.shardc, model, "--input-shape", shape, "-o", exe] + flags)
        out = os.path.join(work, prec + ".out")
        run([exe, "--input", "ids=" + ids, "--output", out, "--threads", str(args.threads)])
        bench = run([exe, "--input", "ids=" + ids, "--benchmark", "--warmup", "1",
                     "--iterations", str(args.iterations), "--threads", str(args.threads)])
        results[prec] = (p50(bench),
                         np.load(os.path.join(out, "logits.npy")).astype(np.float64))
    (t32, y32), (t16, y16) = results["fp32"], results["bf16"]
    top1 = float((y32.argmax(-1) == y16.argmax(-1)).mean())
    a, b = y32.ravel(), y16.ravel()
    cos = float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))
    print("GPT-2-small %dx%d, %d threads: fp32 %.1f ms, bf16 %.1f ms (%.2fx); "
          "top-1 agreement %.4f, logit cosine %.6f"
          % (args.batch, args.seq, args.threads, t32, t16, t32 / t16, top1, cos))


if __name__ == "__main__":
    sys.exit(main())
