"""Compiles MODEL to the graph dialect twice, with --max-shape
input_ids=4x64 (dynamic dims) and with --input-shape at the same 4 x 64,
and checks that both have the same number of each fused or compute layer.

  op_census.py MODEL SHARDC
"""
import collections
import re
import subprocess
import sys

KINDS = ["attention", "linear", "gemm", "matmul", "layer_norm", "rms_norm",
         "softmax", "swiglu", "gelu"]


def census(shardc, model, *flags):
    out = subprocess.run([shardc, model, "--emit=graph", *flags], check=True,
                         capture_output=True, text=True).stdout
    ops = collections.Counter(
        re.findall(r"^\s*%[^=]*= graph\.([a-z_0-9]+) ", out, re.M))
    return {k: ops.get(k, 0) for k in KINDS}


def main():
    model, shardc = sys.argv[1], sys.argv[2]
    dynamic = census(shardc, model, "--max-shape", "input_ids=4x64")
    static = census(shardc, model, "--input-shape",
                    "input_ids=4x64,attention_mask=4x64")
    if dynamic != static:
        print("differ: dynamic %s, static %s" % (dynamic, static))
        sys.exit(1)
    print("same fused layers: " + " ".join(KINDS), dynamic)


if __name__ == "__main__":
    main()
