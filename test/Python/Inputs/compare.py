"""compare.py ONNX IDS OUT: every rank's outputs (OUT/rank*_NAME.npy) against
ONNX Runtime's on the same ids, one line per file."""
import glob
import os
import sys

import numpy as np
import onnxruntime as ort

onnx_path, ids, out = sys.argv[1:4]
s = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
want = dict(zip([o.name for o in s.get_outputs()],
                s.run(None, {"ids": np.load(ids)})))
for path in sorted(glob.glob(os.path.join(out, "rank*_*.npy"))):
    rank, name = os.path.basename(path)[:-4].split("_", 1)
    err = float(np.abs(np.load(path) - want[name]).max())
    print("%s %s: max |diff| to ONNX Runtime %s" %
          (rank, name, "<= 1e-4" if err <= 1e-4 else "%.3g" % err))
