"""Exports a model with Debian's python3-torch and saves an input and PyTorch's
output for it, so the compiled executable can be compared with PyTorch.

  torch_reference.py MODEL OPSET OUT_DIR

MODEL is gpt2 or cnn (test/Models/Inputs/export_models.py), or mobilenet_v3_small
or resnet18 (torchvision architectures with random weights, seeded). Writes
OUT_DIR/MODEL_opsetN.onnx, OUT_DIR/MODEL_opsetN.input.npy and
OUT_DIR/MODEL_opsetN.torch.npy; prints the --input-shape flag for shardc.
"""
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_models  # noqa: E402


def build(name):
    torch.manual_seed(0)
    if name == "gpt2":
        return export_models.GPT2(), torch.randint(0, 512, (2, 16)), ("ids", "logits")
    if name == "cnn":
        model = export_models.CNN()
        # Non-trivial batch-norm statistics, so the test sees them.
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
        return model, torch.randn(2, 3, 32, 32), ("image", "scores")
    import torchvision
    model = getattr(torchvision.models, name)(weights=None)
    return model, torch.randn(1, 3, 224, 224), ("image", "scores")


def main():
    name, opset, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    os.makedirs(out, exist_ok=True)
    model, x, (inp, outp) = build(name)
    model.eval()
    stem = os.path.join(out, "%s_opset%d" % (name, opset))
    with torch.no_grad():
        y = model(x)
    torch.onnx.export(model, (x,), stem + ".onnx", input_names=[inp], output_names=[outp],
                      dynamic_axes={inp: {0: "batch"}, outp: {0: "batch"}}, opset_version=opset)
    np.save(stem + ".input.npy", x.numpy())
    np.save(stem + ".torch.npy", y.numpy())
    print("%s=%s" % (inp, "x".join(str(d) for d in x.shape)))


if __name__ == "__main__":
    main()
