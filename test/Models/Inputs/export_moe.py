"""Exports tiny Hugging Face mixture-of-experts decoders (Mixtral, Qwen2-MoE,
OLMoE) with random weights, and saves an input and PyTorch's logits for each.

  export_moe.py OUT_DIR

This needs `transformers` (4.46, built from a config: nothing is downloaded)
and torch; CI has neither transformers nor a torch wheel, so the exported
files are committed under test/Models/Inputs/moe/ and this script documents
how they were made (torch 1.13's exporter, opset 17):

  python3 -m venv --system-site-packages /tmp/moevenv
  /tmp/moevenv/bin/pip install transformers==4.46.0
  /tmp/moevenv/bin/python test/Models/Inputs/export_moe.py test/Models/Inputs/moe

The exports keep Hugging Face's dropless expert loop as the exporter traces
it: OneHot of the top-k experts, then per expert NonZero (a data-dependent
row count), a Gather of the routed tokens, the expert MLP, and an index_add
(ScatterElements into zeros, then Add).
"""
import os
import sys

import numpy as np
import torch
import transformers
from transformers import (MixtralConfig, MixtralForCausalLM, OlmoeConfig,
                          OlmoeForCausalLM, Qwen2MoeConfig, Qwen2MoeForCausalLM)

COMMON = dict(vocab_size=96, hidden_size=32, num_hidden_layers=2,
              num_attention_heads=4, num_key_value_heads=2,
              max_position_embeddings=64, use_cache=False,
              initializer_range=0.2, attn_implementation="eager")


def build(name):
    if name == "mixtral":
        cfg = MixtralConfig(intermediate_size=48, num_local_experts=4,
                            num_experts_per_tok=2, **COMMON)
        return MixtralForCausalLM(cfg)
    if name == "qwen2_moe":
        cfg = Qwen2MoeConfig(intermediate_size=64, moe_intermediate_size=24,
                             shared_expert_intermediate_size=40, num_experts=6,
                             num_experts_per_tok=2, norm_topk_prob=False,
                             decoder_sparse_step=1, **COMMON)
        return Qwen2MoeForCausalLM(cfg)
    if name == "olmoe":
        cfg = OlmoeConfig(intermediate_size=40, num_experts=8,
                          num_experts_per_tok=3, norm_topk_prob=False, **COMMON)
        return OlmoeForCausalLM(cfg)
    raise SystemExit("unknown model " + name)


class Logits(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, ids):
        return self.model(input_ids=ids, use_cache=False, return_dict=False)[0]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name in ("mixtral", "qwen2_moe", "olmoe"):
        torch.manual_seed(0)
        model = Logits(build(name)).eval()
        ids = torch.randint(0, 96, (2, 8))
        with torch.no_grad():
            logits = model(ids)
        path = os.path.join(out, name + ".onnx")
        torch.onnx.export(model, (ids,), path, opset_version=17,
                          input_names=["ids"], output_names=["logits"])
        np.save(os.path.join(out, name + ".ids.npy"), ids.numpy())
        np.save(os.path.join(out, name + ".torch.npy"), logits.numpy())
        print("%s: %d bytes, logits %s (torch %s, transformers %s)" % (
            path, os.path.getsize(path), tuple(logits.shape),
            torch.__version__, transformers.__version__))
        if name == "mixtral":
            # The same weights with dynamic batch and sequence axes (bound
            # by --input-shape): token counts expert parallelism does not
            # divide (7; a decode step's 1).
            path = os.path.join(out, name + "_dynamic.onnx")
            torch.onnx.export(model, (ids,), path, opset_version=17,
                              input_names=["ids"], output_names=["logits"],
                              dynamic_axes={"ids": {0: "batch", 1: "seq"},
                                            "logits": {0: "batch", 1: "seq"}})
            for n in (7, 1):
                few = ids[:1, :n]
                with torch.no_grad():
                    np.save(os.path.join(out, "%s.%d.torch.npy" % (name, n)),
                            model(few).numpy())
                np.save(os.path.join(out, "%s.%d.ids.npy" % (name, n)),
                        few.numpy())


if __name__ == "__main__":
    main()
