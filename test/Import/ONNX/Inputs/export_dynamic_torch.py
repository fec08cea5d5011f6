#!/usr/bin/env python3
"""A small decoder block written the way Hugging Face writes GPT-2 and BERT
(position ids sliced from a buffer by the sequence length, a causal mask
sliced from a triangle buffer, heads split and merged by `view(b, t, ...)`,
a padding mask `(1 - m[:, None, None, :]) * min`), exported by
torch.onnx.export with dynamic batch and sequence axes: every reshape
target and slice bound is Shape/Gather/Concat arithmetic on the inputs'
dims.

  export_dynamic_torch.py OUT.onnx [--arange]

With --arange the position ids are GPT-2's `torch.arange(0, t)` instead of
BERT's slice of a buffer.
"""
import math
import sys

import torch
from torch import nn

HIDDEN, HEADS, VOCAB, MAXPOS = 32, 4, 50, 64


class Block(nn.Module):
    def __init__(self, arange=False):
        super().__init__()
        self.arange = arange
        self.wte = nn.Embedding(VOCAB, HIDDEN)
        self.wpe = nn.Embedding(MAXPOS, HIDDEN)
        self.register_buffer("position_ids", torch.arange(MAXPOS).unsqueeze(0))
        self.register_buffer(
            "bias", torch.tril(torch.ones(MAXPOS, MAXPOS)).view(1, 1, MAXPOS, MAXPOS))
        self.ln = nn.LayerNorm(HIDDEN)
        self.qkv = nn.Linear(HIDDEN, 3 * HIDDEN)
        self.proj = nn.Linear(HIDDEN, HIDDEN)

    def forward(self, input_ids, attention_mask):
        b, t = input_ids.shape
        if self.arange:
            pos = torch.arange(0, t, dtype=torch.long).unsqueeze(0)
        else:
            pos = self.position_ids[:, :t]
        x = self.wte(input_ids) + self.wpe(pos)
        q, k, v = self.qkv(self.ln(x)).split(HIDDEN, dim=2)
        hd = HIDDEN // HEADS
        q = q.view(b, t, HEADS, hd).transpose(1, 2)
        k = k.view(b, t, HEADS, hd).transpose(1, 2)
        v = v.view(b, t, HEADS, hd).transpose(1, 2)
        att = q @ k.transpose(-1, -2) / math.sqrt(hd)
        causal = self.bias[:, :, :t, :t]
        att = att.masked_fill(causal == 0, -1e4)
        pad = (1.0 - attention_mask[:, None, None, :].to(att.dtype)) * -1e4
        att = (att + pad).softmax(-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, HIDDEN)
        return self.proj(y) + x


def main():
    torch.manual_seed(0)
    model = Block(arange="--arange" in sys.argv).eval()
    ids = torch.randint(0, VOCAB, (2, 7))
    mask = torch.ones(2, 7, dtype=torch.int64)
    torch.onnx.export(
        model, (ids, mask), sys.argv[1], opset_version=17,
        input_names=["input_ids", "attention_mask"], output_names=["hidden"],
        dynamic_axes={"input_ids": {0: "batch", 1: "seq"},
                      "attention_mask": {0: "batch", 1: "seq"},
                      "hidden": {0: "batch", 1: "seq"}})


if __name__ == "__main__":
    main()
