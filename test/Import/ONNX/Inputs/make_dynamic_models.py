#!/usr/bin/env python3
"""Models with dynamic input dims (dim_param 'batch', 'seq', or no name), for
--max-shape: an encoder-like block whose two inputs share 'batch' and 'seq',
one input with an unnamed dynamic dim, and models the import refuses with
dynamic dims (a Shape read, a convolution, an output declared static in a
dynamic dim).

  make_dynamic_models.py OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

H = 16


def save(graph, path):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, path)


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def encoder():
    rng = np.random.default_rng(0)
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["xw"], name="proj"),
        helper.make_node("Add", ["xw", "b"], ["xb"], name="bias"),
        helper.make_node("Relu", ["xb"], ["r"], name="relu"),
        helper.make_node("Unsqueeze", ["mask", "axis2"], ["m3"], name="unsq"),
        helper.make_node("Mul", ["r", "m3"], ["y"], name="masked"),
        helper.make_node("ReduceSum", ["y", "axis1"], ["pooled"], name="pool",
                         keepdims=0),
    ]
    graph = helper.make_graph(
        nodes, "encoder",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", H]),
         helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["batch", "seq"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", H]),
         helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["batch", H])],
        [init("w", rng.standard_normal((H, H)).astype(np.float32)),
         init("b", rng.standard_normal(H).astype(np.float32)),
         init("axis2", np.array([2], np.int64)),
         init("axis1", np.array([1], np.int64))])
    return graph


def unnamed():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 8])
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")], "unnamed", [x],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 8])])
    return graph


def shape_read():
    nodes = [
        helper.make_node("Shape", ["x"], ["s"], name="shape_of_x"),
        helper.make_node("Reshape", ["x", "s"], ["y"], name="reshape"),
    ]
    return helper.make_graph(
        nodes, "shape_read",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", H])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", H])])


def conv():
    w = np.ones((4, 3, 3, 3), np.float32)
    return helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"], name="conv1", pads=[1, 1, 1, 1])],
        "conv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4, 8, 8])],
        [init("w", w)])


def static_output():
    return helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")], "static_output",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 8])])


def i64(name, values):
    return init(name, np.array(values, np.int64))


def shape_ops():
    """Shape arithmetic folded on symbols: reshapes by 0 and -1, Max(S, 1),
    a Where on a decided comparison, Size, Expand and ConstantOfShape to a
    computed shape."""
    nodes = [
        helper.make_node("Reshape", ["x", "flat"], ["rows"], name="rows"),
        helper.make_node("Reshape", ["x", "keep_b"], ["per_batch"], name="per_batch"),
        helper.make_node("Shape", ["x"], ["s"], name="shape"),
        helper.make_node("Gather", ["s", "one"], ["seq"], name="seq"),
        helper.make_node("Max", ["seq", "one_i"], ["seq_max"], name="max_seq"),
        helper.make_node("Less", ["seq", "zero_i"], ["never"], name="never"),
        helper.make_node("Where", ["never", "zero_i", "seq_max"], ["seq2"], name="pick"),
        helper.make_node("Unsqueeze", ["seq2", "axis0"], ["seq_v"], name="seq_v"),
        helper.make_node("Gather", ["s", "zero_v"], ["b_v"], name="b_v"),
        helper.make_node("Concat", ["b_v", "seq_v", "h_v"], ["bsh"], name="bsh", axis=0),
        helper.make_node("ConstantOfShape", ["bsh"], ["ones"], name="ones",
                         value=helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0])),
        helper.make_node("Add", ["x", "ones"], ["y"], name="add_ones"),
        helper.make_node("Expand", ["bias", "bsh"], ["bias_full"], name="expand"),
        helper.make_node("Size", ["x"], ["n"], name="size"),
        helper.make_node("Unsqueeze", ["n", "axis0"], ["n_v"], name="n_v"),
        helper.make_node("Reshape", ["x", "n_v"], ["all"], name="all"),
    ]
    return helper.make_graph(
        nodes, "shape_ops",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", H])],
        [helper.make_tensor_value_info("rows", TensorProto.FLOAT, [None, H]),
         helper.make_tensor_value_info("per_batch", TensorProto.FLOAT, ["batch", None]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", H]),
         helper.make_tensor_value_info("bias_full", TensorProto.FLOAT, ["batch", "seq", H]),
         helper.make_tensor_value_info("all", TensorProto.FLOAT, [None])],
        [i64("flat", [-1, H]), i64("keep_b", [0, -1]), i64("one", 1),
         i64("one_i", 1), i64("zero_i", 0), i64("axis0", [0]), i64("zero_v", [0]),
         i64("h_v", [H]), init("bias", np.arange(H, dtype=np.float32))])


def refused(op):
    """`op` on the sequence length where the symbols do not decide it (and
    Range, which they do)."""
    consts = [i64("idx", 1), i64("five", 5), i64("two", 2), i64("zero", 0),
              i64("one_v", 1)]
    nodes = [helper.make_node("Shape", ["x"], ["s"], name="shape"),
             helper.make_node("Gather", ["s", "idx"], ["seq"], name="seq")]
    if op == "Less":
        nodes.append(helper.make_node("Less", ["seq", "five"], ["y"], name="less"))
        out = TensorProto.BOOL
    elif op == "Div":
        nodes.append(helper.make_node("Div", ["seq", "two"], ["y"], name="half"))
        out = TensorProto.INT64
    elif op == "Cast":
        nodes.append(helper.make_node("Cast", ["seq"], ["y"], name="to_float",
                                      to=TensorProto.FLOAT))
        out = TensorProto.FLOAT
    elif op == "Output":  # a size as a graph output
        nodes.append(helper.make_node("Identity", ["seq"], ["y"], name="out"))
        out = TensorProto.INT64
    else:  # Range: positions 0..seq-1, a slice of a constant
        nodes.append(helper.make_node("Range", ["zero", "seq", "one_v"], ["y"],
                                      name="positions"))
        out = TensorProto.INT64
    dims = [None] if op == "Range" else []
    return helper.make_graph(
        nodes, "refused_" + op.lower(),
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", H])],
        [helper.make_tensor_value_info("y", out, dims)], consts)


def hostile():
    """Shape arithmetic a hostile model could write on the sequence length:
    each must be refused in one line."""
    base = [helper.make_node("Shape", ["x"], ["s"]),
            helper.make_node("Gather", ["s", "one"], ["seq"])]
    consts = [i64("one", 1), i64("ax", [0])]
    cases = {
        # seq * 2^62 * 4 overflows int64.
        "overflow": (base + [
            helper.make_node("Mul", ["seq", "big"], ["a"]),
            helper.make_node("Mul", ["a", "four"], ["b"]),
            helper.make_node("Unsqueeze", ["b", "ax"], ["bv"]),
            helper.make_node("Reshape", ["x", "bv"], ["y"])],
            [i64("big", 2**62), i64("four", 4)]),
        # A size that is negative for short sequences.
        "negative": (base + [
            helper.make_node("Sub", ["seq", "hundred"], ["a"]),
            helper.make_node("Unsqueeze", ["a", "ax"], ["av"]),
            helper.make_node("ConstantOfShape", ["av"], ["y"])],
            [i64("hundred", 100)]),
        # A vector of sizes that doubles 100 times.
        "concat": (base + [helper.make_node("Unsqueeze", ["seq", "ax"], ["v0"])] + [
            helper.make_node("Concat", ["v%d" % i, "v%d" % i], ["v%d" % (i + 1)], axis=0)
            for i in range(100)] + [
            helper.make_node("ConstantOfShape", ["v100"], ["y"])], []),
        # seq as an int8: it wraps past 127.
        "cast": (base + [
            helper.make_node("Cast", ["seq"], ["c"], to=TensorProto.INT8),
            helper.make_node("Cast", ["c"], ["c64"], to=TensorProto.INT64),
            helper.make_node("Unsqueeze", ["c64", "ax"], ["cv"]),
            helper.make_node("ConstantOfShape", ["cv"], ["y"])], []),
        # An index past the rank.
        "gather": ([helper.make_node("Shape", ["x"], ["s"], start=-5),
                    helper.make_node("Gather", ["s", "seven"], ["g"]),
                    helper.make_node("Unsqueeze", ["g", "ax"], ["gv"]),
                    helper.make_node("Reshape", ["x", "gv"], ["y"])],
                   [i64("seven", 7)]),
    }
    for name, (nodes, inits) in cases.items():
        yield "hostile_" + name, helper.make_graph(
            nodes, name,
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", H])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
            consts + inits)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, graph in hostile():
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        onnx.save(model, os.path.join(out, name + ".onnx"))
    for op in ["Less", "Div", "Cast", "Range", "Output"]:
        name = "range" if op == "Range" else "refused_" + op.lower()
        save(refused(op), os.path.join(out, name + ".onnx"))
    for name, make in [("encoder", encoder), ("unnamed", unnamed),
                       ("shape_read", shape_read), ("conv", conv),
                       ("static_output", static_output),
                       ("shape_ops", shape_ops)]:
        save(make(), os.path.join(out, name + ".onnx"))


if __name__ == "__main__":
    main()
