#!/usr/bin/env python3
"""Runs an ONNX model under ONNX Runtime and saves one output.

  ort_run.py MODEL OUT.npy OUTPUT_NAME NAME=FILE.npy ...
"""
import sys

import numpy as np
import onnxruntime as ort


def main():
    model, out, name = sys.argv[1:4]
    feeds = {}
    for arg in sys.argv[4:]:
        k, path = arg.split("=", 1)
        feeds[k] = np.load(path)
    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    np.save(out, session.run([name], feeds)[0])


if __name__ == "__main__":
    main()
