"""The weights path at test scale (test/Driver/weights.test).

  make_weights_models.py OUT_DIR SHARDC

One model, y = x + W + V, x [399, 501] fp32: W holds the fp32 values that
stress rounding to fp16 and bf16 (ties to even on both sides, the largest
values below the rounding threshold to infinity, every subnormal range,
signed zeros, infinities, NaNs with payloads) tiled over 199,899 elements
between random values, stored in an external data file (the importer maps
it); V is random, stored as raw_data. 199,899 elements span four of
graph-convert-precision's 65,536-element chunks.

For fp32, fp16 and bf16 the model is compiled twice, with MLIR's thread
pool and with --mlir-disable-threading (one thread converting and
writing); the two weights files must be byte-identical. A second model,
y = x + W, run with x = 0, gives W as stored: fp32 bit for bit, fp16 equal
to numpy's float16 rounding and bf16 to PyTorch's bfloat16 rounding,
saturated (a finite value that rounds to infinity is the type's largest
finite value; NaN where W is NaN; -0 + 0 is +0, which compares equal). The shape [399, 501]
leaves a tail that the F16C loop hands to the scalar conversion.
"""
import filecmp
import os
import subprocess
import sys

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper


def edge_values():
    f = lambda bits: np.array(bits, dtype=np.uint32).view(np.float32)
    v = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, 65504.0, 65519.99, 65520.0, -65520.0,
         6.1035156e-05, 5.9604645e-08, 2.9802322e-08, 2.9802326e-08, 8.940697e-08,
         3.4028235e38, -3.4028235e38, 1e-40, -1e-45, 1.1754942e-38]
    v = list(np.array(v, dtype=np.float32))
    # fp16 ties: 1 + k*2^-11 for odd k are halfway between fp16 neighbours.
    v += list((1.0 + np.arange(1, 64, 2, dtype=np.float32) * np.float32(2.0 ** -11)))
    v += list(-(1024.0 + np.arange(1, 16, 2, dtype=np.float32) * np.float32(0.5)))
    # bf16 ties and near-ties (low 16 bits 0x8000, 0x7FFF, 0x8001).
    for hi in (0x3F80, 0x3F81, 0x4049, 0xC2F7, 0x0001, 0x7F7F):
        v += list(f([(hi << 16) | lo for lo in (0x8000, 0x7FFF, 0x8001)]))
    # Half subnormals, their ties, and NaNs with payloads.
    v += list(np.float32(2.0 ** -24) * np.arange(0.5, 40.0, 0.5, dtype=np.float32))
    v += list(f([0x7FC00001, 0xFF800123, 0x7F801000, 0x7FFFFFFF]))
    return np.array(v, dtype=np.float32)


def main():
    out, shardc = sys.argv[1], sys.argv[2]
    rng = np.random.default_rng(0)
    n = 399 * 501
    w = rng.standard_normal(n).astype(np.float32)
    e = edge_values()
    for start in range(0, n - len(e), 9973):
        w[start:start + len(e)] = e
    w = w.reshape(399, 501)
    v = rng.standard_normal((399, 501)).astype(np.float32)
    with open(os.path.join(out, "w.data"), "wb") as f:
        f.write(b"\0" * 12)  # an offset that is not page-aligned
        f.write(w.tobytes())
    wt = TensorProto()
    wt.name, wt.data_type = "W", TensorProto.FLOAT
    wt.dims.extend(w.shape)
    wt.data_location = TensorProto.EXTERNAL
    for k, val in (("location", "w.data"), ("offset", "12"), ("length", str(w.nbytes))):
        entry = wt.external_data.add()
        entry.key, entry.value = k, val
    vt = helper.make_tensor("V", TensorProto.FLOAT, v.shape, v.tobytes(), raw=True)
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "W"], ["s"]), helper.make_node("Add", ["s", "V"], ["y"])],
        "weights", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [399, 501])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [399, 501])], initializer=[wt, vt])
    model = os.path.join(out, "m.onnx")
    with open(model, "wb") as f:
        f.write(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())
    # The value check: y = x + W with x = 0.
    graph0 = helper.make_graph(
        [helper.make_node("Add", ["x", "W"], ["y"])], "weights0",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [399, 501])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [399, 501])], initializer=[wt])
    model0 = os.path.join(out, "m0.onnx")
    with open(model0, "wb") as f:
        f.write(helper.make_model(graph0, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())
    np.save(os.path.join(out, "zeros.npy"), np.zeros((399, 501), np.float32))

    def compile_(src, name, flags):
        subprocess.run([shardc, src, "-o", os.path.join(out, name)] + flags, check=True)
        return os.path.join(out, name + ".weights")

    def saturated(narrow, largest):
        # graph-convert-precision saturates: a finite value that rounds to
        # infinity becomes the type's largest finite value of its sign.
        over = np.isinf(narrow) & np.isfinite(w)
        return np.where(over, np.copysign(np.float32(largest), w), narrow)

    with np.errstate(over="ignore"):  # the values that round to infinity
        half = w.astype(np.float16).astype(np.float32)
    bf16 = torch.from_numpy(w.copy()).to(torch.bfloat16).to(torch.float32).numpy()
    refs = {
        "fp32": w,
        "fp16": saturated(half, 65504.0),
        "bf16": saturated(bf16, float(torch.finfo(torch.bfloat16).max)),
    }
    for prec in ("fp32", "fp16", "bf16"):
        flags = [] if prec == "fp32" else ["--precision=" + prec]
        a = compile_(model, prec + "_mt", flags)
        b = compile_(model, prec + "_st", flags + ["--mlir-disable-threading"])
        print("%s: threads %s" % (prec, "identical" if filecmp.cmp(a, b, shallow=False) else "DIFFER"))
        compile_(model0, prec + "_0", flags)
        res = os.path.join(out, prec + "_out")
        subprocess.run([os.path.join(out, prec + "_0"), "--input", "x=" + os.path.join(out, "zeros.npy"),
                        "--output", res], check=True)
        y = np.load(os.path.join(res, "y.npy"))
        ref = refs[prec]
        nan = np.isnan(ref)
        # 0 + w: -0 becomes +0, which == treats as equal.
        bad = int(np.sum(nan != np.isnan(y)) + np.sum(y[~nan] != ref[~nan]))
        print("%s: %d of %d values differ from %s" % (
            prec, bad, y.size, {"fp32": "the model", "fp16": "numpy", "bf16": "torch"}[prec]))


if __name__ == "__main__":
    main()
