"""A small GPT-2-style language model whose next-token choice depends on
its blocks, for metrics on logits.

  make_lm.py OUT.onnx

test/Models' GPT2 (2 layers, d 64, 4 heads, vocabulary 512), seed 0, with
its LM head untied from the embedding (its own random [512, 64] weight)
and the blocks' output projections (attention and MLP) scaled by 4: with
the tied head and default scales the argmax of each position's logits is
its own input token, whatever the blocks compute, and top-1 agreement
would measure nothing. Exported with ids [1, 16] (batch and sequence
dynamic), opset 17.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "Models", "Inputs"))
import export_models  # noqa: E402

torch.manual_seed(0)
model = export_models.GPT2()
model.head = torch.nn.Linear(64, 512, bias=False)
with torch.no_grad():
    for blk in model.blocks:
        blk.proj.weight.mul_(4)
        blk.fc2.weight.mul_(4)
export_models.export(model, (torch.randint(0, 512, (1, 16)),), sys.argv[1],
                     ["ids", "logits"], {"ids": {0: "batch", 1: "seq"}}, 17)
