"""Small ONNX models with NonZero's data-dependent rows, as Hugging Face's
mixture-of-experts loop exports them (NonZero of a mask, Gather of the rows,
row-wise compute, ScatterElements back), and look-alikes the importer must
refuse. With --run NAME X.npy SEL.npy OUT.npy, runs a model with onnxruntime
to give the reference.

  make_rows_models.py OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

T, H = 12, 8


def model(name, nodes, outputs, inits=(), inputs=None):
    inputs = inputs or [
        helper.make_tensor_value_info("x", TensorProto.FLOAT, [T, H]),
        helper.make_tensor_value_info("sel", TensorProto.INT64, [T]),
    ]
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m


def const(name, v):
    return numpy_helper.from_array(np.asarray(v), name)


def routed(scatter_attrs=None, data_zero=True, indices="t", fill=False):
    """Rows of x where sel == 1, through sigmoid(r) * r @ W, scattered back.
    With fill, the zeros are a ConstantOfShape (as torch.zeros exports)."""
    rng = np.random.default_rng(0)
    inits = [const("one", np.int64(1)), const("ax0", np.array([0], np.int64)),
             const("ax1", np.array([1], np.int64)),
             const("W", rng.standard_normal((H, H)).astype(np.float32)),
             const("last", np.int64(T - 1))]
    nodes = []
    if fill:
        inits.append(const("data_shape", np.array([T, H], np.int64)))
        nodes.append(helper.make_node("ConstantOfShape", ["data_shape"], ["data"]))
    else:
        inits.append(const("data", (np.zeros if data_zero else np.ones)((T, H), np.float32)))
    nodes += [
        helper.make_node("Equal", ["sel", "one"], ["mask"]),
        helper.make_node("NonZero", ["mask"], ["nz"], name="nz"),
        helper.make_node("Squeeze", ["nz", "ax0"], ["t"]),
        helper.make_node("Sub", ["last", "t"], ["t_rev"]),
        helper.make_node("Gather", ["x", "t"], ["rows"], axis=0),
        helper.make_node("MatMul", ["rows", "W"], ["proj"]),
        helper.make_node("Sigmoid", ["proj"], ["sig"]),
        helper.make_node("Mul", ["proj", "sig"], ["y"]),
        helper.make_node("Unsqueeze", [indices, "ax1"], ["t1"]),
        helper.make_node("Shape", ["y"], ["yshape"]),
        helper.make_node("Expand", ["t1", "yshape"], ["idx"]),
        helper.make_node("ScatterElements", ["data", "idx", "y"], ["out"],
                         axis=0, name="scatter", **(scatter_attrs or {})),
    ]
    out = helper.make_tensor_value_info("out", TensorProto.FLOAT, [T, H])
    return model("routed", nodes, [out], inits)


def main():
    global T, H
    if sys.argv[1] == "--run":
        import onnxruntime as ort
        path, x, sel, out = sys.argv[2:6]
        s = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        r = s.run(None, {"x": np.load(x), "sel": np.load(sel)})[0]
        np.save(out, r)
        return
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(1)
    np.save(os.path.join(out, "x.npy"), rng.standard_normal((T, H)).astype(np.float32))
    np.save(os.path.join(out, "sel.npy"), rng.integers(0, 3, T).astype(np.int64))
    onnx.save(routed(), os.path.join(out, "routed.onnx"))
    onnx.save(routed(data_zero=False), os.path.join(out, "routed_replace.onnx"))
    onnx.save(routed({"reduction": "add"}, data_zero=False),
              os.path.join(out, "routed_add.onnx"))
    # Look-alikes: indices that are not the rows' own positions, a reduction
    # over the rows, rows as a graph output, a reshape that mixes the rows.
    onnx.save(routed(indices="t_rev"), os.path.join(out, "reversed.onnx"))
    onnx.save(routed({"reduction": "mul"}), os.path.join(out, "scatter_mul.onnx"))
    base = routed()
    g = base.graph
    reduce = model("reduce", list(g.node[:5]) + [
        helper.make_node("ReduceSum", ["rows", "ax0"], ["out"], name="sum", keepdims=1)],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, H])],
        list(g.initializer))
    onnx.save(reduce, os.path.join(out, "reduce_rows.onnx"))
    rows_out = model("rows_out", list(g.node[:5]),
                     [helper.make_tensor_value_info("rows", TensorProto.FLOAT, None)],
                     list(g.initializer))
    onnx.save(rows_out, os.path.join(out, "rows_output.onnx"))
    mix = model("mix", list(g.node[:5]) + [
        helper.make_node("Reshape", ["rows", "flat"], ["flatrows"], name="flatten_rows"),
        helper.make_node("ReduceSum", ["flatrows"], ["out"], keepdims=1)],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [1])],
        list(g.initializer) + [const("flat", np.array([-1], np.int64))])
    onnx.save(mix, os.path.join(out, "reshape_mix.onnx"))
    # A NonZero of a constant folds to a static tensor.
    folded = model("folded", [
        helper.make_node("NonZero", ["c"], ["nzc"]),
        helper.make_node("Cast", ["nzc"], ["f"], to=TensorProto.FLOAT),
        helper.make_node("ReduceSum", ["f"], ["s"], keepdims=0),
        helper.make_node("Mul", ["x", "s"], ["out"])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [T, H])],
        [const("c", np.array([[0, 3, 0], [1, 0, 2]], np.float32))])
    onnx.save(folded, os.path.join(out, "folded.onnx"))
    # Wide rows: the scatter's expanded indices (T x H = 76800 elements) are
    # more than the importer folds, and are checked compact.
    T, H = 300, 256
    np.save(os.path.join(out, "x_wide.npy"), rng.standard_normal((T, H)).astype(np.float32))
    np.save(os.path.join(out, "sel_wide.npy"), rng.integers(0, 3, T).astype(np.int64))
    onnx.save(routed(), os.path.join(out, "routed_wide.onnx"))
    onnx.save(routed({"reduction": "add"}, data_zero=False),
              os.path.join(out, "routed_wide_add.onnx"))
    onnx.save(routed(indices="t_rev"), os.path.join(out, "reversed_wide.onnx"))
    # Zeros of 1100 x 1024 from ConstantOfShape: more than the importer
    # folds, known to be zero all the same.
    T, H = 1100, 1024
    np.save(os.path.join(out, "x_fill.npy"), rng.standard_normal((T, H)).astype(np.float32))
    np.save(os.path.join(out, "sel_fill.npy"), rng.integers(0, 3, T).astype(np.int64))
    onnx.save(routed(fill=True), os.path.join(out, "routed_fill.onnx"))


if __name__ == "__main__":
    main()
