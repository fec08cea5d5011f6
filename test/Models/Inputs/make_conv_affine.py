"""Writes a PP-LCNet-style block as Paddle exports it (random weights): a
convolution, BatchNormalization, a learnable scalar scale and shift, and
HardSwish decomposed as x * Clip(x + 3, 0, 6) / 6; then a depthwise
convolution with a per-channel Mul and Add and x * HardSigmoid(x) (alpha
1/6); then a pointwise convolution whose output has two users (not
folded), and an input for it.

  make_conv_affine.py DIR   writes DIR/lcnet.onnx and DIR/x.npy
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(0)
C, D = 8, 16


def f(*shape):
    return rng.standard_normal(shape).astype(np.float32)


inits = {
    "w1": f(C, 3, 3, 3) * 0.3, "gamma": f(C) * 0.5 + 1, "beta": f(C),
    "mean": f(C) * 0.1, "var": np.abs(f(C)) + 0.5, "s1": np.array([1.7], np.float32),
    "t1": np.array([-0.3], np.float32), "three": np.array([3.0], np.float32),
    "zero": np.array(0.0, np.float32), "six": np.array(6.0, np.float32),
    "sixv": np.array([6.0], np.float32), "w2": f(C, 1, 3, 3) * 0.5, "b2": f(C),
    "s2": f(C, 1, 1) + 1.5, "t2": f(1, C, 1, 1), "w3": f(D, C, 1, 1) * 0.4,
}
nodes = [
    helper.make_node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1], strides=[2, 2]),
    helper.make_node("BatchNormalization", ["c1", "gamma", "beta", "mean", "var"], ["n1"],
                     epsilon=1e-5),
    helper.make_node("Mul", ["n1", "s1"], ["a1"]),
    helper.make_node("Add", ["a1", "t1"], ["y1"]),
    helper.make_node("Add", ["y1", "three"], ["p1"]),
    helper.make_node("Clip", ["p1", "zero", "six"], ["r1"]),
    helper.make_node("Mul", ["y1", "r1"], ["m1"]),
    helper.make_node("Div", ["m1", "sixv"], ["h1"]),
    helper.make_node("Conv", ["h1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1], group=C),
    helper.make_node("Mul", ["c2", "s2"], ["a2"]),
    helper.make_node("Add", ["t2", "a2"], ["y2"]),
    helper.make_node("HardSigmoid", ["y2"], ["g2"], alpha=1.0 / 6, beta=0.5),
    helper.make_node("Mul", ["y2", "g2"], ["h2"]),
    helper.make_node("Conv", ["h2", "w3"], ["c3"]),
    helper.make_node("Mul", ["c3", "s1"], ["y"]),
    helper.make_node("Relu", ["c3"], ["z"]),
]
graph = helper.make_graph(
    nodes, "lcnet", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, D, 8, 8]),
     helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, D, 8, 8])],
    [numpy_helper.from_array(v, k) for k, v in inits.items()])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "lcnet.onnx"))
np.save(os.path.join(out, "x.npy"), f(1, 3, 16, 16))
