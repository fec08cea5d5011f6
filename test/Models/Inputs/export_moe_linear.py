"""Exports a mixture-of-experts layer whose experts are `nn.Linear` with
biases on 2-D rows (as Switch-style and DeepSpeed-MoE models write them):
the dropless expert loop of Hugging Face's Mixtral, with a SwiGLU expert
whose projections torch exports as Gemm (a 2-D input and a bias), around
an embedding and an LM head. Random weights, opset 17; saves an input and
PyTorch's logits.

  export_moe_linear.py OUT_DIR   writes moe_linear.onnx, .ids.npy, .torch.npy

Needs only torch (Debian's python3-torch).
"""
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Expert(nn.Module):
    def __init__(self, h, f):
        super().__init__()
        self.w1 = nn.Linear(h, f)
        self.w3 = nn.Linear(h, f)
        self.w2 = nn.Linear(f, h)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class Moe(nn.Module):
    def __init__(self, h, f, experts, k):
        super().__init__()
        self.gate = nn.Linear(h, experts, bias=False)
        self.experts = nn.ModuleList(Expert(h, f) for _ in range(experts))
        self.k = k

    def forward(self, x):
        b, s, h = x.shape
        x = x.view(-1, h)
        probs = F.softmax(self.gate(x), dim=1)
        weights, chosen = torch.topk(probs, self.k, dim=-1)
        weights = weights / weights.sum(dim=-1, keepdim=True)
        out = torch.zeros_like(x)
        mask = F.one_hot(chosen, num_classes=len(self.experts)).permute(2, 1, 0)
        for e, expert in enumerate(self.experts):
            idx, top = torch.where(mask[e])
            y = expert(x[top]) * weights[top, idx, None]
            out.index_add_(0, top, y)
        return out.view(b, s, h)


class Model(nn.Module):
    def __init__(self, vocab=64, h=32, f=48, experts=4, k=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, h)
        self.moe = Moe(h, f, experts, k)
        self.head = nn.Linear(h, vocab)

    def forward(self, ids):
        x = self.embed(ids)
        return self.head(x + self.moe(x))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    model = Model().eval()
    ids = torch.randint(0, 64, (2, 8))
    with torch.no_grad():
        logits = model(ids)
    torch.onnx.export(model, (ids,), os.path.join(out, "moe_linear.onnx"),
                      opset_version=17, input_names=["ids"],
                      output_names=["logits"])
    np.save(os.path.join(out, "moe_linear.ids.npy"), ids.numpy())
    np.save(os.path.join(out, "moe_linear.torch.npy"), logits.numpy())


if __name__ == "__main__":
    main()
