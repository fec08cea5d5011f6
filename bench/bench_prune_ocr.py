#!/usr/bin/env python3
"""Convolution channel pruning's accuracy and speed curve on PP-OCRv4's
text recognizer with its real weights (issue 31; the rapidocr-onnxruntime
wheel's ch_PP-OCRv4_rec_infer.onnx), against the unpruned model and ONNX
Runtime 1.31.

  bench/bench_prune_ocr.py [--fractions 0.1,0.2,0.3,0.4,0.5] [--threads 2]
                           [--iterations 60] [--rounds 3]

Each `--prune=conv:R` program is calibrated on the 8 calibration lines of
test/Integration/Inputs/ocr_lines.py and reads its 16 evaluation lines
(other text): character accuracy and lines read exactly (greedy CTC), and
the share of time steps whose best class stays the unpruned program's
(argmax agreement). FLOPs are the compiler's estimate (`shardc -v`: MFLOP
per step times steps). Speed: each executable and an ONNX Runtime session
of the unpruned model (its own process) on one line, in turn, best p50 of
interleaved rounds.
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchutil import ORT_WORKER, PY, ROOT, p50, run  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "test", "Integration", "Inputs"))
import ocr_lines  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shardc", default=os.path.join(ROOT, "build", "tools", "shardc", "shardc"))
    ap.add_argument("--fractions", default="0.1,0.2,0.3,0.4,0.5")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=60)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    model = os.path.join(ocr_lines.models_dir(), "ch_PP-OCRv4_rec_infer.onnx")
    chars = ocr_lines.characters(model)
    with tempfile.TemporaryDirectory() as work:
        ocr_lines.write_inputs(work)
        configs = [("none", [])] + [
            ("conv:%s" % r, ["--prune=conv:%s" % r, "--calibration", os.path.join(work, "cal")])
            for r in args.fractions.split(",")]
        rows, steps0 = [], None
        for name, flags in configs:
            exe = os.path.join(work, name.replace(":", "_"))
            log = run([args.shardc, model, "--input-shape", "x=1x3x48x320", "-o", exe, "-v"] + flags)
            m = re.search(r"([0-9.]+) MFLOP per step \(([0-9]+) ", log)
            mflop = float(m.group(1)) * int(m.group(2))
            probs = []
            for i in range(len(ocr_lines.EVALUATION)):
                out = exe + ".out%d" % i
                run([exe, "--input", "x=%s" % os.path.join(work, "eval%d.npy" % i), "--output", out])
                probs.append(np.load(glob.glob(os.path.join(out, "*.npy"))[0]))
            steps = np.concatenate([p[0].argmax(-1) for p in probs])
            steps0 = steps if steps0 is None else steps0
            acc, exact = ocr_lines.score([ocr_lines.decode(p, chars) for p in probs])
            rows.append([name, mflop, acc, exact, float(np.mean(steps == steps0)), exe, float("inf")])
        line = "x=" + os.path.join(work, "eval0.npy")
        theirs = float("inf")
        for _ in range(args.rounds):
            for r in rows:
                r[6] = min(r[6], p50(run([r[5], "--input", line, "--benchmark", "--threads",
                                          str(args.threads), "--iterations",
                                          str(args.iterations)])))
            theirs = min(theirs, p50(run([PY, "-c", ORT_WORKER, model, str(args.threads),
                                          str(args.iterations), "5", line])))
        print("| configuration | MFLOP | char accuracy | lines exact | argmax agreement "
              "| p50 (ms) | speedup | ONNX Runtime ratio |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for name, mflop, acc, exact, agree, _, t in rows:
            print("| %s | %.0f (%.0f%%) | %.4f | %d/16 | %.3f | %.2f | %.2fx | %.2fx |" % (
                name, mflop, 100 * mflop / rows[0][1], acc, exact, agree, t, rows[0][6] / t,
                t / theirs))
        print("ONNX Runtime (unpruned) p50 %.2f ms" % theirs)


if __name__ == "__main__":
    main()
