"""Zeroes whole structures of all-MiniLM-L6-v2's weights, as a model trained
with structured sparsity (or pruned by another tool) would ship them:

  zero_structure.py IN.onnx OUT.onnx

Per encoder layer the export has six MatMuls by a weight initializer, in
this order: query, key, value, attention output, MLP up, MLP down (found
by their order and shapes, never by names). The script zeroes
- in every layer, the MLP down weight's rows j with j % 4 == 1 (a quarter
  of the channels read through zeros);
- in layers 2, 3 and 4, the MLP up weight's columns j with j % 4 == 3
  (channels whose value is the constant GELU(bias));
- in layer 0, the attention output weight's rows of heads 3 and 7;
- in layer 1, the value weight's columns and value bias of head 5.
graph-prune-lossless removes all of them (3456 channels, 3 heads: 26.4% of
the encoder's linear FLOPs); the outputs must not change beyond fp32
rounding.
"""
import sys

import numpy as np
import onnx
from onnx import numpy_helper

HEAD = 32  # MiniLM: 12 heads of 32


def main():
    src, dst = sys.argv[1], sys.argv[2]
    m = onnx.load(src)
    g = m.graph
    inits = {t.name: t for t in g.initializer}
    consumers = {}
    for n in g.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)
    matmuls = [n for n in g.node
               if n.op_type == "MatMul" and n.input[1] in inits]
    layers = [matmuls[i:i + 6] for i in range(0, 36, 6)]
    assert len(layers) == 6 and all(len(l) == 6 for l in layers)

    def weight(node):
        return numpy_helper.to_array(inits[node.input[1]]).copy()

    def bias_of(node):
        # The Add of an initializer that reads the MatMul's output.
        for c in consumers.get(node.output[0], []):
            if c.op_type == "Add":
                for i in c.input:
                    if i in inits:
                        return i
        raise SystemExit("no bias after " + node.name)

    def store(name, array):
        inits[name].CopyFrom(numpy_helper.from_array(array, name))

    for q, k, v, o, up, down in layers:
        w = weight(down)
        w[1::4, :] = 0
        store(down.input[1], w)
    for layer in (2, 3, 4):
        up = layers[layer][4]
        w = weight(up)
        w[:, 3::4] = 0
        store(up.input[1], w)
    o = layers[0][3]
    w = weight(o)
    for head in (3, 7):
        w[head * HEAD:(head + 1) * HEAD, :] = 0
    store(o.input[1], w)
    v = layers[1][2]
    w = weight(v)
    w[:, 5 * HEAD:6 * HEAD] = 0
    store(v.input[1], w)
    name = bias_of(v)
    b = numpy_helper.to_array(inits[name]).copy()
    b[5 * HEAD:6 * HEAD] = 0
    store(name, b)
    onnx.save(m, dst)


if __name__ == "__main__":
    main()
