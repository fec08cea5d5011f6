"""Model.generate through the Python package (shardc_generate underneath):
a with-past decoder export compiled with shardc.compile into a library,
greedy ids against ONNX Runtime's own loop (generate_ort.py), a ragged
batch, the same seed giving the same sampled ids, and errors as one line.

  generate.py MODEL.onnx WORKDIR
"""
import os
import subprocess
import sys

import numpy as np
import shardc

model, work = sys.argv[1], sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))
ort_loop = os.path.join(here, "..", "..", "Models", "Inputs", "generate_ort.py")
lib = os.path.join(work, "decoder")
shardc.compile(model, lib, max_shape={"input_ids": (2, 8),
                                      "past_key_values.0.key": (2, 2, 24, 8)})
m = shardc.load(lib)
prompt = np.array([[5, 17, 33], [7, 8, 9]], np.int64)
ids = m.generate(prompt, 20)
print("greedy:", ids.shape, ids.dtype)
np.save(os.path.join(work, "prompt.npy"), prompt)
np.save(os.path.join(work, "ids.npy"), ids)
print(subprocess.run([sys.executable, ort_loop, model, os.path.join(work, "prompt.npy"), "20",
                      "--check", os.path.join(work, "ids.npy")],
                     capture_output=True, text=True, check=True).stdout.splitlines()[-1])

# A ragged batch: row 1's first two ids, left-padded and masked.
ragged = m.generate(np.array([[5, 17, 33], [7, 8, 0]]), 20, prompt_lengths=[3, 2])
mask = np.array([[1, 1, 1], [0, 1, 1]], np.int64)
masked = m.generate(np.array([[5, 17, 33], [0, 7, 8]]), 20, attention_mask=mask)
print("ragged as masked:", bool((ragged == masked).all()))

a = m.generate(prompt, 12, temperature=0.8, top_k=20, top_p=0.9, seed=7)
b = m.generate(prompt, 12, temperature=0.8, top_k=20, top_p=0.9, seed=7)
print("sampled twice alike:", bool((a == b).all()), a.shape)

for label, call in (
        ("too long", lambda: m.generate(prompt, 30)),
        ("bad ids", lambda: m.generate(np.zeros(3), 2)),
        ("bad mask", lambda: m.generate(prompt, 2, attention_mask=np.ones((2, 2)))),
        ("bad top_p", lambda: m.generate(prompt, 2, temperature=1, top_p=1.5)),
        ("bad lengths", lambda: m.generate(prompt, 2, prompt_lengths=[3]))):
    try:
        call()
        print(label + ": no error")
    except shardc.ShardcError as e:
        print("%s: %s" % (label, e))
