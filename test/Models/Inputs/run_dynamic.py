#!/usr/bin/env python3
"""Runs one executable of a model with dynamic batch and sequence dims at
several shapes and compares each output with ONNX Runtime at that shape.

  run_dynamic.py MODEL.onnx EXECUTABLE WORK_DIR BxS[+P]... [--vocab N]
                 [--launch "mpirun -np 2"]

A decoder exported with its KV cache (inputs past_key_values.N.key/value)
takes a past of P entries (0 without "+P"): random values, and an attention
mask over P + S positions.

--launch prefixes the executable's command line (a partitioned program's
ranks are started by mpirun); it is split on spaces.

Token ids are random below the vocabulary size; the attention mask pads the
last two positions of the first row (when the row has more than three);
position_ids, when the model takes them, run from P, the first row's from
P - 1 (at least 0).
Prints one line per shape and output ("1x5 output [1, 5, 96] ok") and exits
1 on the first mismatch (relative to the output's largest magnitude,
1e-4, or --rtol).
"""
import argparse
import os
import shlex
import subprocess
import sys

import numpy as np
import onnxruntime as ort


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("exe")
    ap.add_argument("work")
    ap.add_argument("shapes", nargs="+")
    ap.add_argument("--vocab", type=int, default=96)
    ap.add_argument("--rtol", type=float, default=1e-4,
                    help="largest error relative to the output's scale")
    ap.add_argument("--launch", default="",
                    help="a prefix of the command line, e.g. 'mpirun -np 2'")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    sess = ort.InferenceSession(args.model, providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    pasts = [i for i in sess.get_inputs()
             if i.name.startswith("past_key_values.")]
    for shape in args.shapes:
        bs, _, p = shape.partition("+")
        b, s = (int(v) for v in bs.split("x"))
        p = int(p or 0)
        rng = np.random.default_rng(b * 1000 + s + 7 * p)
        feeds = {"input_ids": rng.integers(0, args.vocab, (b, s)).astype(np.int64),
                 "attention_mask": np.ones((b, p + s), np.int64)}
        if p + s > 3:
            feeds["attention_mask"][0, -2:] = 0
        if "position_ids" in [i.name for i in sess.get_inputs()]:
            # past .. past + s - 1, the first row's one less (a left pad)
            feeds["position_ids"] = np.tile(np.arange(p, p + s, dtype=np.int64), (b, 1))
            feeds["position_ids"][0] = np.maximum(feeds["position_ids"][0] - 1, 0)
        for i in pasts:
            # [batch, heads, past, head_dim]
            dims = [b, i.shape[1], p, i.shape[3]]
            feeds[i.name] = rng.standard_normal(dims).astype(np.float32)
        cmd = shlex.split(args.launch) + [args.exe]
        for name, value in feeds.items():
            path = os.path.join(args.work, "%s_%s.npy" % (name, shape))
            np.save(path, value)
            cmd += ["--input", "%s=%s" % (name, path)]
        out = os.path.join(args.work, "out_" + shape)
        subprocess.run(cmd + ["--output", out], check=True)
        for name, want in zip(names, sess.run(names, feeds)):
            got = np.load(os.path.join(out, name + ".npy"))
            if got.shape != want.shape:
                sys.exit("%s %s: shape %s, expected %s" % (shape, name, got.shape, want.shape))
            err = float(np.max(np.abs(got.astype(np.float64) - want))) / float(np.max(np.abs(want)))
            if err > args.rtol:
                sys.exit("%s %s: max_rel_err %.3g" % (shape, name, err))
            print("%s %s %s ok" % (shape, name, list(want.shape)))


if __name__ == "__main__":
    main()
