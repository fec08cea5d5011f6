#!/usr/bin/env python3
"""fp32 against bf16 and int8 on the CPU: GPT-2-small at B x S
(bench/make_big_models.py gpt2 --batch B --seq S), compiled once per
variant (`bf16`: `--precision=bf16`, bf16 GEMMs on oneDNN, AMX where the
CPU has it; `int8`: `--quantize=int8` calibrated on the timed input;
`int8-dynamic`), each run with `--benchmark` at `--threads N` in
interleaved rounds; prints each best p50, its speed-up over fp32, and its
agreement with fp32 on the same input: top-1 (argmax over the vocabulary
per token) and the cosine of the logits.

  bench/bench_bf16.py [--batch 8] [--seq 512] [--threads 2] [--iterations 3]
                      [--variants fp32,bf16[,int8,int8-dynamic]] [--rounds 1]
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
    ap.add_argument("--variants", default="fp32,bf16")
    ap.add_argument("--rounds", type=int, default=1)
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
    calibration = os.path.join(work, "calibration")
    os.makedirs(calibration, exist_ok=True)
    np.save(os.path.join(calibration, "ids.npy"), np.load(ids))
    flags = {"fp32": [], "bf16": ["--precision=bf16"],
             "int8": ["--quantize=int8", "--calibration=" + calibration],
             "int8-dynamic": ["--quantize=int8-dynamic"]}
    variants = args.variants.split(",")
    if "fp32" not in variants:
        variants.insert(0, "fp32")
    logits, times = {}, {v: [] for v in variants}
    for v in variants:
        exe = os.path.join(work, v)
        run([args.shardc, model, "--input-shape", shape, "-o", exe] + flags[v])
        out = os.path.join(work, v + ".out")
        run([exe, "--input", "ids=" + ids, "--output", out, "--threads", str(args.threads)])
        logits[v] = np.load(os.path.join(out, "logits.npy")).astype(np.float64)
    for _ in range(args.rounds):
        for v in variants:
            bench = run([os.path.join(work, v), "--input", "ids=" + ids, "--benchmark",
                         "--warmup", "1", "--iterations", str(args.iterations),
                         "--threads", str(args.threads)])
            times[v].append(p50(bench))
    t32, y32 = min(times["fp32"]), logits["fp32"]
    print("GPT-2-small %dx%d, %d threads, best p50 of %d rounds: fp32 %.1f ms"
          % (args.batch, args.seq, args.threads, args.rounds, t32))
    for v in variants[1:]:
        t, y = min(times[v]), logits[v]
        top1 = float((y32.argmax(-1) == y.argmax(-1)).mean())
        a, b = y32.ravel(), y.ravel()
        cos = float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))
        print("  %s %.1f ms (%.2fx faster than fp32); top-1 agreement %.4f, logit cosine %.6f"
              % (v, t, t32 / t, top1, cos))


if __name__ == "__main__":
    sys.exit(main())
