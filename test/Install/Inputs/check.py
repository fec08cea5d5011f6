"""check.py reference WORK: ONNX Runtime's logits of WORK/tiny_gpt2.onnx.
check.py compare WORK OUT: the executable's output against them.
check.py python WORK: shardc.compile, load and run (the installed
compiler on the PATH, the pip-installed package) against them."""
import glob
import os
import sys

import numpy as np

mode, work = sys.argv[1], sys.argv[2]
ids = np.load(os.path.join(work, "tiny_gpt2_ids.npy"))
if mode == "reference":
    import onnxruntime as ort
    s = ort.InferenceSession(os.path.join(work, "tiny_gpt2.onnx"),
                             providers=["CPUExecutionProvider"])
    np.save(os.path.join(work, "reference.npy"), s.run(None, {"ids": ids})[0])
    sys.exit(0)
want = np.load(os.path.join(work, "reference.npy"))
if mode == "compare":
    (path,) = glob.glob(os.path.join(work, sys.argv[3], "*.npy"))
    got, what = np.load(path), "installed executable"
else:
    import shardc
    lib = shardc.compile(os.path.join(work, "tiny_gpt2.onnx"),
                         os.path.join(work, "py", "tiny"),
                         input_shape={"ids": ids.shape})
    got = list(shardc.load(lib).run({"ids": ids}).values())[0]
    what = "installed Python package"
err = float(np.abs(got - want).max())
print("%s: max |diff| to ONNX Runtime %s" % (what, "<= 1e-4" if err <= 1e-4 else err))
