"""Writes the ONNX models of the executable tests into the given directory:
`model` (matmul, bias, activation, softmax, a reduction and an integer
output) and `other` (a different model with a weights section of the same
size), plus inputs for both."""
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


W = rng.standard_normal((8, 16)).astype(np.float32)
b = rng.standard_normal(16).astype(np.float32)
save("model", [
    helper.make_node("MatMul", ["x", "W"], ["h"]),
    helper.make_node("Add", ["h", "b"], ["hb"]),
    helper.make_node("Tanh", ["hb"], ["t"]),
    helper.make_node("Softmax", ["t"], ["probs"], axis=-1),
    helper.make_node("ReduceMean", ["t"], ["mean"], axes=[1], keepdims=0),
    helper.make_node("ArgMax", ["t"], ["best"], axis=-1, keepdims=0),
    helper.make_node("Add", ["ids", "ids"], ["ids2"]),
], [vi("x", [2, 4, 8]), vi("ids", [3], TensorProto.INT64)],
    [vi("probs", [2, 4, 16]), vi("mean", [2, 16]), vi("best", [2, 4], TensorProto.INT64),
     vi("ids2", [3], TensorProto.INT64)],
    [init("W", W), init("b", b)])

# Same signature and weight sizes, different computation and weights.
save("other", [
    helper.make_node("MatMul", ["x", "W"], ["h"]),
    helper.make_node("Sub", ["h", "b"], ["t"]),
    helper.make_node("Softmax", ["t"], ["probs"], axis=-1),
    helper.make_node("ReduceMax", ["t"], ["mean"], axes=[1], keepdims=0),
    helper.make_node("ArgMax", ["t"], ["best"], axis=-1, keepdims=0),
    helper.make_node("Mul", ["ids", "ids"], ["ids2"]),
], [vi("x", [2, 4, 8]), vi("ids", [3], TensorProto.INT64)],
    [vi("probs", [2, 4, 16]), vi("mean", [2, 16]), vi("best", [2, 4], TensorProto.INT64),
     vi("ids2", [3], TensorProto.INT64)],
    [init("W", -W), init("b", b * 2)])

x = rng.standard_normal((2, 4, 8)).astype(np.float32)
ids = np.array([3, -1, 7], np.int64)
np.save(os.path.join(out, "x.npy"), x)
np.save(os.path.join(out, "ids.npy"), ids)
onnx.save_tensor(numpy_helper.from_array(x, "x"), os.path.join(out, "x.pb"))
onnx.save_tensor(numpy_helper.from_array(ids, "ids"), os.path.join(out, "ids.pb"))
# Wrong inputs: shape, dtype, a truncated .npy, a file that is not one, and
# layouts the runtime does not read (Fortran order, big-endian).
np.save(os.path.join(out, "x_shape.npy"), np.zeros((2, 4, 9), np.float32))
np.save(os.path.join(out, "x_f64.npy"), x.astype(np.float64))
with open(os.path.join(out, "x.npy"), "rb") as f:
    data = f.read()
with open(os.path.join(out, "x_truncated.npy"), "wb") as f:
    f.write(data[:len(data) - 10])
with open(os.path.join(out, "x_garbage.npy"), "wb") as f:
    f.write(b"this is not a numpy file\n")
np.save(os.path.join(out, "x_fortran.npy"), np.asfortranarray(x))
np.save(os.path.join(out, "x_bigendian.npy"), x.astype(">f4"))
