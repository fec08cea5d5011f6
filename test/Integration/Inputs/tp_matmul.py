"""Inputs and numpy references of tp_matmul.mlir: y = x @ w, and the two
ranks' partial products x[:, 2r:2r+2] @ w[2r:2r+2].

  tp_matmul.py inputs DIR    writes DIR/x.npy
  tp_matmul.py check DIR     compares DIR/out/{y,partials}.npy
"""
import os
import sys

import numpy as np

rng = np.random.default_rng(1)
w = np.round(rng.standard_normal((4, 6)), 3).astype(np.float32)
x = np.array([[1.0, -2.0, 0.5, 3.0], [0.25, 4.0, -1.5, 2.0]], np.float32)
mode, d = sys.argv[1], sys.argv[2]
if mode == "inputs":
    np.save(os.path.join(d, "x.npy"), x)
else:
    partials = np.stack([x[:, 2 * r:2 * r + 2] @ w[2 * r:2 * r + 2] for r in range(2)])
    want = {"y": x @ w, "partials": partials}
    for name, ref in want.items():
        got = np.load(os.path.join(d, "out", name + ".npy"))
        err = float(np.max(np.abs(got - ref)))
        print("%s: %s" % (name, "ok" if err <= 1e-5 else "DIFFERS by %g" % err))
