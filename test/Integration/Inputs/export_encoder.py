"""PyTorch's own nn.TransformerEncoder (2 layers, d=64, 4 heads, ReLU MLP),
exported at opset 17 with its input and PyTorch's output.

  export_encoder.py DIR   writes DIR/encoder.onnx, DIR/x.npy, DIR/torch.npy
(batch_first=False: PyTorch 1.13 cannot export the fused fast path.)
"""
import os
import sys

import numpy as np
import torch

d = sys.argv[1]
torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=256,
                                         dropout=0.0, batch_first=False)
encoder = torch.nn.TransformerEncoder(layer, num_layers=2).eval()
x = torch.randn(16, 1, 64)
torch.onnx.export(encoder, (x,), os.path.join(d, "encoder.onnx"), opset_version=17,
                  input_names=["x"], output_names=["y"])
np.save(os.path.join(d, "x.npy"), x.numpy())
with torch.no_grad():
    np.save(os.path.join(d, "torch.npy"), encoder(x).numpy())
