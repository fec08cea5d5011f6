"""Rendered text lines for PP-OCRv4's recognizer (the rapidocr-onnxruntime
wheel's ch_PP-OCRv4_rec_infer.onnx, real weights), and the score of what a
program read from them.

  ocr_lines.py models              prints the folder holding the wheel's models
  ocr_lines.py render DIR          DIR/cal/<i>/x.npy (8 calibration lines) and
                                   DIR/eval<i>.npy (16 evaluation lines, other text)
  ocr_lines.py score MODEL DIR...  decodes DIR/eval<i>/*.npy (a program's --output
                                   folders, DIR given with {} for i) greedily with
                                   MODEL's character list; prints
                                   `char accuracy A, L/16 lines exact` and exits 1
                                   below --min A
  ocr_lines.py ort MODEL DIR [OUT] runs MODEL on ONNX Runtime into OUT/eval<i>/out.npy
                                   (OUT: DIR by default)

Lines are drawn with PIL in DejaVu Sans, resized to height 48 and padded to
width 320 as rapidocr prepares them: [1, 3, 48, 320], (x / 255 - 0.5) / 0.5.
"""
import argparse
import glob
import importlib.util
import os
import sys

import numpy as np

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
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def models_dir():
    """The wheel's models folder (found, not imported: --no-deps)."""
    spec = importlib.util.find_spec("rapidocr_onnxruntime")
    if spec is None:
        sys.exit("ocr_lines.py: rapidocr-onnxruntime is not installed (scripts/install-deps.sh)")
    return os.path.join(list(spec.submodule_search_locations)[0], "models")


def render(text):
    """The recognizer's input for one rendered line: [1, 3, 48, 320]."""
    from PIL import Image, ImageDraw, ImageFont
    font = ImageFont.truetype(FONT, 32)
    w = int(font.getlength(text)) + 16
    img = Image.new("RGB", (w, HEIGHT), "white")
    ImageDraw.Draw(img).text((8, 6), text, fill="black", font=font)
    tw = min(WIDTH, w)
    img = img.resize((tw, HEIGHT), Image.BILINEAR)
    x = (np.asarray(img, np.float32).transpose(2, 0, 1) / 255.0 - 0.5) / 0.5
    out = np.zeros((1, 3, HEIGHT, WIDTH), np.float32)
    out[0, :, :, :tw] = x
    return out


def characters(model):
    import onnx
    meta = {p.key: p.value for p in onnx.load(model).metadata_props}
    return meta["character"].splitlines() + [" "]


def decode(probs, chars):
    """Greedy CTC: the best class per step, repeats merged, blanks (0) dropped."""
    text, last = [], 0
    for i in probs[0].argmax(-1):
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


def score(read):
    """(character accuracy, lines read exactly) of `read` against EVALUATION."""
    total = sum(len(t) for t in EVALUATION)
    errors = sum(edit_distance(g, t) for g, t in zip(read, EVALUATION))
    return 1 - errors / total, sum(g == t for g, t in zip(read, EVALUATION))


def write_inputs(d):
    for i, text in enumerate(CALIBRATION):
        os.makedirs(os.path.join(d, "cal", str(i)), exist_ok=True)
        np.save(os.path.join(d, "cal", str(i), "x.npy"), render(text))
    for i, text in enumerate(EVALUATION):
        np.save(os.path.join(d, "eval%d.npy" % i), render(text))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("command", choices=["models", "render", "score", "ort"])
    ap.add_argument("args", nargs="*")
    ap.add_argument("--min", type=float, default=0.0)
    a = ap.parse_args()
    if a.command == "models":
        print(models_dir())
    elif a.command == "render":
        write_inputs(a.args[0])
    elif a.command == "ort":
        import onnxruntime as ort
        model, d = a.args[:2]
        out_root = a.args[2] if len(a.args) > 2 else d
        sess = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
        for i in range(len(EVALUATION)):
            out = os.path.join(out_root, "eval%d" % i)
            os.makedirs(out, exist_ok=True)
            y = sess.run(None, {"x": np.load(os.path.join(d, "eval%d.npy" % i))})[0]
            np.save(os.path.join(out, "out.npy"), y)
    else:
        model, pattern = a.args
        chars = characters(model)
        read = [decode(np.load(glob.glob(os.path.join(pattern.format(i), "*.npy"))[0]), chars)
                for i in range(len(EVALUATION))]
        acc, exact = score(read)
        print("char accuracy %.4f, %d/%d lines exact" % (acc, exact, len(EVALUATION)))
        if acc < a.min:
            print("read: %s" % read)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
