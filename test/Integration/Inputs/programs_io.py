"""Inputs and expected outputs of test/Target/Cpp/programs.mlir's ranks:
rank 0 computes y = (x + [1, 2, 3, 4]) * 2, ranks 1 and 2 z = h * [10..80].

  programs_io.py inputs DIR    writes DIR/x.npy, DIR/h.npy
  programs_io.py check DIR     compares DIR/out/{y,z}.npy with numpy
"""
import os
import sys

import numpy as np

mode, d = sys.argv[1], sys.argv[2]
x = np.array([0.5, -1.0, 3.0, 7.25], np.float32)
h = np.arange(8, dtype=np.float32) - 2.5
if mode == "inputs":
    np.save(os.path.join(d, "x.npy"), x)
    np.save(os.path.join(d, "h.npy"), h)
else:
    want = {"y": (x + np.array([1, 2, 3, 4], np.float32)) * 2,
            "z": h * np.arange(10, 90, 10, dtype=np.float32)}
    for name, ref in want.items():
        got = np.load(os.path.join(d, "out", name + ".npy"))
        print("%s: %s" % (name, "ok" if np.array_equal(got, ref) else
                          "DIFFERS %s vs %s" % (got, ref)))
