#!/usr/bin/env python3
"""Row-wise cosine similarity of two .npy arrays (sentence embeddings, a
quantized or pruned program's against fp32's), against a bar.

  compare-cosine.py GOT.npy EXPECTED.npy [--mean 0.99] [--min 0.98]

Each row (the last axis) of GOT is compared with the same row of EXPECTED.
Prints `cosine mean M min N over R rows: ok` and exits 0 when the mean is at
least --mean and the smallest at least --min; otherwise `... FAIL` and 1.
"""
import argparse
import sys

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("got")
    ap.add_argument("expected")
    ap.add_argument("--mean", type=float, default=0.99)
    ap.add_argument("--min", type=float, default=0.98)
    a = ap.parse_args()
    got = np.load(a.got).astype(np.float64)
    exp = np.load(a.expected).astype(np.float64)
    if got.shape != exp.shape:
        sys.exit("compare-cosine: shapes %s and %s differ" % (got.shape, exp.shape))
    got = got.reshape(-1, got.shape[-1])
    exp = exp.reshape(-1, exp.shape[-1])
    norms = np.linalg.norm(got, axis=1) * np.linalg.norm(exp, axis=1)
    if not np.all(np.isfinite(got)) or np.any(norms == 0):
        print("cosine: non-finite or zero rows: FAIL")
        return 1
    cos = (got * exp).sum(axis=1) / norms
    ok = cos.mean() >= a.mean and cos.min() >= a.min
    print("cosine mean %.4f min %.4f over %d rows: %s" %
          (cos.mean(), cos.min(), len(cos), "ok" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
