"""Writes IN.npy plus Gaussian noise of standard deviation SIGMA (seed 1),
as float32: a second calibration or evaluation input near the first.

  perturb.py IN.npy OUT.npy SIGMA
"""
import sys

import numpy as np

x = np.load(sys.argv[1])
rng = np.random.RandomState(1)
np.save(sys.argv[2], (x + float(sys.argv[3]) * rng.randn(*x.shape)).astype(np.float32))
