#!/usr/bin/env python3
"""PP-OCRv4 text recognition in int8 on its real weights (issue 30): the
recognition model of the rapidocr-onnxruntime 1.3.24 wheel, quantized in
ONNX Runtime's QDQ form (test/Integration/Inputs/make_qdq.py: uint8
activations per tensor calibrated on rendered lines, int8 weights per
output channel, convolutions and MatMuls), then run by shardc (its
convolutions on oneDNN's int8 kernels) and by ONNX Runtime 1.31, and
shardc's own `--quantize=int8` calibrated on the same lines and its
`--quantize=int8-dynamic`, and ONNX Runtime on the model as its
quantize_dynamic writes it with per_channel=True (make_qdq.py --dynamic
--per-channel: DynamicQuantizeLinear, ConvInteger, MatMulInteger), run by
both, against the fp32 model run by both.

Text lines are rendered with PIL in DejaVu Sans (calibration and
evaluation lines disjoint), resized to height 48 and padded to 320 as
rapidocr does, and decoded greedily (CTC) with the model's own character
list. Prints each program's character accuracy against the rendered text
(1 - edit distance / length), its lines read exactly, and its p50 latency
(2 threads; each program in a process of its own, in turn, best of the
rounds).

  bench/bench_ocr_int8.py [--ocr-dir DIR] [--threads 2] [--iterations 30]
                          [--rounds 3] [--work DIR]

The models come from the rapidocr-onnxruntime wheel scripts/install-deps.sh
installs (or --ocr-dir); the lines from test/Integration/Inputs/ocr_lines.py.
"""
import argparse
import glob
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchutil import ORT_WORKER, PY, ROOT, p50, run  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "test", "Integration", "Inputs"))
import ocr_lines  # noqa: E402  (the rendered lines, their decoding and score)

HEIGHT, WIDTH = ocr_lines.HEIGHT, ocr_lines.WIDTH


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ocr-dir")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--shardc", default=os.path.join(ROOT, "build", "tools", "shardc", "shardc"))
    ap.add_argument("--work")
    args = ap.parse_args()
    work = args.work or tempfile.mkdtemp(prefix="bench_ocr_int8_")
    src = os.path.join(args.ocr_dir or ocr_lines.models_dir(), "ch_PP-OCRv4_rec_infer.onnx")
    chars = ocr_lines.characters(src)
    ocr_lines.write_inputs(work)
    cal = sorted(glob.glob(os.path.join(work, "cal", "*")))
    lines = [os.path.join(work, "eval%d.npy" % i) for i in range(len(ocr_lines.EVALUATION))]
    qdq = os.path.join(work, "rec_qdq.onnx")
    dyn = os.path.join(work, "rec_dynamic.onnx")
    make_qdq = os.path.join(ROOT, "test", "Integration", "Inputs", "make_qdq.py")
    run([PY, make_qdq, src, qdq] + cal)
    # quantize_dynamic's defaults (weights per tensor) read nothing here (the
    # folded batch norms leave channels orders of magnitude apart): its
    # per_channel=True form.
    run([PY, make_qdq, "--dynamic", "--per-channel", src, dyn])
    ort_models = (("ORT fp32", src), ("ORT int8 (QDQ)", qdq), ("ORT int8 (dynamic)", dyn))
    exes = {}
    calibration = ["--quantize=int8", "--calibration", os.path.join(work, "cal")]
    for label, model, flags in (("shardc fp32", src, []), ("shardc int8 (QDQ)", qdq, []),
                                ("shardc int8 (dynamic)", dyn, []),
                                ("shardc --quantize=int8", src, calibration),
                                ("shardc --quantize=int8-dynamic", src,
                                 ["--quantize=int8-dynamic"])):
        exes[label] = os.path.join(work, "_".join(label.split()[1:]).strip("-").replace(
            "=", "_").replace("(", "").replace(")", ""))
        run([args.shardc, model, "--input-shape", "x=1x3x%dx%d" % (HEIGHT, WIDTH),
             "-o", exes[label]] + flags)
    texts = {}
    for label, exe in exes.items():
        got = []
        for i, path in enumerate(lines):
            out = os.path.join(work, "%s.out%d" % (os.path.basename(exe), i))
            run([exe, "--input", "x=" + path, "--output", out, "--threads", str(args.threads)])
            got.append(ocr_lines.decode(np.load(glob.glob(os.path.join(out, "*.npy"))[0]), chars))
        texts[label] = got
    import onnxruntime as ort
    for label, model in ort_models:
        so = ort.SessionOptions()
        so.intra_op_num_threads = args.threads
        sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
        texts[label] = [ocr_lines.decode(sess.run(None, {"x": np.load(p)})[0], chars)
                        for p in lines]
    best = {}
    bench = ["--benchmark", "--threads", str(args.threads), "--iterations",
             str(args.iterations), "--warmup", "3", "--input", "x=" + lines[0]]
    for _ in range(args.rounds):
        for label, exe in exes.items():
            best[label] = min(best.get(label, 1e30), p50(run([exe] + bench)))
        for label, model in ort_models:
            t = p50(run([PY, "-c", ORT_WORKER, model, str(args.threads),
                         str(args.iterations), "3", "x=" + lines[0]]))
            best[label] = min(best.get(label, 1e30), t)
    total = sum(len(t) for t in ocr_lines.EVALUATION)
    print("PP-OCRv4 rec, %d rendered lines (%d characters), 1 x 3 x %d x %d, %d threads:"
          % (len(lines), total, HEIGHT, WIDTH, args.threads))
    for label, got in texts.items():
        acc, exact = ocr_lines.score(got)
        print("  %-30s char accuracy %.4f, %2d/%d lines exact, p50 %.3f ms"
              % (label, acc, exact, len(lines), best[label]))
    for label in texts:
        wrong = [(g, t) for g, t in zip(texts[label], ocr_lines.EVALUATION) if g != t]
        if wrong:
            print("  %s misreads: %s" % (label, "; ".join("%r for %r" % w for w in wrong[:4])))


if __name__ == "__main__":
    sys.exit(main())
