"""Writes the small ONNX models of the C++ target tests into the given
directory."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(0)


def save(name, nodes, inputs, outputs, inits=(), opset=17):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))


def vi(name, dims, t=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, t, dims)


def init(name, array):
    return numpy_helper.from_array(array, name)


# A large broadcast add (64 x 1024 plus a row) and a contiguous relu of it.
save("large_elementwise", [
    helper.make_node("Add", ["x", "b"], ["s"]),
    helper.make_node("Relu", ["s"], ["y"]),
], [vi("x", [64, 1024])], [vi("y", [64, 1024])],
    [init("b", rng.standard_normal(1024).astype(np.float32))])

# A small elementwise op: no OpenMP threads for 6 elements.
save("small_elementwise", [
    helper.make_node("Mul", ["x", "x"], ["y"]),
], [vi("x", [2, 3])], [vi("y", [2, 3])])

# fp16 arithmetic goes through float.
save("half", [
    helper.make_node("Add", ["a", "b"], ["y"]),
], [vi("a", [4, 8], TensorProto.FLOAT16), vi("b", [4, 8], TensorProto.FLOAT16)],
    [vi("y", [4, 8], TensorProto.FLOAT16)])

# A matmul with a weight (oneDNN).
save("matmul", [
    helper.make_node("MatMul", ["x", "W"], ["y"]),
], [vi("x", [4, 8])], [vi("y", [4, 16])],
    [init("W", rng.standard_normal((8, 16)).astype(np.float32))])

# Reductions: a sum over the last axis and a max over the first.
save("reduce", [
    helper.make_node("ReduceSum", ["x", "axes"], ["s"], keepdims=0),
    helper.make_node("ReduceMax", ["x"], ["m"], axes=[0], keepdims=1),
], [vi("x", [16, 32])], [vi("s", [16]), vi("m", [1, 32])],
    [init("axes", np.array([1], np.int64))])

# A runtime call: softmax.
save("softmax", [
    helper.make_node("Softmax", ["x"], ["y"], axis=-1),
], [vi("x", [2, 10])], [vi("y", [2, 10])])

# A wide reduction: 1000 elements per row.
save("reduce_wide", [
    helper.make_node("ReduceSum", ["x", "axes"], ["s"], keepdims=0),
], [vi("x", [4, 1000])], [vi("s", [4])],
    [init("axes", np.array([1], np.int64))])

# GEMM epilogues: MatMul + bias + Relu; MatMul + bias + the first's output
# as a residual; MatMul + bias + the exact GELU as PyTorch decomposes it
# (x * erf(x / sqrt 2) + 1) * 0.5).
save("linear_epilogues", [
    helper.make_node("MatMul", ["x", "W1"], ["m1"]),
    helper.make_node("Add", ["m1", "b1"], ["a1"]),
    helper.make_node("Relu", ["a1"], ["h"]),
    helper.make_node("MatMul", ["h", "W2"], ["m2"]),
    helper.make_node("Add", ["b2", "m2"], ["a2"]),
    helper.make_node("Add", ["h", "a2"], ["r"]),
    helper.make_node("MatMul", ["r", "W3"], ["m3"]),
    helper.make_node("Add", ["m3", "b3"], ["a3"]),
    helper.make_node("Div", ["a3", "sqrt2"], ["g1"]),
    helper.make_node("Erf", ["g1"], ["g2"]),
    helper.make_node("Add", ["g2", "one"], ["g3"]),
    helper.make_node("Mul", ["a3", "g3"], ["g4"]),
    helper.make_node("Mul", ["g4", "half"], ["y"]),
], [vi("x", [4, 8])], [vi("y", [4, 8])],
    [init("W1", rng.standard_normal((8, 8)).astype(np.float32)),
     init("b1", rng.standard_normal((1, 8)).astype(np.float32)),
     init("W2", rng.standard_normal((8, 8)).astype(np.float32)),
     init("b2", rng.standard_normal(8).astype(np.float32)),
     init("W3", rng.standard_normal((8, 8)).astype(np.float32)),
     init("b3", rng.standard_normal(8).astype(np.float32)),
     init("sqrt2", np.array(1.4142135381698608, np.float32)),
     init("one", np.array(1.0, np.float32)),
     init("half", np.array(0.5, np.float32))])

# A residual conv block: Conv, MaxPool, Conv + residual Add + Relu, then a
# Sigmoid into the output (channels-last inside, NCHW at the edges).
save("conv_block", [
    helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
    helper.make_node("MaxPool", ["c1"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
    helper.make_node("Conv", ["p", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1]),
    helper.make_node("Add", ["c2", "p"], ["s"]),
    helper.make_node("Relu", ["s"], ["r"]),
    helper.make_node("Sigmoid", ["r"], ["y"]),
], [vi("x", [1, 3, 6, 8])], [vi("y", [1, 4, 3, 4])],
    [init("w1", rng.standard_normal((4, 3, 3, 3)).astype(np.float32)),
     init("b1", rng.standard_normal(4).astype(np.float32)),
     init("w2", rng.standard_normal((4, 4, 3, 3)).astype(np.float32)),
     init("b2", rng.standard_normal(4).astype(np.float32))])
