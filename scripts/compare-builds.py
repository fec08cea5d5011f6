#!/usr/bin/env python3
"""Compiles the same models with two shardc builds and compares the outputs
of their executables: a refactoring must not change what models compute.

  scripts/compare-builds.py BASE_DIR [--new BUILD_DIR] [--tol 1e-6] [--work DIR]

BASE_DIR holds the reference compiler and the runtime it was built with:
BASE_DIR/shardc, BASE_DIR/runtime (libshardc_rt.a, libshardc_main.a) and
BASE_DIR/include (the runtime headers). Make one from a build before the
change with:

  mkdir -p /tmp/base && cp build/tools/shardc/shardc /tmp/base/ &&
  cp -r build/runtime /tmp/base/runtime && cp -r runtime/include /tmp/base/include

The models: the bundled tiny GPT-2 example, the PyTorch exports of the
model tests (GPT-2-style decoder and CNN, opsets 14 and 17) and
torchvision's mobilenet_v3_small and resnet18 (random weights), each fused
and unfused, fp32 and fp16. Prints one line per model and variant with the
largest difference relative to the output's scale; exits 1 if any exceeds
--tol.
"""
import argparse
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit("failed: %s\n%s%s" % (" ".join(cmd), p.stdout, p.stderr))
    return p


def build(compiler, env, model, shape, flags, exe):
    run([compiler, model, "--input-shape", shape, "-o", exe] + flags, env)


def outputs(exe, inputs, outdir):
    cmd = [exe, "--output", outdir]
    for name, path in inputs:
        cmd += ["--input", "%s=%s" % (name, path)]
    run(cmd)
    return {f: np.load(os.path.join(outdir, f)) for f in sorted(os.listdir(outdir))}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("base")
    ap.add_argument("--new", default=os.path.join(ROOT, "build"))
    ap.add_argument("--tol", type=float, default=1e-6)
    ap.add_argument("--work", default="/tmp/shardc-compare-builds")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    work = args.work
    base_env = dict(os.environ,
                    SHARDC_RUNTIME_LIB_DIR=os.path.join(args.base, "runtime"),
                    SHARDC_RUNTIME_INCLUDE_DIR=os.path.join(args.base, "include"))
    compilers = {
        "base": (os.path.join(args.base, "shardc"), base_env),
        "new": (os.path.join(args.new, "tools", "shardc", "shardc"), None),
    }

    rng = np.random.default_rng(0)
    models = []
    ids = os.path.join(ROOT, "examples", "tiny_gpt2_ids.npy")
    models.append(("tiny_gpt2", os.path.join(ROOT, "examples", "tiny_gpt2.onnx"),
                   "ids=1x16", [("ids", ids)]))
    exports = os.path.join(work, "exports")
    if not os.path.exists(os.path.join(exports, "cnn_opset14.onnx")):
        run(["/usr/bin/python3", os.path.join(ROOT, "test", "Models", "Inputs",
                                              "export_models.py"), exports])
    tokens = os.path.join(work, "tokens.npy")
    np.save(tokens, rng.integers(0, 100, size=(1, 16)).astype(np.int64))
    image = os.path.join(work, "image.npy")
    np.save(image, rng.standard_normal((2, 3, 32, 32)).astype(np.float32))
    for opset in (14, 17):
        models.append(("gpt2_opset%d" % opset,
                       os.path.join(exports, "gpt2_opset%d.onnx" % opset),
                       "ids=1x16", [("ids", tokens)]))
        models.append(("cnn_opset%d" % opset,
                       os.path.join(exports, "cnn_opset%d.onnx" % opset),
                       "image=2x3x32x32", [("image", image)]))
    for net in ("mobilenet_v3_small", "resnet18"):
        onnx_path = os.path.join(work, "%s_opset17.onnx" % net)
        if not os.path.exists(onnx_path):
            run(["/usr/bin/python3", os.path.join(ROOT, "test", "Models", "Inputs",
                                                  "torch_reference.py"), net, "17", work])
        models.append((net, onnx_path, "image=1x3x224x224",
                       [("image", os.path.join(work, "%s_opset17.input.npy" % net))]))

    variants = [("fused", []), ("unfused", ["--no-fusion"]),
                ("fp16", ["--precision=fp16"])]
    worst = 0.0
    failed = False
    for name, path, shape, inputs in models:
        for vname, flags in variants:
            got = {}
            for side, (compiler, env) in compilers.items():
                exe = os.path.join(work, "%s.%s.%s" % (name, vname, side))
                build(compiler, env, path, shape, flags, exe)
                outdir = exe + ".out"
                run(["rm", "-rf", outdir])
                got[side] = outputs(exe, inputs, outdir)
            if got["base"].keys() != got["new"].keys():
                print("%-20s %-8s outputs differ: %s vs %s" %
                      (name, vname, list(got["base"]), list(got["new"])))
                failed = True
                continue
            err = 0.0
            for key, ref in got["base"].items():
                new = got["new"][key]
                if new.shape != ref.shape or new.dtype != ref.dtype:
                    print("%-20s %-8s %s: %s %s vs %s %s" % (
                        name, vname, key, new.dtype, new.shape, ref.dtype, ref.shape))
                    failed = True
                    continue
                a, b = ref.astype(np.float64), new.astype(np.float64)
                same_nan = np.array_equal(np.isnan(a), np.isnan(b))
                a, b = np.nan_to_num(a), np.nan_to_num(b)
                scale = float(np.max(np.abs(a))) or 1.0
                e = float(np.max(np.abs(a - b))) / scale if a.size else 0.0
                err = max(err, e if same_nan else float("inf"))
            worst = max(worst, err)
            ok = err <= args.tol
            failed |= not ok
            print("%-20s %-8s max_rel_diff=%.3g %s" % (name, vname, err,
                                                      "ok" if ok else "DIFFERS"))
    print("worst %.3g over %d models x %d variants" % (worst, len(models), len(variants)))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
