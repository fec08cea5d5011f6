#!/usr/bin/env python3
"""Models another tool quantized in ONNX Runtime's QOperator form, on
shardc against ONNX Runtime 1.31 on the same model (issue 30, item 5):

  resnet18   ResNet-18 on its torch weights as quantize_static writes it
             (QLinearConv, make_qdq.py --qoperator; calibrated on the
             reference image and a perturbed copy), 1 x 3 x 224 x 224
  minilm     all-MiniLM-L6-v2 with its real weights, every MatMul quantized
             as quantize_static's default op types do it, the attention
             products of two activations included (make_qdq.py --qoperator
             --activation-matmuls; calibrated on minilm_sentences.py's
             calibration text), 8 x 128 tokens

  bench/bench_qoperator.py [--models resnet18,minilm] [--threads 2]
                           [--iterations 50] [--rounds 3]
                           [--shardc PATH] [--baseline PATH] [--busy N]

Each executable and an ONNX Runtime session in a process of its own, in
turn, best p50 of interleaved rounds. `--baseline` names another shardc
compiler (an older build) whose executables join the rounds. `--busy N`
runs the rounds beside N busy-loop processes (bench/bench_contention.py's
loaded regimes).
"""
import argparse
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchutil import ORT_WORKER, PY, ROOT, p50, run  # noqa: E402
from bench_contention import start_busy, stop_busy  # noqa: E402

INPUTS = os.path.join(ROOT, "test", "Integration", "Inputs")


def prepare(name, work):
    """(QOperator model, {input: .npy path}, [shardc flags])."""
    if name == "resnet18":
        run([PY, os.path.join(ROOT, "test", "Models", "Inputs", "torch_reference.py"),
             "resnet18", "17", work])
        image = os.path.join(work, "resnet18_opset17.input.npy")
        cal = [os.path.join(work, "cal", "0"), os.path.join(work, "cal", "1")]
        for d in cal:
            os.makedirs(d, exist_ok=True)
        np.save(os.path.join(cal[0], "image.npy"), np.load(image))
        run([PY, os.path.join(INPUTS, "perturb.py"), image,
             os.path.join(cal[1], "image.npy"), "0.1"])
        model = os.path.join(work, "resnet18.qop.onnx")
        run([PY, os.path.join(INPUTS, "make_qdq.py"), "--qoperator",
             os.path.join(work, "resnet18_opset17.onnx"), model] + cal)
        return model, {"image": image}, ["--input-shape", "image=1x3x224x224"]
    if name == "minilm":
        run([PY, os.path.join(INPUTS, "export_bert.py"), work, "17"])
        run([PY, os.path.join(INPUTS, "minilm_sentences.py"), "--calibration",
             os.path.join(work, "cal")])
        cal = sorted(os.path.join(work, "cal", d) for d in os.listdir(os.path.join(work, "cal")))
        model = os.path.join(work, "minilm.qop.onnx")
        run([PY, os.path.join(INPUTS, "make_qdq.py"), "--qoperator", "--activation-matmuls",
             os.path.join(work, "bert.onnx"), model] + cal)
        rng = np.random.RandomState(0)
        ids = rng.randint(1000, 30000, (8, 128)).astype(np.int64)
        feeds = {}
        for n, v in (("ids", ids), ("mask", np.ones_like(ids)), ("types", np.zeros_like(ids))):
            feeds[n] = os.path.join(work, n + ".npy")
            np.save(feeds[n], v)
        flags = sum((["--input-shape", "%s=8x128" % n] for n in feeds), [])
        return model, feeds, flags
    sys.exit("unknown model '%s'" % name)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default="resnet18,minilm")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--shardc", default=os.path.join(ROOT, "build", "tools", "shardc", "shardc"))
    ap.add_argument("--baseline", help="another shardc compiler, timed alongside")
    ap.add_argument("--busy", type=int, default=0,
                    help="busy-loop processes beside the rounds (default none)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        for name in args.models.split(","):
            sub = os.path.join(work, name)
            os.makedirs(sub)
            model, feeds, flags = prepare(name, sub)
            exes = {"shardc": os.path.join(sub, "exe")}
            if args.baseline:
                exes["baseline"] = os.path.join(sub, "baseline")
            for label, exe in exes.items():
                compiler = args.baseline if label == "baseline" else args.shardc
                run([compiler, model, "-o", exe] + flags)
            inputs = sum((["--input", "%s=%s" % kv] for kv in feeds.items()), [])
            pairs = ["%s=%s" % kv for kv in feeds.items()]
            best = {}
            busy = start_busy(args.busy, False) if args.busy else []
            try:
                for _ in range(args.rounds):
                    for label, exe in exes.items():
                        t = p50(run([exe] + inputs + ["--benchmark", "--threads",
                                                      str(args.threads), "--iterations",
                                                      str(args.iterations)]))
                        best[label] = min(best.get(label, 1e30), t)
                    t = p50(run([PY, "-c", ORT_WORKER, model, str(args.threads),
                                 str(args.iterations), "5"] + pairs))
                    best["ONNX Runtime"] = min(best.get("ONNX Runtime", 1e30), t)
            finally:
                stop_busy(busy)
            print("%s, %d threads, %d busy processes, best p50 of %d rounds (ms):"
                  % (name, args.threads, args.busy, args.rounds))
            for label, t in best.items():
                print("  %-14s %9.3f   %.2fx ONNX Runtime" % (label, t, t / best["ONNX Runtime"]))


if __name__ == "__main__":
    main()
