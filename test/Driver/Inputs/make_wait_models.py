"""Writes the ONNX models of wait-policy.test: `long`, a product of two
[1024, 512] x [512, 512] inputs and its tanh (about 270 MFLOP per step),
`short`, the same at [16, 64] x [64, 64], with their inputs, and `dynamic`,
`long` with a dynamic row count ('rows')."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(0)
for name, (m, k) in {"long": (1024, 512), "short": (16, 64), "dynamic": ("rows", 512)}.items():
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["a", "b"], ["p"]),
         helper.make_node("Tanh", ["p"], ["y"])], name,
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [m, k]),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, [k, k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [m, k])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))
    if name == "dynamic":
        continue
    np.save(os.path.join(out, name + ".a.npy"), rng.standard_normal((m, k)).astype(np.float32))
    np.save(os.path.join(out, name + ".b.npy"), rng.standard_normal((k, k)).astype(np.float32) / k)
