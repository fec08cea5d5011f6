"""Inputs and expected outputs of test/Target/Cpp/merged-programs.mlir's
one program for ranks 0, 1 and 2, compiled with the weights every rank reads
alike (w = [9, 9.5, 9.25, 9.75]) in a shared head: rank 0 writes
y = x + 1 + w and g, the rows of its own table part (rows 0-3 of 12) for
the ids, zero for ids another rank holds.

  merged_io.py inputs DIR    writes DIR/x.npy, DIR/ids.npy
  merged_io.py check DIR     compares DIR/out/{y,g}.npy with numpy
"""
import os
import sys

import numpy as np

mode, d = sys.argv[1], sys.argv[2]
x = np.array([0.5, -1.0, 3.0, 7.25], np.float32)
ids = np.array([2, 7, 0], np.int64)
if mode == "inputs":
    np.save(os.path.join(d, "x.npy"), x)
    np.save(os.path.join(d, "ids.npy"), ids)
else:
    w = np.array([9.0, 9.5, 9.25, 9.75], np.float32)
    table = np.arange(1, 9, dtype=np.float32).reshape(4, 2)
    g = np.array([table[i] if i < 4 else [0, 0] for i in ids], np.float32)
    want = {"y": x + np.float32(1) + w, "g": g}
    for name, ref in want.items():
        got = np.load(os.path.join(d, "out", name + ".npy"))
        print("%s: %s" % (name, "ok" if np.array_equal(got, ref) else
                          "DIFFERS %s vs %s" % (got, ref)))
