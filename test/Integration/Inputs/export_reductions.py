#!/usr/bin/env python3
"""Models whose reductions run over a dim that tensor parallelism splits
(test/Integration/partial-reductions.test).

  export_reductions.py OUT_DIR

Writes to OUT_DIR:
  reductions.onnx   x [1, 3, 8, 8], m [1, 12, 8, 8] -> y = tanh(conv(x)) + m
                    (12 output channels, split by --tp), then every ONNX
                    reduction over the channels (axis 1): ReduceMax, Min,
                    Sum, Mean, Prod, SumSquare, L1, L2, LogSum (of |y|+1),
                    LogSumExp; one output each, keepdims on and off
  cbam.onnx         a CNN with CBAM-style spatial attention (PyTorch export):
                    the channel max (x.amax(1)) and mean (x.mean(1)) of a
                    convolution's output, concatenated, a 7x7 convolution and
                    a sigmoid scale the features
  x.npy, m.npy, m_nan.npy, image.npy
                    inputs: m_nan holds NaN in channels 1 and 7 (a different
                    rank's channels at tp 2, 3 and 4) and +-inf beside them
  reference/NAME.npy  ONNX Runtime's outputs of reductions.onnx on (x, m)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def reductions_model(path):
    rng = np.random.default_rng(3)
    w = (rng.standard_normal((12, 3, 3, 3)) * 0.3).astype(np.float32)
    b = (rng.standard_normal(12) * 0.1).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Tanh", ["c"], ["t"]),
        helper.make_node("Add", ["t", "m"], ["y"]),
        helper.make_node("Abs", ["y"], ["ay"]),
        helper.make_node("Add", ["ay", "one"], ["pos"]),
    ]
    outputs = []
    axes = numpy_helper.from_array(np.array([1], np.int64), "axes")
    for op, src, keep in [("ReduceMax", "y", 1), ("ReduceMin", "y", 0),
                          ("ReduceSum", "y", 1), ("ReduceMean", "y", 0),
                          ("ReduceProd", "y", 1), ("ReduceSumSquare", "y", 0),
                          ("ReduceL1", "y", 1), ("ReduceL2", "y", 0),
                          ("ReduceLogSum", "pos", 1),
                          ("ReduceLogSumExp", "y", 0)]:
        name = op[len("Reduce"):].lower()
        # Opset 17: ReduceSum takes its axes as an input, the others as an
        # attribute.
        if op == "ReduceSum":
            nodes.append(helper.make_node(op, [src, "axes"], [name],
                                          keepdims=keep))
        else:
            nodes.append(helper.make_node(op, [src], [name], axes=[1],
                                          keepdims=keep))
        shape = [1, 1, 8, 8] if keep else [1, 8, 8]
        outputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT,
                                                     shape))
    graph = helper.make_graph(
        nodes, "reductions",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8]),
         helper.make_tensor_value_info("m", TensorProto.FLOAT, [1, 12, 8, 8])],
        outputs,
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b"),
         numpy_helper.from_array(np.array(1, np.float32), "one"), axes])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return [o.name for o in outputs]


def cbam_model(path):
    import torch
    from torch import nn

    class SpatialAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(2, 1, 7, padding=3)

        def forward(self, x):
            s = torch.cat([x.amax(1, keepdim=True), x.mean(1, keepdim=True)], 1)
            return x * torch.sigmoid(self.conv(s))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Conv2d(3, 16, 3, padding=1)
            self.att = SpatialAttention()
            self.body = nn.Conv2d(16, 16, 3, padding=1)
            self.head = nn.Linear(16, 10)

        def forward(self, image):
            x = torch.relu(self.stem(image))
            x = self.att(x)
            x = torch.relu(self.body(x))
            return self.head(x.mean((2, 3)))

    torch.manual_seed(0)
    net = Net().eval()
    image = torch.randn(1, 3, 16, 16)
    torch.onnx.export(net, (image,), path, input_names=["image"],
                      output_names=["scores"], opset_version=17)
    return image.numpy()


def main():
    out = sys.argv[1]
    os.makedirs(os.path.join(out, "reference"), exist_ok=True)
    names = reductions_model(os.path.join(out, "reductions.onnx"))
    rng = np.random.default_rng(7)
    x = rng.standard_normal((1, 3, 8, 8)).astype(np.float32)
    m = (rng.standard_normal((1, 12, 8, 8)) * 0.5).astype(np.float32)
    m_nan = m.copy()
    m_nan[0, 1, 0, :3] = np.nan
    m_nan[0, 7, 1, :3] = np.nan
    m_nan[0, 7, 0, 4] = np.inf
    m_nan[0, 1, 2, 5] = -np.inf
    m_nan[0, 10, 3, 6] = np.inf
    m_nan[0, 2, 3, 6] = -np.inf
    np.save(os.path.join(out, "x.npy"), x)
    np.save(os.path.join(out, "m.npy"), m)
    np.save(os.path.join(out, "m_nan.npy"), m_nan)
    import onnxruntime as ort
    sess = ort.InferenceSession(os.path.join(out, "reductions.onnx"),
                                providers=["CPUExecutionProvider"])
    for name, value in zip(names, sess.run(names, {"x": x, "m": m})):
        np.save(os.path.join(out, "reference", name + ".npy"), value)
    image = cbam_model(os.path.join(out, "cbam.onnx"))
    np.save(os.path.join(out, "image.npy"), image)


if __name__ == "__main__":
    main()
