"""Checks each run of test/Integration/vocab-padding.test against numpy:
table[ids] @ head, with the table and head of Inputs/vocab-odd.mlir."""
import os
import sys

import numpy as np

table = np.arange(28, dtype=np.float32).reshape(7, 4) / 2
head = np.array([[1.0, -1.0, 0.5, 2.0, 0.0, -0.5, 1.5],
                 [0.25, 1.0, -2.0, 0.5, 1.0, 0.0, -1.0],
                 [-1.0, 0.5, 1.0, 0.0, 2.0, 1.0, 0.5],
                 [0.5, 0.0, -0.5, 1.0, -1.0, 2.0, 0.25]], np.float32)
ids = np.load(sys.argv[1])
want = table[ids] @ head
for out in sys.argv[2:]:
    got = np.load(os.path.join(out, "logits.npy"))
    print(os.path.basename(out), got.shape,
          got.shape == want.shape and np.allclose(got, want, rtol=1e-6, atol=0))
