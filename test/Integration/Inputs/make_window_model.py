"""A model whose weights tp cuts into windows (graph::Window: blocks of 1
MiB and more, never copied), for test/Integration/weight-windows.test.

  make_window_model.py OUT_DIR

model.onnx  ids [2, 3] int64 -> x = table[ids] (table [1027, 1024]: a
            vocabulary no tp above 1 divides), qkv = x @ Wqkv + b
            ([1024, 3072], split into q, k and v: dist-seed-megatron
            splits the projection apart), h = relu(q) + k + v, logits =
            h @ Whead ([1024, 1027]), returned.
ids.npy     the ids, negative ones included.
expected.npy  the logits by numpy.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(7)
V, D = 1027, 1024
table = rng.standard_normal((V, D)).astype(np.float32)
wqkv = (rng.standard_normal((D, 3 * D)) / np.sqrt(D)).astype(np.float32)
bqkv = rng.standard_normal(3 * D).astype(np.float32)
whead = (rng.standard_normal((D, V)) / np.sqrt(D)).astype(np.float32)
ids = np.array([[0, 1026, -1], [513, -1027, 514]], np.int64)

nodes = [
    helper.make_node("Gather", ["table", "ids"], ["x"], axis=0),
    helper.make_node("MatMul", ["x", "wqkv"], ["xw"]),
    helper.make_node("Add", ["xw", "bqkv"], ["qkv"]),
    helper.make_node("Split", ["qkv", "sizes"], ["q", "k", "v"], axis=-1),
    helper.make_node("Relu", ["q"], ["rq"]),
    helper.make_node("Add", ["rq", "k"], ["rk"]),
    helper.make_node("Add", ["rk", "v"], ["h"]),
    helper.make_node("MatMul", ["h", "whead"], ["logits"]),
]
inits = [numpy_helper.from_array(a, n) for n, a in
         [("table", table), ("wqkv", wqkv), ("bqkv", bqkv), ("whead", whead),
          ("sizes", np.array([D, D, D], np.int64))]]
graph = helper.make_graph(
    nodes, "windows",
    [helper.make_tensor_value_info("ids", TensorProto.INT64, [2, 3])],
    [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [2, 3, V])],
    inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.save(model, os.path.join(out, "model.onnx"))
np.save(os.path.join(out, "ids.npy"), ids)
x = table[ids]
qkv = x @ wqkv + bqkv
q, k, v = np.split(qkv, 3, axis=-1)
np.save(os.path.join(out, "expected.npy"), (np.maximum(q, 0) + k + v) @ whead)
