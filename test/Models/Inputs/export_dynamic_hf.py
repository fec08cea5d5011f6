"""Exports tiny Hugging Face GPT-2, Llama (grouped-query attention: 4 query
heads, 2 KV heads) and BERT from configs (random weights, nothing
downloaded) with dynamic batch and sequence axes, as a user exports them:
`torch.onnx.export(..., dynamic_axes=...)` of the model called with
`input_ids` and `attention_mask`. For the bounded dynamic dims of issue 32
(`--max-shape`): their Shape arithmetic must fold on symbols.

gpt2_past.onnx and llama_past.onnx are GPT-2 and Llama (2 KV heads) with
their KV cache, as Optimum's with-past export flattens it: inputs
past_key_values.N.key/value [batch, kv heads, past, 8] besides input_ids
and attention_mask [batch, past + sequence], outputs logits and
present.N.key/value (issue 32, decoding). Their weights are drawn wider
(initializer_range 0.3) so that greedy decoding is not one repeated token.

  export_dynamic_hf.py OUT_DIR

Needs `transformers` (4.46); CI has none, so the exports are committed
under test/Models/Inputs/dynamic_hf/:

  /usr/bin/python3 -m venv --system-site-packages /tmp/hfvenv
  /tmp/hfvenv/bin/pip install transformers==4.46.0
  /tmp/hfvenv/bin/python test/Models/Inputs/export_dynamic_hf.py test/Models/Inputs/dynamic_hf
"""
import os
import sys

import torch
from transformers import (BertConfig, BertModel, GPT2Config, GPT2LMHeadModel,
                          LlamaConfig, LlamaForCausalLM)


class First(torch.nn.Module):
    """The model's first output (logits or the last hidden state)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask,
                          use_cache=False, return_dict=False)[0]


def models():
    yield "gpt2", GPT2LMHeadModel(GPT2Config(
        vocab_size=96, n_positions=64, n_embd=32, n_layer=2, n_head=4,
        use_cache=False, attn_implementation="eager"))
    yield "llama", LlamaForCausalLM(LlamaConfig(
        vocab_size=96, hidden_size=32, intermediate_size=48,
        num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
        max_position_embeddings=64, use_cache=False,
        attn_implementation="eager"))
    yield "bert", BertModel(BertConfig(
        vocab_size=96, hidden_size=32, num_hidden_layers=2,
        num_attention_heads=4, intermediate_size=48,
        max_position_embeddings=64, attn_implementation="eager"),
        add_pooling_layer=False)


class WithPast(torch.nn.Module):
    """Logits and the present keys and values, flattened."""

    def __init__(self, model, layers):
        super().__init__()
        self.model = model
        self.layers = layers

    def forward(self, input_ids, attention_mask, *past):
        return self.run(input_ids, attention_mask, None, past)

    def run(self, input_ids, attention_mask, position_ids, past):
        pkv = tuple((past[2 * i], past[2 * i + 1]) for i in range(self.layers))
        out = self.model(input_ids=input_ids, attention_mask=attention_mask,
                         position_ids=position_ids, past_key_values=pkv,
                         use_cache=True, return_dict=False)
        flat = [out[0]]
        for k, v in out[1]:
            flat += [k, v]
        return tuple(flat)


class WithPastPositions(WithPast):
    """WithPast that also takes position_ids, as Optimum's Llama export
    does (a left-padded row's positions count its tokens, not the pads)."""

    def forward(self, input_ids, attention_mask, position_ids, *past):
        return self.run(input_ids, attention_mask, position_ids, past)


def with_past_models(layers):
    yield "gpt2_past", 4, GPT2LMHeadModel(GPT2Config(
        vocab_size=96, n_positions=64, n_embd=32, n_layer=layers, n_head=4,
        initializer_range=0.3, attn_implementation="eager"))
    yield "llama_past", 2, LlamaForCausalLM(LlamaConfig(
        vocab_size=96, hidden_size=32, intermediate_size=48,
        num_hidden_layers=layers, num_attention_heads=4, num_key_value_heads=2,
        max_position_embeddings=64, initializer_range=0.3,
        attn_implementation="eager"))


def export_with_past(out):
    layers = 2
    torch.manual_seed(0)
    for name, kv_heads, model in with_past_models(layers):
        export_one_with_past(os.path.join(out, name + ".onnx"), model.eval(),
                             layers, kv_heads)
        if name == "llama_past":  # and with position_ids
            export_one_with_past(os.path.join(out, "llama_past_pos.onnx"),
                                 model.eval(), layers, kv_heads, positions=True)


def export_one_with_past(path, model, layers, kv_heads, head_dim=8,
                         positions=False):
    """`model` with its cache flattened (WithPast), batch, sequence and past
    dynamic (bench/bench_decode.py exports a GPT-2-sized one with it); with
    `positions`, position_ids [batch, sequence] too (WithPastPositions)."""
    torch.manual_seed(0)
    b, s, p = 2, 3, 5
    ids = torch.randint(0, 96, (b, s))
    mask = torch.ones(b, p + s, dtype=torch.int64)
    past = [torch.randn(b, kv_heads, p, head_dim) for _ in range(2 * layers)]
    inputs, outputs = ["input_ids", "attention_mask"], ["logits"]
    axes = {"input_ids": {0: "batch", 1: "sequence"},
            "attention_mask": {0: "batch", 1: "past_sequence + sequence"},
            "logits": {0: "batch", 1: "sequence"}}
    wrapper, args = WithPast(model, layers), (ids, mask)
    if positions:
        wrapper = WithPastPositions(model, layers)
        args = (ids, mask, torch.arange(p, p + s).expand(b, s))
        inputs.append("position_ids")
        axes["position_ids"] = {0: "batch", 1: "sequence"}
    for i in range(layers):
        for kv in ("key", "value"):
            inputs.append("past_key_values.%d.%s" % (i, kv))
            axes[inputs[-1]] = {0: "batch", 2: "past_sequence"}
            outputs.append("present.%d.%s" % (i, kv))
            axes[outputs[-1]] = {0: "batch", 2: "past_sequence + sequence"}
    torch.onnx.export(wrapper, (*args, *past), path,
                      opset_version=17, input_names=inputs,
                      output_names=outputs, dynamic_axes=axes)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    ids = torch.randint(0, 96, (2, 8))
    mask = torch.ones(2, 8, dtype=torch.int64)
    axes = {0: "batch", 1: "sequence"}
    for name, model in models():
        torch.onnx.export(
            First(model.eval()), (ids, mask), os.path.join(out, name + ".onnx"),
            opset_version=17, input_names=["input_ids", "attention_mask"],
            output_names=["output"],
            dynamic_axes={"input_ids": axes, "attention_mask": axes,
                          "output": axes})
    export_with_past(out)


if __name__ == "__main__":
    main()
