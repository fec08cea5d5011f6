"""Writes the scale models of the hardening tests into a directory.

usage: make_scale_models.py OUTDIR N [chain|concat|outputs ...]

  chain.onnx    N elementwise nodes in one chain (Add, Mul, Neg, Abs, Relu,
                Sub with scalar initializers): fusion folds them into one
                kernel.
  concat.onnx   N parallel nodes (x + c_i) into one Concat: N kernels.
  outputs.onnx  N graph outputs, each x * c_i: N kernels, N outputs.

and x.npy, the input all three take (float32 [4, 8]). The arithmetic is
exact or nearly so (scaling by 0.5, adding small constants), so the outputs
match onnxruntime's to 1e-5 at any N."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out, n = sys.argv[1], int(sys.argv[2])
shapes = sys.argv[3:] or ["chain", "concat", "outputs"]
os.makedirs(out, exist_ok=True)
X = [4, 8]


def scalar(name, value):
    return numpy_helper.from_array(np.array(value, dtype=np.float32), name)


def save(name, nodes, outputs, inits):
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, X)],
        outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, os.path.join(out, name + ".onnx"))


def vi(name, dims):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)


if "chain" in shapes:
    nodes, inits, prev = [], [], "x"
    for i in range(n):
        y = "y" if i == n - 1 else "t%d" % i
        kind = i % 6
        if kind == 0:
            inits.append(scalar("c%d" % i, 0.25 * (i % 5)))
            nodes.append(helper.make_node("Add", [prev, "c%d" % i], [y]))
        elif kind == 1:
            inits.append(scalar("c%d" % i, 0.5))
            nodes.append(helper.make_node("Mul", [prev, "c%d" % i], [y]))
        elif kind == 2:
            nodes.append(helper.make_node("Neg", [prev], [y]))
        elif kind == 3:
            nodes.append(helper.make_node("Abs", [prev], [y]))
        elif kind == 4:
            inits.append(scalar("c%d" % i, 1.0))
            nodes.append(helper.make_node("Sub", [prev, "c%d" % i], [y]))
        else:
            nodes.append(helper.make_node("Relu", [prev], [y]))
        prev = y
    save("chain", nodes, [vi("y", X)], inits)

if "concat" in shapes:
    nodes, inits, parts = [], [], []
    for i in range(n):
        inits.append(scalar("c%d" % i, float(i % 97) * 0.125))
        nodes.append(helper.make_node("Add", ["x", "c%d" % i], ["p%d" % i]))
        parts.append("p%d" % i)
    nodes.append(helper.make_node("Concat", parts, ["y"], axis=0))
    save("concat", nodes, [vi("y", [X[0] * n, X[1]])], inits)

if "outputs" in shapes:
    nodes, inits, outs = [], [], []
    for i in range(n):
        inits.append(scalar("c%d" % i, float(i % 89) * 0.25))
        nodes.append(helper.make_node("Mul", ["x", "c%d" % i], ["o%d" % i]))
        outs.append(vi("o%d" % i, X))
    save("outputs", nodes, outs, inits)

rng = np.random.default_rng(0)
np.save(os.path.join(out, "x.npy"), rng.standard_normal(X).astype(np.float32))
