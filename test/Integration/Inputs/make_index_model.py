#!/usr/bin/env python3
"""A model whose index ops read a tensor that tensor parallelism splits
(test/Integration/bad-index.test): y = relu(x @ w1) @ w2 ([4, 8], its
projections Megatron-split), then GatherElements(y, ie) along dim 1,
ScatterND(y, isn, upd) on rows and GatherND(y, ind) of (row, column)
pairs.

  make_index_model.py OUT_DIR

Writes index.onnx, its inputs x.npy, upd.npy, and index tensors: good ones
(negatives included) and bad ones (ie_bad: 8 on a dim of 8; isn_bad: -5 on
a dim of 4; ind_bad: column 8 on a dim of 8).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper, numpy_helper


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(0)
    w1 = numpy_helper.from_array(rng.standard_normal((8, 16)).astype(np.float32), "w1")
    w2 = numpy_helper.from_array(rng.standard_normal((16, 8)).astype(np.float32), "w2")
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h"]),
        helper.make_node("Relu", ["h"], ["r"]),
        helper.make_node("MatMul", ["r", "w2"], ["y"]),
        helper.make_node("GatherElements", ["y", "ie"], ["ge"], axis=1),
        helper.make_node("ScatterND", ["y", "isn", "upd"], ["sn"]),
        helper.make_node("GatherND", ["y", "ind"], ["gn"]),
    ]
    inputs = [helper.make_tensor_value_info("x", T.FLOAT, [4, 8]),
              helper.make_tensor_value_info("ie", T.INT64, [4, 2]),
              helper.make_tensor_value_info("isn", T.INT64, [2, 1]),
              helper.make_tensor_value_info("upd", T.FLOAT, [2, 8]),
              helper.make_tensor_value_info("ind", T.INT64, [3, 2])]
    outputs = [helper.make_tensor_value_info(n, T.FLOAT, s)
               for n, s in (("ge", [4, 2]), ("sn", [4, 8]), ("gn", [3]))]
    g = helper.make_graph(nodes, "index", inputs, outputs, [w1, w2])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(out, "index.onnx"))
    np.save(os.path.join(out, "x.npy"), rng.standard_normal((4, 8)).astype(np.float32))
    np.save(os.path.join(out, "upd.npy"), np.ones((2, 8), np.float32))
    np.save(os.path.join(out, "ie.npy"), np.array([[0, 7], [1, 2], [3, -8], [5, 6]], np.int64))
    np.save(os.path.join(out, "ie_bad.npy"), np.array([[0, 7], [1, 2], [3, 8], [5, 6]], np.int64))
    np.save(os.path.join(out, "isn.npy"), np.array([[1], [3]], np.int64))
    np.save(os.path.join(out, "isn_bad.npy"), np.array([[1], [-5]], np.int64))
    np.save(os.path.join(out, "ind.npy"), np.array([[0, 7], [3, -1], [-4, 2]], np.int64))
    np.save(os.path.join(out, "ind_bad.npy"), np.array([[0, 7], [3, 8], [1, 2]], np.int64))


if __name__ == "__main__":
    main()
