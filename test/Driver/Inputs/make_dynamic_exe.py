#!/usr/bin/env python3
"""A model with dynamic 'batch' and 'seq' dims for one executable that runs
every shape within its bounds (--max-shape), and its inputs at several
shapes: a linear layer (MatMul, Add, Relu: one GEMM with its epilogue), a
padding mask (a second input sharing both dims), LayerNormalization,
Softmax and a mean over the sequence.

  make_dynamic_exe.py OUT_DIR BxS...

writes OUT_DIR/mlp.onnx and, per shape, OUT_DIR/x_BxS.npy and
OUT_DIR/mask_BxS.npy.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

H, F = 16, 24


def model():
    rng = np.random.default_rng(0)
    inits = [numpy_helper.from_array(a, n) for n, a in [
        ("w", rng.standard_normal((H, F)).astype(np.float32)),
        ("b", rng.standard_normal(F).astype(np.float32)),
        ("gamma", rng.standard_normal(F).astype(np.float32)),
        ("beta", rng.standard_normal(F).astype(np.float32)),
    ]]
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["xw"], name="proj"),
        helper.make_node("Add", ["xw", "b"], ["xb"], name="bias"),
        helper.make_node("Relu", ["xb"], ["r"], name="relu"),
        helper.make_node("Mul", ["r", "mask"], ["masked"], name="masked"),
        helper.make_node("LayerNormalization", ["masked", "gamma", "beta"],
                         ["ln"], name="norm", axis=-1),
        helper.make_node("Softmax", ["ln"], ["probs"], name="softmax", axis=-1),
        helper.make_node("ReduceMean", ["probs"], ["pooled"], name="pool",
                         axes=[1], keepdims=0),
    ]
    graph = helper.make_graph(
        nodes, "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", H]),
         helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["batch", "seq", 1])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["batch", "seq", F]),
         helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["batch", F])],
        inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(m)
    return m


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    onnx.save(model(), os.path.join(out, "mlp.onnx"))
    for shape in sys.argv[2:]:
        b, s = (int(v) for v in shape.split("x"))
        rng = np.random.default_rng(b * 1000 + s)
        np.save(os.path.join(out, "x_%s.npy" % shape),
                rng.standard_normal((b, s, H)).astype(np.float32))
        mask = (rng.random((b, s, 1)) > 0.2).astype(np.float32)
        np.save(os.path.join(out, "mask_%s.npy" % shape), mask)


if __name__ == "__main__":
    main()
