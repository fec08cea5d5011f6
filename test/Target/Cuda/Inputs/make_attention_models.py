"""Writes the ONNX model of the CUDA attention test (attention.test) into
the given directory: attention_mix.onnx, one attention pattern per output,
each fused by graph-fuse-attention into one sc_attention call:

  approx_y1  GPT-2's form: q, k, v from a split of one packed [2, 8, 96]
             input (2 heads of 16), k^T by transpose(0, 2, 3, 1), Div by 4,
             masked_fill with the constant ~tril mask (causal), the output
             transposed and reshaped back to [2, 8, 32]
  approx_y2  causal from Trilu of ones, 80 queries and keys (two query
             tiles, several key steps), head dim 64, Div by 8
  half_y3    fp16: an additive [2, 1, 1, 70] mask, Mul by a constant, 20
             queries over 70 keys, 8-dim keys, 12-dim values
  approx_y4  a boolean mask computed at run time (Less) in a Where with a
             finite fill, k^T given as is
  approx_y5  head dim 128 (the smallest shared-memory tiles), no scale
  half_y6    fp16 on tensor cores: head dim 64, an additive [2, 1, 1, 72]
             mask, 72 queries over 72 keys (a partial second query tile
             and key step), separate contiguous inputs (16-byte rows)
  half_y7    fp16 on tensor cores, GPT-2's packed form: [1, 70, 192] split
             into 2 heads of 32, causal
  half_y8    fp16 on tensor cores, k^T given as is (column stride 20: rows
             element by element), head dim 16, 20 queries over 20 keys
  half_y9    fp16 on tensor cores, head dim 96 (one block of 16 queries per
             warp, 32-key steps): 70 queries (two tiles) over 100 keys
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)

F32, F16 = TensorProto.FLOAT, TensorProto.FLOAT16
nodes, inputs, outputs, inits = [], [], [], []


def vi(name, dims, t=F32):
    return helper.make_tensor_value_info(name, t, dims)


def init(name, array):
    inits.append(numpy_helper.from_array(array, name))
    return name


def node(op, ins, outs, **attrs):
    nodes.append(helper.make_node(op, ins, outs, **attrs))
    return outs[0]


# 1. GPT-2: [2, 8, 96] -> q, k, v [2, 2, 8, 16].
inputs.append(vi("x", [2, 8, 96]))
node("Split", ["x", init("sizes", np.array([32, 32, 32], np.int64))],
     ["q1s", "k1s", "v1s"], axis=2)
shape = init("heads", np.array([2, 8, 2, 16], np.int64))
for n in ("q1", "k1", "v1"):
    node("Reshape", [n + "s", shape], [n + "r"])
node("Transpose", ["q1r"], ["q1"], perm=[0, 2, 1, 3])
node("Transpose", ["v1r"], ["v1"], perm=[0, 2, 1, 3])
node("Transpose", ["k1r"], ["k1t"], perm=[0, 2, 3, 1])
node("MatMul", ["q1", "k1t"], ["s1"])
node("Div", ["s1", init("four", np.array(4.0, np.float32))], ["s1d"])
upper = ~np.tril(np.ones((8, 8), bool))
node("Where", [init("upper", upper.reshape(1, 1, 8, 8)),
               init("ninf", np.array(-np.inf, np.float32)), "s1d"], ["s1m"])
node("Softmax", ["s1m"], ["p1"], axis=-1)
node("MatMul", ["p1", "v1"], ["o1"])
node("Transpose", ["o1"], ["o1t"], perm=[0, 2, 1, 3])
node("Reshape", ["o1t", init("merged", np.array([2, 8, 32], np.int64))], ["approx_y1"])
outputs.append(vi("approx_y1", [2, 8, 32]))

# 2. Causal from Trilu of ones, S = T = 80, head dim 64.
for n in ("q2", "k2", "v2"):
    inputs.append(vi(n, [1, 2, 80, 64]))
node("Trilu", [init("ones", np.ones((80, 80), np.float32))], ["tril"], upper=0)
node("Equal", ["tril", init("zero", np.array(0.0, np.float32))], ["above"])
node("Transpose", ["k2"], ["k2t"], perm=[0, 1, 3, 2])
node("MatMul", ["q2", "k2t"], ["s2"])
node("Div", ["s2", init("eight", np.array(8.0, np.float32))], ["s2d"])
node("Where", ["above", "ninf", "s2d"], ["s2m"])
node("Softmax", ["s2m"], ["p2"], axis=-1)
node("MatMul", ["p2", "v2"], ["approx_y2"])
outputs.append(vi("approx_y2", [1, 2, 80, 64]))

# 3. fp16 with an additive mask, S = 20, T = 70, D = 8, E = 12.
for n, dims in (("q3", [2, 2, 20, 8]), ("k3", [2, 2, 70, 8]),
                ("v3", [2, 2, 70, 12]), ("m3", [2, 1, 1, 70])):
    inputs.append(vi(n, dims))
    node("Cast", [n], [n + "h"], to=F16)
node("Transpose", ["k3h"], ["k3t"], perm=[0, 1, 3, 2])
node("MatMul", ["q3h", "k3t"], ["s3"])
node("Mul", [init("c3", np.array(0.35, np.float16)), "s3"], ["s3s"])
node("Add", ["s3s", "m3h"], ["s3m"])
node("Softmax", ["s3m"], ["p3"], axis=-1)
node("MatMul", ["p3", "v3h"], ["o3"])
node("Cast", ["o3"], ["half_y3"], to=F32)
outputs.append(vi("half_y3", [2, 2, 20, 12]))

# 4. A run-time boolean mask, Where with fill -1e9.
for n, dims in (("q4", [2, 3, 8, 16]), ("k4t", [2, 3, 16, 8]),
                ("v4", [2, 3, 8, 16]), ("m4", [2, 1, 8, 8])):
    inputs.append(vi(n, dims))
node("Less", ["m4", init("minus1", np.array(-1.0, np.float32))], ["c4"])
node("MatMul", ["q4", "k4t"], ["s4"])
node("Where", ["c4", init("big", np.array(-1e9, np.float32)), "s4"], ["s4m"])
node("Softmax", ["s4m"], ["p4"], axis=-1)
node("MatMul", ["p4", "v4"], ["approx_y4"])
outputs.append(vi("approx_y4", [2, 3, 8, 16]))

# 5. Head dim 128, no scale.
for n in ("q5", "k5", "v5"):
    inputs.append(vi(n, [1, 1, 24, 128]))
node("Transpose", ["k5"], ["k5t"], perm=[0, 1, 3, 2])
node("MatMul", ["q5", "k5t"], ["s5"])
node("Softmax", ["s5"], ["p5"], axis=-1)
node("MatMul", ["p5", "v5"], ["approx_y5"])
outputs.append(vi("approx_y5", [1, 1, 24, 128]))

# 6. fp16, head dim 64, additive mask, S = T = 72.
for n, dims in (("q6", [2, 2, 72, 64]), ("k6", [2, 2, 72, 64]),
                ("v6", [2, 2, 72, 64]), ("m6", [2, 1, 1, 72])):
    inputs.append(vi(n, dims))
    node("Cast", [n], [n + "h"], to=F16)
node("Transpose", ["k6h"], ["k6t"], perm=[0, 1, 3, 2])
node("MatMul", ["q6h", "k6t"], ["s6"])
node("Mul", ["s6", init("c6", np.array(0.125, np.float16))], ["s6s"])
node("Add", ["s6s", "m6h"], ["s6m"])
node("Softmax", ["s6m"], ["p6"], axis=-1)
node("MatMul", ["p6", "v6h"], ["o6"])
node("Cast", ["o6"], ["half_y6"], to=F32)
outputs.append(vi("half_y6", [2, 2, 72, 64]))

# 7. fp16, GPT-2's packed form, 2 heads of 32, causal, 70 tokens.
inputs.append(vi("x7", [1, 70, 192]))
node("Cast", ["x7"], ["x7h"], to=F16)
node("Split", ["x7h", init("sizes7", np.array([64, 64, 64], np.int64))],
     ["q7s", "k7s", "v7s"], axis=2)
shape7 = init("heads7", np.array([1, 70, 2, 32], np.int64))
for n in ("q7", "k7", "v7"):
    node("Reshape", [n + "s", shape7], [n + "r"])
node("Transpose", ["q7r"], ["q7"], perm=[0, 2, 1, 3])
node("Transpose", ["v7r"], ["v7"], perm=[0, 2, 1, 3])
node("Transpose", ["k7r"], ["k7t"], perm=[0, 2, 3, 1])
node("MatMul", ["q7", "k7t"], ["s7"])
node("Div", ["s7", init("c7", np.array(5.66, np.float16))], ["s7d"])
upper7 = ~np.tril(np.ones((70, 70), bool))
node("Where", [init("upper7", upper7.reshape(1, 1, 70, 70)),
               init("ninf7", np.array(-np.inf, np.float16)), "s7d"], ["s7m"])
node("Softmax", ["s7m"], ["p7"], axis=-1)
node("MatMul", ["p7", "v7"], ["o7"])
node("Transpose", ["o7"], ["o7t"], perm=[0, 2, 1, 3])
node("Reshape", ["o7t", init("merged7", np.array([1, 70, 64], np.int64))], ["o7m"])
node("Cast", ["o7m"], ["half_y7"], to=F32)
outputs.append(vi("half_y7", [1, 70, 64]))

# 8. fp16, k^T as is, head dim 16.
for n, dims in (("q8", [1, 1, 20, 16]), ("k8t", [1, 1, 16, 20]),
                ("v8", [1, 1, 20, 16])):
    inputs.append(vi(n, dims))
    node("Cast", [n], [n + "h"], to=F16)
node("MatMul", ["q8h", "k8th"], ["s8"])
node("Softmax", ["s8"], ["p8"], axis=-1)
node("MatMul", ["p8", "v8h"], ["o8"])
node("Cast", ["o8"], ["half_y8"], to=F32)
outputs.append(vi("half_y8", [1, 1, 20, 16]))

# 9. fp16, head dim 96, S = 70, T = 100.
for n, dims in (("q9", [1, 1, 70, 96]), ("k9", [1, 1, 100, 96]),
                ("v9", [1, 1, 100, 96])):
    inputs.append(vi(n, dims))
    node("Cast", [n], [n + "h"], to=F16)
node("Transpose", ["k9h"], ["k9t"], perm=[0, 1, 3, 2])
node("MatMul", ["q9h", "k9t"], ["s9"])
node("Mul", ["s9", init("c9", np.array(0.1, np.float16))], ["s9s"])
node("Softmax", ["s9s"], ["p9"], axis=-1)
node("MatMul", ["p9", "v9h"], ["o9"])
node("Cast", ["o9"], ["half_y9"], to=F32)
outputs.append(vi("half_y9", [1, 1, 70, 96]))

graph = helper.make_graph(nodes, "attention_mix", inputs, outputs, inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "attention_mix.onnx"))
