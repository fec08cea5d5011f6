"""Writes a calibration statistics file as the driver does (stats.json and
one .f32 sample of rows per activation) for prune-conv.mlir's chain:

  conv_stats.py DIR

The activations are the convolutions' inputs in program order
(quant::quantizableConvs), channels last, a row per pixel: the image (2
channels), the depthwise convolution's input (4) and the last
convolution's input (4) over 16 pixels, where channel 2 of the last is the
constant 1.5 (no fluctuation: removing it costs nothing once its mean
moves to the bias) and the others vary.
"""
import json
import os
import sys

import numpy as np

d = sys.argv[1]
os.makedirs(d, exist_ok=True)
rng = np.random.default_rng(0)
x = rng.standard_normal((16, 2)).astype(np.float32)
h = rng.standard_normal((16, 4)).astype(np.float32)
g = rng.standard_normal((16, 4)).astype(np.float32)
g[:, 2] = 1.5
acts = []
for i, a in enumerate((x, h, g)):
    path = os.path.join(d, "act%d.f32" % i)
    a.tofile(path)
    acts.append({"channels": a.shape[1], "rows": a.shape[0],
                 "amax": np.abs(a).max(0).tolist(),
                 "mean": a.astype(np.float64).mean(0).tolist(),
                 "meansq": (a.astype(np.float64) ** 2).mean(0).tolist(),
                 "sample": path})
json.dump({"samples": 1, "activations": acts},
          open(os.path.join(d, "stats.json"), "w"))
