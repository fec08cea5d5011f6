#!/usr/bin/env python3
"""CPU latency per model class against ONNX Runtime (issue 28, item 3): the
classes the issue names, each executable and an ONNX Runtime session in a
process of its own, in turn, best p50 of interleaved rounds.

  bench/bench_classes.py [--classes encoder,mobilenet,ppocr_det,ppocr_rec,moe,minilm]
                         [--threads 2] [--iterations 50] [--warmup 5]
                         [--rounds 5] [--ocr-dir DIR] [--markdown FILE]
                         [--keep DIR] [--busy N] [--env 'NAME=VALUE ...' ...]

  encoder     torch's nn.TransformerEncoder (2 layers, d 64, 4 heads), 16 x 1
  mobilenet   torchvision mobilenet_v3_small, 1 x 3 x 224 x 224
  ppocr_det   PP-OCRv4 detection (PyPI rapidocr-onnxruntime), 1 x 3 x 480 x 480
  ppocr_rec   PP-OCRv4 recognition (SVTR neck), 1 x 3 x 48 x 320
  moe         tiny Mixtral (2 layers, 4 experts, top-2), 1 x 16 tokens
  minilm      all-MiniLM-L6-v2 with its real weights, 8 x 128 tokens

PP-OCR's models come from the rapidocr-onnxruntime wheel (`--ocr-dir` names
a folder holding ch_PP-OCRv4_det_infer.onnx and ch_PP-OCRv4_rec_infer.onnx;
without it the wheel is downloaded with pip into the work folder). Ratios
below 1.0 mean shardc is faster. `--keep DIR` leaves the executables and
inputs there (for perf). `--busy N` runs every round beside N busy-loop
processes (`while True: pass`, unpinned, the same nice level: the loaded
regimes of bench/bench_contention.py), started before the class's first
round and stopped after its last. `--env` (repeatable) runs the same
executable again under each set of variables, in the same rounds (for
comparing OpenMP wait settings such as SHARDC_SPINCOUNT=100).
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_cpu  # noqa: E402
from benchutil import ORT_WORKER, PY, ROOT, p50, run  # noqa: E402
from bench_contention import start_busy, stop_busy  # noqa: E402


def ocr_models(args, work):
    if args.ocr_dir:
        return args.ocr_dir
    d = os.path.join(work, "ocr")
    run([PY, "-m", "pip", "download", "-q", "--no-deps", "-d", d,
         "rapidocr-onnxruntime==1.3.24"])
    whl = glob.glob(os.path.join(d, "*.whl"))[0]
    subprocess.check_call(["unzip", "-q", "-o", whl, "-d", d])
    return os.path.join(d, "rapidocr_onnxruntime", "models")


def prepare(name, args, work):
    """(onnx path, {input: array}, [shardc flags])."""
    rng = np.random.RandomState(0)
    if name == "encoder":
        run([PY, os.path.join(ROOT, "test", "Integration", "Inputs", "export_encoder.py"), work])
        return os.path.join(work, "encoder.onnx"), {"x": np.load(os.path.join(work, "x.npy"))}, []
    if name == "mobilenet":
        model, inp, x, flag = bench_cpu.prepare("mobilenet_v3_small", work)
        return model, {inp: x}, ["--input-shape", flag]
    if name in ("ppocr_det", "ppocr_rec"):
        d = ocr_models(args, work)
        if name == "ppocr_det":
            x = rng.rand(1, 3, 480, 480).astype(np.float32)
            return os.path.join(d, "ch_PP-OCRv4_det_infer.onnx"), {"x": x}, \
                ["--input-shape", "x=1x3x480x480"]
        x = rng.rand(1, 3, 48, 320).astype(np.float32)
        return os.path.join(d, "ch_PP-OCRv4_rec_infer.onnx"), {"x": x}, \
            ["--input-shape", "x=1x3x48x320"]
    if name == "moe":
        d = os.path.join(ROOT, "test", "Models", "Inputs", "moe")
        return os.path.join(d, "mixtral.onnx"), {"ids": np.load(os.path.join(d, "mixtral.ids.npy"))}, []
    if name == "minilm":
        run([PY, os.path.join(ROOT, "test", "Integration", "Inputs", "export_bert.py"), work, "17"])
        ids = rng.randint(1000, 30000, (8, 128)).astype(np.int64)
        mask = np.ones((8, 128), np.int64)
        for r in range(8):  # rows of 128 down to 72 real tokens
            mask[r, 128 - 8 * r:] = 0
        feeds = {"ids": ids, "mask": mask, "types": np.zeros((8, 128), np.int64)}
        return os.path.join(work, "bert.onnx"), feeds, \
            ["--input-shape", "ids=8x128", "--input-shape", "mask=8x128",
             "--input-shape", "types=8x128"]
    sys.exit("unknown class " + name)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--classes", default="encoder,mobilenet,ppocr_det,ppocr_rec,moe,minilm")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--ocr-dir")
    ap.add_argument("--keep")
    ap.add_argument("--shardc", default=os.path.join(ROOT, "build", "tools", "shardc", "shardc"))
    ap.add_argument("--markdown")
    ap.add_argument("--busy", type=int, default=0,
                    help="busy-loop processes beside every round (default none)")
    ap.add_argument("--env", action="append", default=[],
                    help="space-separated NAME=VALUE list: another run of the "
                         "executable under these variables, in the same rounds")
    args = ap.parse_args()

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or tmp
        os.makedirs(work, exist_ok=True)
        for name in args.classes.split(","):
            sub = os.path.join(work, name)
            os.makedirs(sub, exist_ok=True)
            model, feeds, flags = prepare(name, args, sub)
            pairs = []
            for k, v in feeds.items():
                path = os.path.join(sub, k + ".in.npy")
                np.save(path, v)
                pairs.append("%s=%s" % (k, path))
            exe = os.path.join(sub, name)
            run([args.shardc, model, "-o", exe] + flags)
            bench = ["--benchmark", "--threads", str(args.threads), "--iterations",
                     str(args.iterations), "--warmup", str(args.warmup)]
            ours = theirs = float("inf")
            variants = [float("inf")] * len(args.env)
            busy = start_busy(args.busy, False) if args.busy else []
            try:
                for _ in range(args.rounds):
                    cmd = [exe]
                    for p in pairs:
                        cmd += ["--input", p]
                    ours = min(ours, p50(run(cmd + bench)))
                    for i, setting in enumerate(args.env):
                        env = dict(os.environ)
                        env.update(kv.split("=", 1) for kv in setting.split())
                        variants[i] = min(variants[i], p50(run(cmd + bench, env=env)))
                    theirs = min(theirs, p50(run([PY, "-c", ORT_WORKER, model,
                                                  str(args.threads), str(args.iterations),
                                                  str(args.warmup)] + pairs)))
            finally:
                stop_busy(busy)
            shape = " ".join("x".join(map(str, v.shape)) for v in feeds.values())
            rows.append((name, shape, ours, theirs, ours / theirs))
            print("%-10s %-22s shardc p50 %9.3f ms   onnxruntime p50 %9.3f ms   ratio %.2fx"
                  % rows[-1], flush=True)
            for setting, t in zip(args.env, variants):
                print("%-10s   with %-30s p50 %9.3f ms   ratio %.2fx   (%+.1f%% against the default)"
                      % (name, setting, t, t / theirs, 100 * (t / ours - 1)), flush=True)

    if args.markdown:
        import onnxruntime
        lines = ["", "Threads: %d, iterations: %d (warm-up %d), best p50 of %d interleaved rounds, "
                 "ONNX Runtime %s in a process of its own, %d busy-loop processes." % (
                     args.threads, args.iterations, args.warmup, args.rounds,
                     onnxruntime.__version__, args.busy), "",
                 "| class | input | shardc p50 (ms) | ONNX Runtime p50 (ms) | ratio |",
                 "|---|---|---:|---:|---:|"]
        lines += ["| %s | %s | %.3f | %.3f | %.2fx |" % r for r in rows]
        with open(args.markdown, "a") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
