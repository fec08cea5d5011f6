#!/usr/bin/env python3
"""int8 latency on the CPU against ONNX Runtime's int8 (issue 30): the same
model as fp32, `--quantize=int8-dynamic` and `--quantize=int8` (static,
calibrated on the timed input), and ONNX Runtime 1.31 on the fp32 model and
on the model ONNX Runtime's `quantize_dynamic` would make, each in a
process of its own, in turn; best p50 of interleaved rounds.

  bench/bench_int8.py [--tokens 8x128,8x64] [--threads 2] [--iterations 30]
                      [--warmup 3] [--rounds 3]

The model is all-MiniLM-L6-v2 with its real weights (export_bert.py).
`onnxruntime.quantization` cannot run here (it needs onnx >= 1.13's
onnx.reference; Debian has 1.12), so its quantize_dynamic default is
rebuilt with onnx.helper: every MatMul of an activation by a float
initializer B becomes DynamicQuantizeLinear(A) (uint8, per tensor, at run
time), B symmetric int8 per tensor (weight_type=QInt8, per_channel=False),
MatMulInteger, Cast to float and Mul by the two scales, the graph that
quantize_dynamic writes and that ONNX Runtime's optimizer fuses into
DynamicQuantizeMatMul. Ratios below 1.0 mean shardc is faster.
"""
import argparse
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchutil import ORT_WORKER, PY, ROOT, p50, run  # noqa: E402


sys.path.insert(0, os.path.join(ROOT, "test", "Integration", "Inputs"))
import make_qdq  # noqa: E402  (ONNX Runtime's quantization tools, rebuilt)


def ort_quantize_dynamic(src, dst):
    """quantize_dynamic(src, dst) with its defaults, rebuilt (make_qdq.py)."""
    return make_qdq.quantize_dynamic(src, dst)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tokens", default="8x128,8x64")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--shardc", default=os.path.join(ROOT, "build", "tools", "shardc", "shardc"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        run([PY, os.path.join(ROOT, "test", "Integration", "Inputs", "export_bert.py"), work, "17"])
        model = os.path.join(work, "bert.onnx")
        qmodel = os.path.join(work, "bert.ort-int8.onnx")
        print("ONNX Runtime int8 model: %d MatMuls quantized" % ort_quantize_dynamic(model, qmodel)[0])
        rng = np.random.RandomState(0)
        for tokens in args.tokens.split(","):
            b, s = map(int, tokens.split("x"))
            sub = os.path.join(work, tokens)
            os.makedirs(os.path.join(sub, "cal"))
            ids = rng.randint(1000, 30000, (b, s)).astype(np.int64)
            mask = np.ones((b, s), np.int64)
            pairs = []
            for name, v in (("ids", ids), ("mask", mask), ("types", np.zeros_like(ids))):
                np.save(os.path.join(sub, "cal", name + ".npy"), v)
                pairs.append("%s=%s" % (name, os.path.join(sub, "cal", name + ".npy")))
            smodel = os.path.join(sub, "bert.qoperator.onnx")
            make_qdq.quantize_static(model, smodel, [os.path.join(sub, "cal")], qoperator=True)
            shapes = sum((["--input-shape", "%s=%s" % (n, tokens)]
                          for n in ("ids", "mask", "types")), [])
            exes = {}
            for label, src, flags in (
                    ("fp32", model, []), ("int8-dynamic", model, ["--quantize=int8-dynamic"]),
                    ("int8", model, ["--quantize=int8", "--calibration", os.path.join(sub, "cal")]),
                    # ONNX Runtime's quantize_dynamic model, compiled by shardc
                    ("ORT's int8 model", qmodel, []),
                    # quantize_static's QOperator model (QLinearMatMul)
                    ("ORT's QOperator", smodel, [])):
                exes[label] = os.path.join(sub, label.replace(" ", "_").replace("'", ""))
                run([args.shardc, src, "-o", exes[label]] + shapes + flags)
            bench = ["--benchmark", "--threads", str(args.threads), "--iterations",
                     str(args.iterations), "--warmup", str(args.warmup)]
            inputs = sum((["--input", p] for p in pairs), [])
            best = {}
            for _ in range(args.rounds):
                for label, exe in exes.items():
                    best[label] = min(best.get(label, 1e30), p50(run([exe] + inputs + bench)))
                for label, path in (("ort fp32", model), ("ort int8", qmodel),
                                    ("ort QOperator", smodel)):
                    t = p50(run([PY, "-c", ORT_WORKER, path, str(args.threads),
                                 str(args.iterations), str(args.warmup)] + pairs))
                    best[label] = min(best.get(label, 1e30), t)
            print("%s tokens, %d threads, best p50 of %d rounds (ms):" % (tokens, args.threads, args.rounds))
            for label, t in best.items():
                print("  %-18s %9.3f   vs ORT int8 %.2fx   vs ORT fp32 %.2fx"
                      % (label, t, t / best["ort int8"], t / best["ort fp32"]))


if __name__ == "__main__":
    main()
