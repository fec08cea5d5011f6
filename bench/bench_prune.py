#!/usr/bin/env python3
"""Pruning's accuracy and speed curves on all-MiniLM-L6-v2 with its real
weights (issue 31), against the unpruned model and ONNX Runtime 1.31.

  bench/bench_prune.py [--configs ffn:0.1,ffn:0.3,...] [--tokens 8x128]
                       [--threads 2] [--iterations 30] [--rounds 3]
                       [--skip-speed] [--skip-accuracy]

Accuracy: each configuration is compiled for the 16 held-out sentences
(minilm_sentences.py, [16, 16]), calibrated on the 48 calibration sentences
(disjoint), and its sentence embeddings compared with the unpruned model's:
mean and minimum cosine, and nearest-neighbour agreement (each sentence
finds the same nearest other sentence as unpruned). Speed: the same
configuration compiled at --tokens (calibrated on one random input of that
shape: the shapes pruning leaves depend on the fraction, not on the text),
each executable and ONNX Runtime (fp32, its own process) timed in turn,
best p50 of interleaved rounds. A configuration is `ffn:R,heads:R`,
optionally `+int8` (static int8 calibrated on the pruned model); `none` is
the unpruned model. Lossless: the model with zeroed structures of
zero_structure.py, compiled with the default lossless step and with
--prune=none, timed the same way, with the share of FLOPs removed.
"""
import argparse
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchutil import ORT_WORKER, PY, ROOT, p50, run  # noqa: E402

INPUTS = os.path.join(ROOT, "test", "Integration", "Inputs")
DEFAULT = ("none,ffn:0.1,ffn:0.2,ffn:0.3,ffn:0.4,ffn:0.5,heads:0.1,heads:0.25,"
           "heads:0.5,ffn:0.3+heads:0.25,ffn:0.3+heads:0.25+int8,int8")


def flags_of(config, cal):
    """The shardc flags of a configuration ('+' separates its parts)."""
    parts = [] if config == "none" else config.split("+")
    prune = ",".join(p for p in parts if p != "int8")
    flags = []
    if prune:
        flags += ["--prune=" + prune]
    if "int8" in parts:
        flags += ["--quantize=int8"]
    if flags:
        flags += ["--calibration", cal]
    return flags


def cosines(a, b):
    c = (a * b).sum(-1) / np.linalg.norm(a, axis=-1) / np.linalg.norm(b, axis=-1)

    def nearest(e):
        e = e / np.linalg.norm(e, axis=-1, keepdims=True)
        s = e @ e.T
        np.fill_diagonal(s, -9)
        return s.argmax(1)
    return c.mean(), c.min(), (nearest(a) == nearest(b)).mean()


def shapes_of(tokens):
    return sum((["--input-shape", "%s=%s" % (n, tokens)]
                for n in ("ids", "mask", "types")), [])


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shardc", default=os.path.join(ROOT, "build", "tools", "shardc", "shardc"))
    ap.add_argument("--configs", default=DEFAULT)
    ap.add_argument("--tokens", default="8x128")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--skip-speed", action="store_true")
    ap.add_argument("--skip-accuracy", action="store_true")
    args = ap.parse_args()
    configs = args.configs.split(",")
    with tempfile.TemporaryDirectory() as work:
        run([PY, os.path.join(INPUTS, "export_bert.py"), work, "17"])
        model = os.path.join(work, "bert.onnx")
        run([PY, os.path.join(INPUTS, "minilm_sentences.py"), work])
        cal = os.path.join(work, "cal")
        run([PY, os.path.join(INPUTS, "minilm_sentences.py"), "--calibration", cal])

        if not args.skip_accuracy:
            inputs = sum((["--input", "%s=%s" % (n, os.path.join(work, "s_%s.npy" % n))]
                          for n in ("ids", "mask", "types")), [])
            embeddings = {}
            for config in configs:
                exe = os.path.join(work, "acc_" + str(len(embeddings)))
                run([args.shardc, model, "-o", exe] + shapes_of("16x16") + flags_of(config, cal))
                out = exe + ".out"
                run([exe] + inputs + ["--output", out])
                embeddings[config] = np.load(os.path.join(out, "embedding.npy"))
            print("accuracy on 16 held-out sentences against the unpruned model:")
            print("  %-28s %8s %8s %8s" % ("config", "cos mean", "cos min", "nn agree"))
            for config, e in embeddings.items():
                mean, low, nn = cosines(e, embeddings.get("none", e))
                print("  %-28s %8.4f %8.4f %8.2f" % (config, mean, low, nn))

        if args.skip_speed:
            return
        b, s = map(int, args.tokens.split("x"))
        sub = os.path.join(work, "speed")
        os.makedirs(os.path.join(sub, "cal"))
        rng = np.random.RandomState(0)
        pairs = []
        for name, v in (("ids", rng.randint(1000, 30000, (b, s)).astype(np.int64)),
                        ("mask", np.ones((b, s), np.int64)),
                        ("types", np.zeros((b, s), np.int64))):
            np.save(os.path.join(sub, "cal", name + ".npy"), v)
            pairs.append("%s=%s" % (name, os.path.join(sub, "cal", name + ".npy")))
        exes = {}
        for i, config in enumerate(configs):
            exes[config] = os.path.join(sub, "exe%d" % i)
            run([args.shardc, model, "-o", exes[config]] + shapes_of(args.tokens)
                + flags_of(config, os.path.join(sub, "cal")))
        zeroed = os.path.join(work, "zeroed.onnx")
        run([PY, os.path.join(INPUTS, "zero_structure.py"), model, zeroed])
        for label, flags in (("zeroed, lossless", []), ("zeroed, --prune=none", ["--prune=none"])):
            exes[label] = os.path.join(sub, label.replace(" ", "_").replace(",", ""))
            run([args.shardc, zeroed, "-o", exes[label]] + shapes_of(args.tokens) + flags)
        bench = ["--benchmark", "--threads", str(args.threads), "--iterations",
                 str(args.iterations), "--warmup", str(args.warmup)]
        inputs = sum((["--input", p] for p in pairs), [])
        best = {}
        for _ in range(args.rounds):
            for label, exe in exes.items():
                best[label] = min(best.get(label, 1e30), p50(run([exe] + inputs + bench)))
            t = p50(run([PY, "-c", ORT_WORKER, model, str(args.threads),
                         str(args.iterations), str(args.warmup)] + pairs))
            best["ort fp32"] = min(best.get("ort fp32", 1e30), t)
        base = best.get("none", best["ort fp32"])
        print("%s tokens, %d threads, best p50 of %d rounds (ms):"
              % (args.tokens, args.threads, args.rounds))
        for label, t in best.items():
            print("  %-28s %9.3f   speedup over unpruned %.2fx   vs ORT fp32 %.2fx"
                  % (label, t, base / t, t / best["ort fp32"]))
        lossless = best["zeroed, --prune=none"] / best["zeroed, lossless"]
        # Encoder linear FLOPs per token: 4 d^2 (q, k, v, out) + 2 d f;
        # the lossless step removes 2 d of the MLP's 2 d f per channel.
        d, f, layers = 384, 1536, 6
        total = layers * (4 * d * d + 2 * d * f)
        removed = (3456 * 2 * d + 3 * 4 * 32 * d)  # zero_structure.py
        print("  lossless: %.1f%% of the encoder's linear FLOPs removed, %.2fx faster"
              % (100.0 * removed / total, lossless))


if __name__ == "__main__":
    main()
