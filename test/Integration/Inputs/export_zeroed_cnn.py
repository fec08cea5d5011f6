"""A small CNN with whole channels zeroed, exported at opset 17 with its
input and PyTorch's output:

  export_zeroed_cnn.py DIR     writes DIR/cnn.onnx, DIR/x.npy, DIR/torch.npy

conv1 (3 -> 16, 3x3, padded) + ReLU, conv2 (16 -> 16, 1x1) + ReLU, conv3
(16 -> 8, 1x1), seeded random weights. conv2's filters read conv1's
channels 0-3 through zeros (silent channels), and conv2's own filters 4-7
are zero, so those channels are the constant relu(bias), which the
unpadded conv3 folds into its bias: graph-prune-lossless removes 8
channels and the output must not change.
"""
import os
import sys

import numpy as np
import torch
import torch.nn as nn


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    m = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(),
                      nn.Conv2d(16, 16, 1), nn.ReLU(),
                      nn.Conv2d(16, 8, 1)).eval()
    with torch.no_grad():
        m[2].weight[:, 0:4] = 0
        m[2].weight[4:8] = 0
        m[2].bias[4:8] = torch.tensor([0.5, -0.25, 1.0, 0.75])
    x = torch.randn(1, 3, 16, 16)
    torch.onnx.export(m, (x,), os.path.join(out, "cnn.onnx"),
                      input_names=["x"], output_names=["y"], opset_version=17)
    np.save(os.path.join(out, "x.npy"), x.numpy())
    np.save(os.path.join(out, "torch.npy"), m(x).detach().numpy())


if __name__ == "__main__":
    main()
