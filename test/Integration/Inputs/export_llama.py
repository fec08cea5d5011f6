"""A Llama-style decoder block stack (RMSNorm, rotary embeddings, grouped-
query attention with 4 query heads and 2 KV heads, SwiGLU MLP), random
weights, exported at opset 17 with its input and PyTorch's output.

  export_llama.py DIR [--heads H] [--kv-heads KV] [--qkv-bias] [--name N]
      writes DIR/N.onnx (default llama.onnx), DIR/x.npy, DIR/torch.npy
      (DIR/N.x.npy, DIR/N.torch.npy with --name): Llama's layout by
      default; --kv-heads 1 is multi-query attention, --qkv-bias Qwen2's
      biased q, k and v projections.
"""
import argparse
import math
import os
import sys

import numpy as np
import torch
import torch.nn as nn


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(d) + 0.5)
        self.eps = eps

    def forward(self, x):
        v = x.pow(2).mean(-1, keepdim=True)
        return x * torch.rsqrt(v + self.eps) * self.weight


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class Block(nn.Module):
    def __init__(self, d=64, heads=4, kv_heads=2, ffn=128, seq=16, bias=False):
        super().__init__()
        self.h, self.kv, self.hd = heads, kv_heads, d // heads
        self.norm1, self.norm2 = RMSNorm(d), RMSNorm(d)
        self.q = nn.Linear(d, heads * self.hd, bias=bias)
        self.k = nn.Linear(d, kv_heads * self.hd, bias=bias)
        self.v = nn.Linear(d, kv_heads * self.hd, bias=bias)
        self.o = nn.Linear(heads * self.hd, d, bias=False)
        self.gate = nn.Linear(d, ffn, bias=False)
        self.up = nn.Linear(d, ffn, bias=False)
        self.down = nn.Linear(ffn, d, bias=False)
        inv = 1.0 / (10000 ** (torch.arange(0, self.hd, 2).float() / self.hd))
        t = torch.arange(seq).float()
        freqs = torch.outer(t, inv)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos", emb.cos()[None, None])
        self.register_buffer("sin", emb.sin()[None, None])
        self.register_buffer("mask", torch.full((seq, seq), float("-inf")).triu(1))

    def forward(self, x):
        b, s = 1, 16  # static shapes
        h = self.norm1(x)
        q = self.q(h).view(b, s, self.h, self.hd).transpose(1, 2)
        k = self.k(h).view(b, s, self.kv, self.hd).transpose(1, 2)
        v = self.v(h).view(b, s, self.kv, self.hd).transpose(1, 2)
        q = q * self.cos + rotate_half(q) * self.sin
        k = k * self.cos + rotate_half(k) * self.sin
        # Grouped-query attention: each KV head serves h / kv query heads.
        rep = self.h // self.kv
        k = k[:, :, None].expand(b, self.kv, rep, s, self.hd).reshape(b, self.h, s, self.hd)
        v = v[:, :, None].expand(b, self.kv, rep, s, self.hd).reshape(b, self.h, s, self.hd)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(self.hd) + self.mask
        y = torch.softmax(att, dim=-1) @ v
        y = y.transpose(1, 2).reshape(b, s, self.h * self.hd)
        x = x + self.o(y)
        h = self.norm2(x)
        return x + self.down(torch.nn.functional.silu(self.gate(h)) * self.up(h))


ap = argparse.ArgumentParser()
ap.add_argument("dir")
ap.add_argument("--heads", type=int, default=4)
ap.add_argument("--kv-heads", type=int, default=2)
ap.add_argument("--qkv-bias", action="store_true")
ap.add_argument("--name", default="")
args = ap.parse_args()
d = args.dir
torch.manual_seed(0)
blocks = [Block(heads=args.heads, kv_heads=args.kv_heads, bias=args.qkv_bias)
          for _ in range(2)]
if args.qkv_bias:  # nn.Linear's biases are small; make them matter
    with torch.no_grad():
        for blk in blocks:
            for lin in (blk.q, blk.k, blk.v):
                lin.bias.uniform_(-1, 1)
model = nn.Sequential(*blocks).eval()
x = torch.randn(1, 16, 64)
name = args.name or "llama"
pre = args.name + "." if args.name else ""
torch.onnx.export(model, (x,), os.path.join(d, name + ".onnx"), opset_version=17,
                  input_names=["x"], output_names=["y"])
np.save(os.path.join(d, pre + "x.npy"), x.numpy())
with torch.no_grad():
    np.save(os.path.join(d, pre + "torch.npy"), model(x).numpy())
