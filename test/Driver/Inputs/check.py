"""Runs an ONNX model with onnxruntime on .npy inputs and compares its
outputs with the .npy or .pb files a compiled executable wrote.

usage: check.py MODEL.onnx OUTDIR npy|pb NAME=FILE ..."""
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

model, outdir, fmt = sys.argv[1:4]
feeds = {}
for arg in sys.argv[4:]:
    name, path = arg.split("=", 1)
    feeds[name] = np.load(path)
sess = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
names = [o.name for o in sess.get_outputs()]
expected = sess.run(names, feeds)
for name, want in zip(names, expected):
    path = os.path.join(outdir, name + "." + fmt)
    if fmt == "npy":
        got = np.load(path)
    else:
        t = onnx.load_tensor(path)
        assert t.name == name, (t.name, name)
        got = numpy_helper.to_array(t)
    assert got.dtype == want.dtype, (name, got.dtype, want.dtype)
    assert got.shape == want.shape, (name, got.shape, want.shape)
    if np.issubdtype(want.dtype, np.floating):
        err = float(np.max(np.abs(got.astype(np.float64) - want)))
        assert err <= 1e-5, (name, err)
    else:
        assert (got == want).all(), (name, got, want)
    print("%s: %s %s ok" % (name, want.dtype, list(want.shape)))
