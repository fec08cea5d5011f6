#!/usr/bin/env python3
"""PP-OCRv4 text recognition in int8 on its real weights (issue 30): the
recognition model of the rapidocr-onnxruntime 1.3.24 wheel, quantized in
ONNX Runtime's QDQ form (test/Integration/Inputs/make_qdq.py: uint8
activations per tensor calibrated on rendered lines, int8 weights per
output channel, convolutions and MatMuls), then run by shardc (its
convolutions on oneDNN's int8 kernels) and by ONNX Runtime 1.31, against
the fp32 model run by both.

Text lines are rendered with PIL in DejaVu Sans (calibration and
evaluation lines disjoint), resized to height 48 and padded to 320 as
rapidocr does, and decoded greedily (CTC) with the model's own character
list. Prints each program's character accuracy against the rendered text
(1 - edit distance / length), its lines read exactly, and its p50 latency
(2 threads; each program in a process of its own, in turn, best of the
rounds).

  bench/bench_ocr_int8.py [--ocr-dir DIR] [--threads 2] [--iterations 30]
                          [--rounds 3] [--work DIR]
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
from benchutil import ORT_WORKER, PY, ROOT, p50, run  # noqa: E402

CALIBRATION = ["Quarterly report 2025", "Order No. 48213-B", "Main Street 12",
               "Tel +49 30 1234567", "Batch 7 of 12", "Net weight 500 g",
               "Gate B22 boarding", "Invoice total 89.90"]
EVALUATION = ["Hello World 2026", "Total: 1,234.56 EUR", "Room 404 not found",
              "shardc compiles ONNX", "Exit 3B -> Airport", "Serial AX-7731-QZ",
              "Best before 12/2027", "Platform 9 3/4", "Price per kg 3.49",
              "Call 0800 555 0199", "Open 8:00 - 20:00", "Model T-800 rev 2",
              "Lot 55 Unit 12", "Speed limit 120", "Version 1.31.1",
              "Page 17 of 240"]
WIDTH, HEIGHT = 320, 48


def ocr_models(args, work):
    if args.ocr_dir:
        return args.ocr_dir
    d = os.path.join(work, "ocr")
    run([PY, "-m", "pip", "download", "-q", "--no-deps", "-d", d,
         "rapidocr-onnxruntime==1.3.24"])
    whl = glob.glob(os.path.join(d, "*.whl"))[0]
    subprocess.check_call(["unzip", "-q", "-o", whl, "-d", d])
    return os.path.join(d, "rapidocr_onnxruntime", "models")


def render(text):
    """The rec model's input for one rendered line: [1, 3, 48, 320]."""
    from PIL import Image, ImageDraw, ImageFont
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 32)
    w = int(font.getlength(text)) + 16
    img = Image.new("RGB", (w, HEIGHT), "white")
    ImageDraw.Draw(img).text((8, 6), text, fill="black", font=font)
    tw = min(WIDTH, int(np.ceil(HEIGHT * w / HEIGHT)))
    img = img.resize((tw, HEIGHT), Image.BILINEAR)
    x = (np.asarray(img, np.float32).transpose(2, 0, 1) / 255.0 - 0.5) / 0.5
    out = np.zeros((1, 3, HEIGHT, WIDTH), np.float32)
    out[0, :, :, :tw] = x
    return out


def decode(probs, chars):
    ids = probs[0].argmax(-1)
    text, last = [], 0
    for i in ids:
        if i != last and i != 0:
            text.append(chars[i - 1] if i - 1 < len(chars) else "")
        last = i
    return "".join(text)


def edit_distance(a, b):
    d = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, d[0] = d[0], i
        for j, cb in enumerate(b, 1):
            prev, d[j] = d[j], min(d[j] + 1, d[j - 1] + 1, prev + (ca != cb))
    return d[len(b)]


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
    import onnx
    src = os.path.join(ocr_models(args, work), "ch_PP-OCRv4_rec_infer.onnx")
    meta = {p.key: p.value for p in onnx.load(src).metadata_props}
    chars = meta["character"].splitlines() + [" "]
    cal = []
    for i, text in enumerate(CALIBRATION):
        d = os.path.join(work, "cal", str(i))
        os.makedirs(d, exist_ok=True)
        np.save(os.path.join(d, "x.npy"), render(text))
        cal.append(d)
    qdq = os.path.join(work, "rec_qdq.onnx")
    run([PY, os.path.join(ROOT, "test", "Integration", "Inputs", "make_qdq.py"), src, qdq] + cal)
    lines = []
    for i, text in enumerate(EVALUATION):
        path = os.path.join(work, "eval%d.npy" % i)
        np.save(path, render(text))
        lines.append(path)
    exes = {}
    for label, model in (("shardc fp32", src), ("shardc int8 (QDQ)", qdq)):
        exes[label] = os.path.join(work, label.split()[1])
        run([args.shardc, model, "--input-shape", "x=1x3x%dx%d" % (HEIGHT, WIDTH),
             "-o", exes[label]])
    texts = {}
    for label, exe in exes.items():
        got = []
        for i, path in enumerate(lines):
            out = os.path.join(work, "%s.out%d" % (os.path.basename(exe), i))
            run([exe, "--input", "x=" + path, "--output", out, "--threads", str(args.threads)])
            got.append(decode(np.load(glob.glob(os.path.join(out, "*.npy"))[0]), chars))
        texts[label] = got
    import onnxruntime as ort
    for label, model in (("ORT fp32", src), ("ORT int8 (QDQ)", qdq)):
        so = ort.SessionOptions()
        so.intra_op_num_threads = args.threads
        sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
        texts[label] = [decode(sess.run(None, {"x": np.load(p)})[0], chars) for p in lines]
    best = {}
    bench = ["--benchmark", "--threads", str(args.threads), "--iterations",
             str(args.iterations), "--warmup", "3", "--input", "x=" + lines[0]]
    for _ in range(args.rounds):
        for label, exe in exes.items():
            best[label] = min(best.get(label, 1e30), p50(run([exe] + bench)))
        for label, model in (("ORT fp32", src), ("ORT int8 (QDQ)", qdq)):
            t = p50(run([PY, "-c", ORT_WORKER, model, str(args.threads),
                         str(args.iterations), "3", "x=" + lines[0]]))
            best[label] = min(best.get(label, 1e30), t)
    total = sum(len(t) for t in EVALUATION)
    print("PP-OCRv4 rec, %d rendered lines (%d characters), 1 x 3 x %d x %d, %d threads:"
          % (len(EVALUATION), total, HEIGHT, WIDTH, args.threads))
    for label, got in texts.items():
        errors = sum(edit_distance(g, t) for g, t in zip(got, EVALUATION))
        exact = sum(g == t for g, t in zip(got, EVALUATION))
        print("  %-18s char accuracy %.4f, %2d/%d lines exact, p50 %.3f ms"
              % (label, 1 - errors / total, exact, len(EVALUATION), best[label]))
    for label in texts:
        wrong = [(g, t) for g, t in zip(texts[label], EVALUATION) if g != t]
        if wrong:
            print("  %s misreads: %s" % (label, "; ".join("%r for %r" % w for w in wrong[:4])))


if __name__ == "__main__":
    sys.exit(main())
