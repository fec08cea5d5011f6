#!/usr/bin/env python3
"""Runs an ONNX model on ONNX Runtime the way a shardc executable runs:

  onnx-run.py MODEL --input NAME=FILE.npy ... --output DIR [--no-optimize]
  onnx-run.py MODEL --ops | --dump

writes DIR/OUTPUT.npy for every output of the model (for a model shardc
--emit=onnx wrote: its quantized or pruned graph checked independently of
shardc's own kernels). --ops prints the node count per op type ("OpType N",
sorted by name); --dump prints the graph: inputs, initializers with their
types and shapes, then one line per node
("outputs = OpType(inputs) {attributes}"), then the outputs.
"""
import argparse
import collections
import os

import numpy as np
import onnx
import onnx.numpy_helper


def type_str(elem, dims):
    return "%s[%s]" % (onnx.TensorProto.DataType.Name(elem).lower(),
                       ",".join(str(d) for d in dims))


def attr_str(a):
    v = onnx.helper.get_attribute_value(a)
    if isinstance(v, bytes):
        v = v.decode()
    elif isinstance(v, onnx.TensorProto):
        v = "%s %s" % (type_str(v.data_type, v.dims),
                       onnx.numpy_helper.to_array(v).ravel().tolist())
    elif isinstance(v, float):
        v = "%g" % v
    return "%s=%s" % (a.name, v)


def dump(model):
    g = model.graph
    print("opset", ", ".join("%s%d" % (o.domain + ":" if o.domain else "", o.version)
                             for o in model.opset_import))
    for i in g.input:
        t = i.type.tensor_type
        print("input %s: %s" % (i.name, type_str(t.elem_type, [d.dim_value for d in t.shape.dim])))
    for t in g.initializer:
        where = " external" if t.data_location == onnx.TensorProto.EXTERNAL else ""
        print("initializer %s: %s%s" % (t.name, type_str(t.data_type, t.dims), where))
    for n in g.node:
        attrs = " {%s}" % ", ".join(attr_str(a) for a in n.attribute) if n.attribute else ""
        print("%s = %s(%s)%s" % (", ".join(n.output), n.op_type, ", ".join(n.input), attrs))
    for o in g.output:
        t = o.type.tensor_type
        print("output %s: %s" % (o.name, type_str(t.elem_type, [d.dim_value for d in t.shape.dim])))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--input", action="append", default=[])
    ap.add_argument("--output")
    ap.add_argument("--ops", action="store_true")
    ap.add_argument("--dump", action="store_true")
    ap.add_argument("--no-optimize", action="store_true",
                    help="run without ONNX Runtime's graph rewrites (its fusions of "
                         "QDQ patterns into its own integer kernels round differently)")
    args = ap.parse_args()
    if args.dump:
        dump(onnx.load(args.model, load_external_data=False))
        return
    if args.ops:
        model = onnx.load(args.model, load_external_data=False)
        counts = collections.Counter(n.op_type for n in model.graph.node)
        for op in sorted(counts):
            print(op, counts[op])
        return
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = 2
    so.inter_op_num_threads = 1
    if args.no_optimize:
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(args.model, so, providers=["CPUExecutionProvider"])
    feeds = {}
    for spec in args.input:
        name, path = spec.split("=", 1)
        feeds[name] = np.load(path)
    names = [o.name for o in sess.get_outputs()]
    os.makedirs(args.output, exist_ok=True)
    for name, value in zip(names, sess.run(None, feeds)):
        np.save(os.path.join(args.output, name + ".npy"), value)


if __name__ == "__main__":
    main()
