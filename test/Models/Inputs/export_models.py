"""Exports the model-level test models with Debian's python3-torch:

  gpt2_opset{14,17}.onnx  a GPT-2-style decoder: token + position embedding,
                          causal self-attention, GELU MLP, LayerNorm, and an LM
                          head tied to the token embedding
  cnn_opset{14,17}.onnx   a small CNN: conv, batch norm, ReLU, max pool, residual
                          add, global average pool, linear

Batch and sequence dims are exported as dynamic, so the graphs carry the
Shape/Gather/Concat arithmetic that real exports have.

usage: export_models.py OUT_DIR [--tiny-example PATH]
"""
import math
import os
import sys

import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, d, heads, ctx):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(4 * d, d)
        self.register_buffer("mask", torch.tril(torch.ones(ctx, ctx, dtype=torch.bool)).view(1, 1, ctx, ctx))

    def forward(self, x):
        b, t, d = x.shape
        h = self.heads
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q = q.view(b, t, h, d // h).transpose(1, 2)
        k = k.view(b, t, h, d // h).transpose(1, 2)
        v = v.view(b, t, h, d // h).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(k.size(-1))
        att = att.masked_fill(~self.mask[:, :, :t, :t], float("-inf"))
        y = torch.softmax(att, dim=-1) @ v
        y = y.transpose(1, 2).contiguous().view(b, t, d)
        x = x + self.proj(y)
        return x + self.fc2(self.act(self.fc1(self.ln2(x))))


class GPT2(nn.Module):
    def __init__(self, vocab=512, d=64, heads=4, layers=2, ctx=64):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(ctx, d)
        self.blocks = nn.ModuleList([Block(d, heads, ctx) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.head.weight = self.wte.weight  # tied

    def forward(self, ids):
        pos = torch.arange(ids.shape[1], device=ids.device).unsqueeze(0)
        x = self.wte(ids) + self.wpe(pos)
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln_f(x))


class CNN(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                                  nn.MaxPool2d(2))
        self.body = nn.Sequential(nn.Conv2d(16, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                                  nn.Conv2d(16, 16, 3, padding=1), nn.BatchNorm2d(16))
        self.relu = nn.ReLU()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, classes)

    def forward(self, x):
        x = self.stem(x)
        x = self.relu(x + self.body(x))
        return self.fc(torch.flatten(self.pool(x), 1))


def export(model, args, path, names, dynamic, opset):
    model.eval()
    torch.onnx.export(model, args, path, input_names=names[:1], output_names=names[1:],
                      dynamic_axes=dynamic, opset_version=opset)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    gpt2, cnn = GPT2(), CNN()
    for opset in (14, 17):
        export(gpt2, (torch.randint(0, 512, (1, 16)),), os.path.join(out, "gpt2_opset%d.onnx" % opset),
               ["ids", "logits"], {"ids": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}}, opset)
        export(cnn, (torch.randn(1, 3, 32, 32),), os.path.join(out, "cnn_opset%d.onnx" % opset),
               ["image", "scores"], {"image": {0: "batch"}, "scores": {0: "batch"}}, opset)


if __name__ == "__main__":
    main()
