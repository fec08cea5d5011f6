"""The shardc Python package against ONNX Runtime, and its errors.

  api.py EXAMPLES WORKDIR

Imports the package pip installed (PYTHONPATH, not the checkout), compiles
the bundled tiny GPT-2 through shardc.compile at two batch sizes, loads both
libraries into this one process and checks their logits against ONNX
Runtime's on the same ids; then prints each error a user can make, one
line each.
"""
import os
import sys

import numpy as np
import onnxruntime as ort

import shardc

examples, work = sys.argv[1], sys.argv[2]
print("package:", "pip-installed" if os.path.realpath(shardc.__file__).startswith(
    os.path.realpath(work)) else shardc.__file__)

onnx_path = os.path.join(examples, "tiny_gpt2.onnx")
ids = np.load(os.path.join(examples, "tiny_gpt2_ids.npy"))
ids2 = np.concatenate([ids, ids[:, ::-1]])
session = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
(name,) = [o.name for o in session.get_outputs()]

one = shardc.load(shardc.compile(onnx_path, os.path.join(work, "gpt2"),
                                 input_shape={"ids": ids.shape}))
two = shardc.load(shardc.compile(onnx_path, os.path.join(work, "gpt2b2.so"),
                                 input_shape={"ids": ids2.shape}), threads=1)
print(one)
print(two)

for model, x in ((one, ids), (two, ids2), (one, ids.astype(np.int32))):
    got = model.run({"ids": x})[name]
    want = session.run(None, {"ids": x.astype(np.int64)})[0]
    err = float(np.abs(got - want).max())
    print("%s ids %s %s: max |shardc - ONNX Runtime| %s" %
          (os.path.basename(model.path), x.dtype, list(x.shape),
           "<= 1e-4" if err <= 1e-4 else "%.3g" % err))
# Keywords work as inputs too; runs repeat.
same = np.array_equal(one.run(ids=ids)[name], one.run({"ids": ids})[name])
print("keyword input, repeated run: %s" % ("equal" if same else "DIFFERENT"))


def error(what, fn):
    try:
        fn()
        print("%s: no error" % what)
    except shardc.ShardcError as e:
        print("%s: %s" % (what, e))


error("unknown input", lambda: one.run({"idz": ids}))
error("missing input", lambda: one.run({}))
error("wrong shape", lambda: one.run({"ids": ids[:, :8]}))
error("wrong dtype", lambda: one.run({"ids": ids.astype(np.float32)}))
error("no such library", lambda: shardc.load(os.path.join(work, "nothing")))
with open(os.path.join(work, "junk.so"), "wb") as f:
    f.write(b"\x7fELF" + b"\0" * 60)  # a truncated ELF header
open(os.path.join(work, "junk.weights"), "wb").close()
error("not a library", lambda: shardc.load(os.path.join(work, "junk.so")))
import shutil  # noqa: E402
shutil.copy(np.core._multiarray_umath.__file__, os.path.join(work, "other.so"))
error("not shardc's", lambda: shardc.load(os.path.join(work, "other.so"),
                                          os.path.join(work, "junk.weights")))
error("compile error", lambda: shardc.compile(
    os.path.join(work, "missing.onnx"), os.path.join(work, "x")))
error("bad flag value", lambda: shardc.compile(onnx_path, os.path.join(
    work, "x"), input_shape={"ids": ids.shape}, tp=0))
with open(os.path.join(work, "gpt2b2.weights"), "r+b") as f:
    f.seek(4096)
    f.write(b"\xff" * 64)  # the weights of the second library, corrupted
error("corrupt weights", lambda: shardc.load(os.path.join(work, "gpt2b2")))
one.close()
error("closed model", lambda: one.run({"ids": ids}))
