#!/usr/bin/env python3
"""Compares every NAME.npy of a reference folder with GOT/NAME.npy.

  compare_dirs.py GOT_DIR REFERENCE_DIR [--rtol 1e-5]

NaN and infinities must sit at the same places with the same signs; the
finite elements must agree within rtol of the reference's largest finite
magnitude. Prints "NAME: N NaN" for outputs that hold NaN, then
"K outputs equal", or the first difference, and exits 1 on a difference.
"""
import argparse
import os
import sys

import numpy as np


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
        if got.shape != ref.shape or got.dtype != ref.dtype:
            print("%s: %s %s, expected %s %s" % (name, got.shape, got.dtype,
                                                 ref.shape, ref.dtype))
            return 1
        nan_ref, nan_got = np.isnan(ref), np.isnan(got)
        if not np.array_equal(nan_ref, nan_got):
            print("%s: NaN at %d places, expected %d" % (name, nan_got.sum(),
                                                         nan_ref.sum()))
            return 1
        if nan_ref.any():
            print("%s: %d NaN" % (name, nan_ref.sum()))
        inf_ref, inf_got = np.isinf(ref), np.isinf(got)
        if not np.array_equal(inf_ref, inf_got) or \
                not np.array_equal(ref[inf_ref], got[inf_got]):
            print("%s: infinities differ" % name)
            return 1
        finite = ~(nan_ref | inf_ref)
        r = ref[finite].astype(np.float64)
        g = got[finite].astype(np.float64)
        scale = float(np.max(np.abs(r))) if r.size else 1.0
        err = float(np.max(np.abs(g - r))) / (scale or 1.0) if r.size else 0.0
        if err > args.rtol:
            print("%s: max_rel_err=%.3g TOO LARGE" % (name, err))
            return 1
    print("%d outputs equal" % len(names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
