"""Writes lm_head.onnx and ids.npy into the given directory: an embedding
of a 1031-token vocabulary (64 wide), tanh, and an LM head by a [64, 1031]
weight, for ids [2, 24]: logits [2, 24, 1031]. The vocabulary is odd, so
programs with CUDA code pad the head's columns (graph-pad-columns)."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
V, H = 1031, 64
rng = np.random.default_rng(3)
emb = (rng.standard_normal((V, H)) * 0.5).astype(np.float32)
w = (rng.standard_normal((H, V)) * 0.2).astype(np.float32)
nodes = [helper.make_node("Gather", ["emb", "ids"], ["h"], axis=0),
         helper.make_node("Tanh", ["h"], ["t"]),
         helper.make_node("MatMul", ["t", "w"], ["logits"])]
graph = helper.make_graph(
    nodes, "lm_head", [helper.make_tensor_value_info("ids", TensorProto.INT64, [2, 24])],
    [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [2, 24, V])],
    [numpy_helper.from_array(emb, "emb"), numpy_helper.from_array(w, "w")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "lm_head.onnx"))
np.save(os.path.join(out, "ids.npy"), rng.integers(0, V, (2, 24)).astype(np.int64))
