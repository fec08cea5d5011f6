"""Exports a tiny Hugging Face Llama (grouped-query attention: 4 query heads,
2 KV heads) called with `attention_mask`, random weights, and saves an
input (row 1 left-padded by 3 tokens) and PyTorch's logits.

  export_llama_mask.py OUT_DIR

Hugging Face builds the 4-D causal mask from `attention_mask` with a slice
assignment that the exporter writes as ScatterND; micro-batching and data
parallelism must see that it keeps the batch rows apart. This needs
`transformers` (4.46, from a config: nothing is downloaded); CI has none,
so the export is committed under test/Models/Inputs/llama_mask/:

  /usr/bin/python3 -m venv --system-site-packages /tmp/hfvenv
  /tmp/hfvenv/bin/pip install transformers==4.46.0
  /tmp/hfvenv/bin/python test/Models/Inputs/export_llama_mask.py test/Models/Inputs/llama_mask
"""
import os
import sys

import numpy as np
import torch
from transformers import LlamaConfig, LlamaForCausalLM


class Logits(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, ids, mask):
        return self.model(input_ids=ids, attention_mask=mask, use_cache=False,
                          return_dict=False)[0]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    cfg = LlamaConfig(vocab_size=96, hidden_size=32, intermediate_size=48,
                      num_hidden_layers=2, num_attention_heads=4,
                      num_key_value_heads=2, max_position_embeddings=64,
                      use_cache=False, attn_implementation="eager")
    torch.manual_seed(0)
    model = Logits(LlamaForCausalLM(cfg)).eval()
    ids = torch.randint(0, 96, (2, 8))
    mask = torch.ones(2, 8, dtype=torch.int64)
    mask[1, :3] = 0
    with torch.no_grad():
        logits = model(ids, mask)
    torch.onnx.export(model, (ids, mask), os.path.join(out, "llama_mask.onnx"),
                      opset_version=17, input_names=["ids", "mask"],
                      output_names=["logits"])
    np.save(os.path.join(out, "ids.npy"), ids.numpy())
    np.save(os.path.join(out, "mask.npy"), mask.numpy())
    np.save(os.path.join(out, "torch.npy"), logits.numpy())


if __name__ == "__main__":
    main()
