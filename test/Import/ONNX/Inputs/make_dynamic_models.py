#!/usr/bin/env python3
"""Models with dynamic input dims (dim_param 'batch', 'seq', or no name), for
--max-shape: an encoder-like block whose two inputs share 'batch' and 'seq',
one input with an unnamed dynamic dim, and models the import refuses with
dynamic dims (a Shape read, a convolution, an output declared static in a
dynamic dim).

  make_dynamic_models.py OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

H = 16


def save(graph, path):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, path)


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def encoder():
    rng = np.random.default_rng(0)
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["xw"], name="proj"),
        helper.make_node("Add", ["xw", "b"], ["xb"], name="bias"),
        helper.make_node("Relu", ["xb"], ["r"], name="relu"),
        helper.make_node("Unsqueeze", ["mask", "axis2"], ["m3"], name="unsq"),
        helper.make_node("Mul", ["r", "m3"], ["y"], name="masked"),
        helper.make_node("ReduceSum", ["y", "axis1"], ["pooled"], name="pool",
                         keepdims=0),
    ]
    graph = helper.make_graph(
        nodes, "encoder",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", H]),
         helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["batch", "seq"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", H]),
         helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["batch", H])],
        [init("w", rng.standard_normal((H, H)).astype(np.float32)),
         init("b", rng.standard_normal(H).astype(np.float32)),
         init("axis2", np.array([2], np.int64)),
         init("axis1", np.array([1], np.int64))])
    return graph


def unnamed():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 8])
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")], "unnamed", [x],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 8])])
    return graph


def shape_read():
    nodes = [
        helper.make_node("Shape", ["x"], ["s"], name="shape_of_x"),
        helper.make_node("Reshape", ["x", "s"], ["y"], name="reshape"),
    ]
    return helper.make_graph(
        nodes, "shape_read",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", H])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", H])])


def conv():
    w = np.ones((4, 3, 3, 3), np.float32)
    return helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"], name="conv1", pads=[1, 1, 1, 1])],
        "conv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4, 8, 8])],
        [init("w", w)])


def static_output():
    return helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")], "static_output",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 8])])


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, make in [("encoder", encoder), ("unnamed", unnamed),
                       ("shape_read", shape_read), ("conv", conv),
                       ("static_output", static_output)]:
        save(make(), os.path.join(out, name + ".onnx"))


if __name__ == "__main__":
    main()
