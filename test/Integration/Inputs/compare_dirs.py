#!/usr/bin/env python3
"""Compares every NAME.npy of a reference folder with GOT/NAME.npy.

  compare_dirs.py GOT_DIR REFERENCE_DIR [--rtol 1e-5]

NaN and infinities must sit at the same places with the same signs; the
finite elements must agree within rtol of the reference's largest finite
magnitude (scripts/npy_compare.py). Prints "NAME: N NaN" for outputs that
hold NaN, then "K outputs equal", or the first difference, and exits 1 on a
difference.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "scripts"))
import npy_compare  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("got")
    ap.add_argument("reference")
    ap.add_argument("--rtol", type=float, default=1e-5)
    args = ap.parse_args()
    names = sorted(n[:-4] for n in os.listdir(args.reference) if n.endswith(".npy"))
    if not names:
        print("no outputs in", args.reference)
        return 1
    for name in names:
        ref = np.load(os.path.join(args.reference, name + ".npy"))
        got = np.load(os.path.join(args.got, name + ".npy"))
        diff = npy_compare.difference(got, ref, args.rtol)
        if diff:
            print("%s: %s" % (name, diff))
            return 1
        if ref.dtype.kind == "f" and np.isnan(ref).any():
            print("%s: %d NaN" % (name, int(np.isnan(ref).sum())))
    print("%d outputs equal" % len(names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
