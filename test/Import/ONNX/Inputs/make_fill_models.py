#!/usr/bin/env python3
"""Models whose ConstantOfShape is larger than the importer folds (2^20
elements): a causal mask of 1100 x 1100 built the way Hugging Face's Llama
export builds it (ConstantOfShape of the sequence length squared, filled
with the dtype's lowest value, then Trilu), added to scores read from the
input, and a tensor of 1200 x 1000 int64 ones (as a MoE export's zeros);
and one whose shape has a negative dim, which must be refused.

  make_fill_models.py OUT_DIR        writes the models and x.npy
  make_fill_models.py --run M X OUT  runs M on X with onnxruntime
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

S = 1100


def mask_model():
    # shape = Shape(x)[-2:] (S, S): known at compile time from x's type.
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"], start=-2),
        helper.make_node("ConstantOfShape", ["shape"], ["fill"], name="fill",
                         value=helper.make_tensor("v", TensorProto.FLOAT, [1],
                                                  [np.finfo(np.float32).min])),
        helper.make_node("Trilu", ["fill", "one"], ["mask"], name="triu", upper=1),
        helper.make_node("Add", ["x", "mask"], ["y"], name="add"),
    ]
    g = helper.make_graph(
        nodes, "mask",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, S, S])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, S, S])],
        [helper.make_tensor("one", TensorProto.INT64, [], [1])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def ones_model():
    nodes = [
        helper.make_node("ConstantOfShape", ["shape"], ["ones"], name="ones",
                         value=helper.make_tensor("v", TensorProto.INT64, [1], [1])),
        helper.make_node("Cast", ["ones"], ["f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["x", "f"], ["y"], name="mul"),
    ]
    g = helper.make_graph(
        nodes, "ones",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1200, 1000])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1200, 1000])],
        [helper.make_tensor("shape", TensorProto.INT64, [2], [1200, 1000])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def negative_model():
    nodes = [helper.make_node("ConstantOfShape", ["shape"], ["y"], name="fill")]
    g = helper.make_graph(
        nodes, "negative", [],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [helper.make_tensor("shape", TensorProto.INT64, [2], [-2000, 1000])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def main():
    if sys.argv[1] == "--run":
        import onnxruntime as ort
        path, x, out = sys.argv[2:5]
        s = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        np.save(out, s.run(None, {"x": np.load(x)})[0])
        return
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(3)
    np.save(os.path.join(out, "x.npy"), rng.standard_normal((1, S, S)).astype(np.float32))
    np.save(os.path.join(out, "x2.npy"), rng.standard_normal((1200, 1000)).astype(np.float32))
    for name, m in (("mask", mask_model()), ("ones", ones_model())):
        onnx.checker.check_model(m)
        onnx.save(m, os.path.join(out, name + ".onnx"))
    onnx.save(negative_model(), os.path.join(out, "negative.onnx"))


if __name__ == "__main__":
    main()
