"""Zeroes two heads of the bundled tiny GPT-2 (examples/tiny_gpt2.onnx: 2
layers of 4 heads of 16, a fused QKV projection per layer split into q, k
and v):

  zero_heads_gpt2.py IN.onnx OUT.onnx

Per layer the export has four MatMuls by a weight initializer, in this
order: the fused QKV projection [64, 192], the attention output [64, 64],
the MLP's two (found by order and shape, never by names). Layer 0's head 1
gets zero output rows; layer 1's head 2 zero value columns (the third part
of the fused projection, columns 128 + 32..48) and value bias.
"""
import sys

import onnx
from onnx import numpy_helper as nh

HEAD = 16


def main():
    m = onnx.load(sys.argv[1])
    g = m.graph
    inits = {t.name: t for t in g.initializer}
    consumers = {}
    for n in g.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)
    mm = [n for n in g.node if n.op_type == "MatMul" and n.input[1] in inits]
    layers = [mm[0:4], mm[4:8]]
    assert [list(inits[n.input[1]].dims) for n in layers[0][:2]] == [[64, 192], [64, 64]]

    def update(name, fn):
        a = nh.to_array(inits[name]).copy()
        fn(a)
        inits[name].CopyFrom(nh.from_array(a, name))

    update(layers[0][1].input[1], lambda w: w.__setitem__(slice(HEAD, 2 * HEAD), 0))
    cols = slice(128 + 2 * HEAD, 128 + 3 * HEAD)
    qkv = layers[1][0]
    update(qkv.input[1], lambda w: w.__setitem__((slice(None), cols), 0))
    bias = next(i for c in consumers[qkv.output[0]] if c.op_type == "Add"
                for i in c.input if i in inits)
    update(bias, lambda b: b.__setitem__(cols, 0))
    onnx.save(m, sys.argv[2])


if __name__ == "__main__":
    main()
