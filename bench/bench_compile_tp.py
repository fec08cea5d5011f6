#!/usr/bin/env python3
"""Compile time against the degree of parallelism (issue 29, item 3): one
model compiled at each --tp (and --pp) for each target, rounds interleaved,
ccache and the NVRTC cache off: the best and the median wall time of the
rounds per cell, and each degree's ratio to the first on the same target.

  bench/bench_compile_tp.py [MODEL.onnx] [--input-shape ids=8x512]
                            [--tp 1,2,4,8] [--pp 1] [--targets cpu,cuda]
                            [--rounds 2] [--layers 12]

Without MODEL it exports the GPT-2-small-sized decoder of bench/bench_gpu.py
(12 layers, d=768, 12 heads, vocabulary 50257; seeded random weights) into a
temporary folder (python3-torch). CUDA builds use --precision=fp16.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))


def export_gpt2(path, layers):
    import torch
    import bench_gpu
    cfg = dict(vocab=50257, d=768, heads=12, layers=layers, ctx=512)
    model = bench_gpu.build(cfg).eval()
    ids = torch.zeros(8, 512, dtype=torch.int64)
    torch.onnx.export(model, (ids,), path, input_names=["ids"],
                      output_names=["logits"], opset_version=17)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", nargs="?")
    ap.add_argument("--input-shape", default="ids=8x512")
    ap.add_argument("--tp", default="1,2,4,8")
    ap.add_argument("--pp", type=int, default=1)
    ap.add_argument("--targets", default="cpu,cuda")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--shardc", default=os.path.join(ROOT, "build", "tools", "shardc", "shardc"))
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="shardc-compile-tp-")
    model = a.model
    if not model:
        model = os.path.join(tmp, "gpt2s.onnx")
        export_gpt2(model, a.layers)
    env = dict(os.environ, SHARDC_NO_CCACHE="1")
    degrees = [int(t) for t in a.tp.split(",")]
    targets = a.targets.split(",")
    best, programs, times = {}, {}, {}
    for rnd in range(a.rounds):
        for target in targets:
            for tp in degrees:
                out = os.path.join(tmp, "m_%s_%d" % (target, tp))
                cmd = [a.shardc, model, "--input-shape", a.input_shape,
                       "--target=" + target, "--cache-dir=", "-o", out, "-v"]
                if tp > 1:
                    cmd.append("--tp=%d" % tp)
                if a.pp > 1:
                    cmd.append("--pp=%d" % a.pp)
                if target == "cuda":
                    cmd.append("--precision=fp16")
                t = time.time()
                p = subprocess.run(cmd, capture_output=True, text=True, env=env)
                dt = time.time() - t
                if p.returncode:
                    sys.exit("failed: %s\n%s" % (" ".join(cmd), p.stderr[-3000:]))
                m = re.search(r"(\d+) programs? for (\d+) ranks?", p.stderr + p.stdout)
                if m:
                    programs[(target, tp)] = "%s for %s" % (m.group(1), m.group(2))
                key = (target, tp)
                best[key] = min(best.get(key, dt), dt)
                times.setdefault(key, []).append(dt)
                print("round %d %-4s tp=%d %.2f s" % (rnd + 1, target, tp, dt), flush=True)
                for f in (out, out + ".weights"):
                    if os.path.exists(f):
                        os.remove(f)
    # Best and median of the rounds per cell; the ratio of each degree to
    # the first, for both statistics (this shared host's noise moves single
    # runs by up to 30%).
    for name, stat in (("best", min), ("median", statistics.median)):
        print("\n%s of %d rounds:" % (name, a.rounds))
        print("| target | " + " | ".join("tp=%d" % t for t in degrees) + " | " +
              " | ".join("tp=%d / tp=%d" % (t, degrees[0]) for t in degrees[1:]) + " |")
        print("|---|" + "---:|" * (2 * len(degrees) - 1))
        for target in targets:
            v = {t: stat(times[(target, t)]) for t in degrees}
            cells = ["%.2f s" % v[t] for t in degrees]
            ratios = ["%.2fx" % (v[t] / v[degrees[0]]) for t in degrees[1:]]
            print("| %s | %s | %s |" % (target, " | ".join(cells), " | ".join(ratios)))
    if programs:
        print("\nprograms: " + ", ".join("%s tp=%d: %s" % (k[0], k[1], v)
                                         for k, v in sorted(programs.items())))


if __name__ == "__main__":
    main()
