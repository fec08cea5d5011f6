#!/usr/bin/env python3
"""Writes a random .npy for each input of an ONNX model and prints the
`--input NAME=FILE` flags that feed them (to a shardc executable or
scripts/onnx-run.py):

  random_inputs.py MODEL DIR [--seed 0]

Floats are standard normal, int8 and uint8 span their whole range, other
integers lie in [0, 4), booleans are fair coins.
"""
import argparse
import os

import numpy as np
import onnx
from onnx import mapping


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("dir")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    model = onnx.load(args.model, load_external_data=False)
    rng = np.random.default_rng(args.seed)
    os.makedirs(args.dir, exist_ok=True)
    flags = []
    for i in model.graph.input:
        t = i.type.tensor_type
        shape = [d.dim_value for d in t.shape.dim]
        dtype = mapping.TENSOR_TYPE_TO_NP_TYPE[t.elem_type]
        if dtype == np.bool_:
            v = rng.random(shape) < 0.5
        elif np.issubdtype(dtype, np.floating):
            v = rng.standard_normal(shape).astype(dtype)
        elif dtype in (np.int8, np.uint8):
            info = np.iinfo(dtype)
            v = rng.integers(info.min, info.max, size=shape, endpoint=True).astype(dtype)
        else:
            v = rng.integers(0, 4, size=shape).astype(dtype)
        path = os.path.join(args.dir, i.name + ".npy")
        np.save(path, v)
        flags.append("--input %s=%s" % (i.name, path))
    print(" ".join(flags))


if __name__ == "__main__":
    main()
