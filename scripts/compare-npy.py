#!/usr/bin/env python3
"""Compares two .npy files: the largest absolute difference relative to the
largest magnitude of the reference must not exceed --rtol.

  compare-npy.py GOT.npy REFERENCE.npy [--rtol 1e-4]

Prints `max_rel_err=...` and exits 1 when the shapes differ or the error is too
large. (A per-element relative tolerance is meaningless for outputs near zero;
this is the error relative to the output's scale.)
"""
import argparse
import sys

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("got")
    ap.add_argument("reference")
    ap.add_argument("--rtol", type=float, default=1e-4)
    args = ap.parse_args()
    got, ref = np.load(args.got), np.load(args.reference)
    if got.shape != ref.shape:
        print("shape %s, expected %s" % (got.shape, ref.shape))
        sys.exit(1)
    scale = float(np.max(np.abs(ref))) or 1.0
    err = float(np.max(np.abs(got.astype(np.float64) - ref.astype(np.float64)))) / scale
    print("max_rel_err=%.3g (scale %.3g) %s" % (err, scale, "ok" if err <= args.rtol else "TOO LARGE"))
    sys.exit(0 if err <= args.rtol else 1)


if __name__ == "__main__":
    main()
