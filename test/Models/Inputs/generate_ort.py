#!/usr/bin/env python3
"""Greedy decoding of a with-past decoder export (inputs input_ids,
attention_mask, past_key_values.N.key/value; outputs logits and
present.N.key/value) by ONNX Runtime, as a reference for an executable's
`--generate`: a prefill run over the prompt, then one run per new token
whose past is the previous run's present (ONNX Runtime concatenates it
again each step; the executable appends in place). A model that takes
position_ids gets Hugging Face's: cumsum(mask) - 1, 1 where masked (a
left-padded row's positions count its tokens).

  generate_ort.py MODEL.onnx PROMPT.npy N [--mask MASK.npy] [--check IDS.npy]

Prints the ids, one row per line; with --check exits 1 when the
executable's ids differ, naming the first difference.
"""
import argparse
import sys

import numpy as np
import onnxruntime as ort


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("prompt")
    ap.add_argument("tokens", type=int)
    ap.add_argument("--mask")
    ap.add_argument("--check")
    args = ap.parse_args()
    sess = ort.InferenceSession(args.model, providers=["CPUExecutionProvider"])
    ids = np.load(args.prompt).astype(np.int64)
    b = ids.shape[0]
    mask = np.load(args.mask).astype(np.int64) if args.mask else np.ones_like(ids)
    pasts = [i for i in sess.get_inputs() if i.name.startswith("past_key_values.")]
    past = {i.name: np.zeros((b, i.shape[1], 0, i.shape[3]), np.float32)
            for i in pasts}
    names = [o.name for o in sess.get_outputs()]
    positions = "position_ids" in [i.name for i in sess.get_inputs()]
    step = ids
    for _ in range(args.tokens):
        feeds = {"input_ids": step, "attention_mask": mask, **past}
        if positions:
            pos = np.cumsum(mask, 1) - 1
            pos[mask == 0] = 1
            feeds["position_ids"] = pos[:, -step.shape[1]:].astype(np.int64)
        out = dict(zip(names, sess.run(names, feeds)))
        nxt = out["logits"][:, -1].argmax(-1).astype(np.int64)[:, None]
        ids = np.concatenate([ids, nxt], 1)
        mask = np.concatenate([mask, np.ones((b, 1), np.int64)], 1)
        past = {i.name: out[i.name.replace("past_key_values", "present")]
                for i in pasts}
        step = nxt
    for row in ids:
        print(" ".join(str(int(v)) for v in row))
    if args.check:
        got = np.load(args.check)
        if got.shape != ids.shape:
            sys.exit("generated ids: shape %s, expected %s" % (got.shape, ids.shape))
        diff = np.argwhere(got != ids)
        if len(diff):
            r, t = diff[0]
            sys.exit("generated ids differ at row %d, position %d: %d, expected %d"
                     % (r, t, got[r, t], ids[r, t]))
        print("generated ids equal ONNX Runtime's")


if __name__ == "__main__":
    main()
