"""GatherElements, ScatterElements and ScatterND over the element types and
reductions the ONNX node tests leave out (they are all float32), compiled
by shardc (CPU target), run, and compared with ONNX Runtime.

  make_scatter_models.py DIR SHARDC

Writes DIR/scatter.onnx, one node per case (opset 18) with its indices as
initializers (negative ones; duplicates for the reductions and for one
store, which ONNX Runtime applies in index order as shardc's CPU kernels
do), and random .npy inputs; compiles it, runs it and prints one line per
output, which must equal ONNX Runtime's exactly:

  ge_f32: float32 [3, 4] ok

Also writes DIR/bad_index.onnx, GatherElements and ScatterND whose indices
are inputs, with bx.npy, nu.npy and ge_ok.npy / nd_ok.npy in range,
ge_bad.npy / nd_bad.npy out of range (for the test's own runs).
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out, shardc = sys.argv[1:3]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(3)
T = {np.float32: TensorProto.FLOAT, np.float16: TensorProto.FLOAT16,
     np.float64: TensorProto.DOUBLE, np.int8: TensorProto.INT8, np.uint8: TensorProto.UINT8,
     np.int32: TensorProto.INT32, np.int64: TensorProto.INT64, np.bool_: TensorProto.BOOL}

nodes, inputs, outputs, inits, feeds = [], [], [], [], {}


def data(name, shape, dtype):
    if dtype == np.bool_:
        a = rng.random(shape) < 0.5
    elif np.issubdtype(dtype, np.floating):
        a = rng.standard_normal(shape) * 4
    else:
        info = np.iinfo(dtype)
        a = rng.integers(max(info.min, -300), min(info.max, 300), shape, endpoint=True)
    a = a.astype(dtype)
    np.save(os.path.join(out, name + ".npy"), a)
    inputs.append(helper.make_tensor_value_info(name, T[dtype], list(shape)))
    feeds[name] = a
    return a


def indices(name, values, dtype=np.int64):
    inits.append(numpy_helper.from_array(np.array(values, dtype), name))


numpy_refs = {}  # output: reference where ONNX Runtime has no kernel


def case(op, name, x, i, u, dtype, result_shape, ref=None, **attrs):
    ins = [x, i] + ([u] if u else [])
    nodes.append(helper.make_node(op, ins, [name], **attrs))
    outputs.append(helper.make_tensor_value_info(name, T[dtype], list(result_shape)))
    if ref is not None:
        numpy_refs[name] = ref


# GatherElements: a negative axis and negative indices; int32 indices
# smaller than the data on the other dim; bools.
data("x_f32", (3, 5), np.float32)
indices("ge_i0", [[0, -1, 4, -5], [2, 2, -3, 1], [4, 3, 0, -2]])
case("GatherElements", "ge_f32", "x_f32", "ge_i0", None, np.float32, (3, 4), axis=-1)
data("x_i64", (4, 3), np.int64)
indices("ge_i1", [[3, -4], [0, 1]], np.int32)
case("GatherElements", "ge_i64", "x_i64", "ge_i1", None, np.int64, (2, 2), axis=0)
data("x_bool", (2, 4), np.bool_)
indices("ge_i2", [[3, 0, -1], [1, 1, 2]])
case("GatherElements", "ge_bool", "x_bool", "ge_i2", None, np.bool_, (2, 3), axis=1)

# ScatterElements: stores (bools; duplicate indices, where the last update
# wins in both), then each reduction with duplicates. Integer sums and
# products wrap; max and min of unsigned and signed bytes.
indices("se_i0", [[3, -1], [0, 1]])
data("u_bool", (2, 2), np.bool_)
case("ScatterElements", "se_bool", "x_bool", "se_i0", "u_bool", np.bool_, (2, 4), axis=1)
indices("se_dup", [[1, 1, -3, 2], [1, 0, 2, -1]])
data("u_f32", (2, 4), np.float32)
case("ScatterElements", "se_none_dup", "x_f32", "se_dup", "u_f32", np.float32, (3, 5), axis=0)
# ONNX Runtime has no fp16 sum: numpy's, in index order, each step rounded
# to fp16 (np.add.at).
x_f16 = data("x_f16", (4, 3), np.float16)
se_i1 = [[0, 1, 2], [0, -4, 2], [3, 3, 3], [0, 1, -1], [2, 2, 2]]
indices("se_i1", se_i1)
u_f16 = data("u_f16", (5, 3), np.float16)
ref = x_f16.copy()
np.add.at(ref, (np.array(se_i1) % 4, np.arange(3)[None, :].repeat(5, 0)), u_f16)
case("ScatterElements", "se_add_f16", "x_f16", "se_i1", "u_f16", np.float16, (4, 3), ref,
     axis=0, reduction="add")
data("x_i32", (4, 3), np.int32)
data("u_i32", (5, 3), np.int32)
case("ScatterElements", "se_mul_i32", "x_i32", "se_i1", "u_i32", np.int32, (4, 3), axis=0,
     reduction="mul")
data("x_f64", (3, 4), np.float64)
indices("se_i2", [[1, 1, -3, 0, 3], [2, 2, 2, 2, 2], [-1, 0, 0, 3, 1]], np.int32)
data("u_f64", (3, 5), np.float64)
case("ScatterElements", "se_max_f64", "x_f64", "se_i2", "u_f64", np.float64, (3, 4), axis=1,
     reduction="max")
data("x_u8", (3, 4), np.uint8)
data("u_u8", (3, 5), np.uint8)
case("ScatterElements", "se_min_u8", "x_u8", "se_i2", "u_u8", np.uint8, (3, 4), axis=1,
     reduction="min")
data("x_i8", (3, 4), np.int8)
data("u_i8", (3, 5), np.int8)
case("ScatterElements", "se_max_i8", "x_i8", "se_i2", "u_i8", np.int8, (3, 4), axis=-1,
     reduction="max")

# ScatterND: slices (k = 1, a negative index), element tuples (k = rank)
# with duplicates under each reduction, and k = 2 of a rank-3 tensor.
data("x3_f32", (4, 3, 2), np.float32)
indices("nd_i0", [[-1], [1]])
data("u3_f32", (2, 3, 2), np.float32)
case("ScatterND", "nd_slices", "x3_f32", "nd_i0", "u3_f32", np.float32, (4, 3, 2))
indices("nd_i1", [[0, 1], [-4, 1], [3, -3], [2, 2], [0, 1]])
data("u_nd_i64", (5,), np.int64)
case("ScatterND", "nd_add_i64", "x_i64", "nd_i1", "u_nd_i64", np.int64, (4, 3),
     reduction="add")
data("u_nd_f32", (5,), np.float32)
data("x2_f32", (4, 3), np.float32)
case("ScatterND", "nd_mul_f32", "x2_f32", "nd_i1", "u_nd_f32", np.float32, (4, 3),
     reduction="mul")
data("u_nd_i32", (5,), np.int32)
case("ScatterND", "nd_min_i32", "x_i32", "nd_i1", "u_nd_i32", np.int32, (4, 3),
     reduction="min")
indices("nd_i2", [[3, 0], [-4, 2], [3, 0]])
data("u_nd_f64", (3, 2), np.float64)
data("x3_f64", (4, 3, 2), np.float64)
case("ScatterND", "nd_max_f64", "x3_f64", "nd_i2", "u_nd_f64", np.float64, (4, 3, 2),
     reduction="max")


def save(name, graph_nodes, graph_inputs, graph_outputs, graph_inits):
    graph = helper.make_graph(graph_nodes, name, graph_inputs, graph_outputs, graph_inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))


save("scatter", nodes, inputs, outputs, inits)
exe = os.path.join(out, "scatter")
subprocess.run([shardc, exe + ".onnx", "-o", exe], check=True)
args = [exe, "--output", os.path.join(out, "got")]
for name in feeds:
    args += ["--input", "%s=%s" % (name, os.path.join(out, name + ".npy"))]
subprocess.run(args, check=True)

import onnxruntime as ort  # noqa: E402  (after the files, as in check.py)

ort_nodes = [n for n in nodes if n.output[0] not in numpy_refs]
save("scatter_ort", ort_nodes, inputs,
     [o for o in outputs if o.name not in numpy_refs], inits)
sess = ort.InferenceSession(os.path.join(out, "scatter_ort.onnx"),
                            providers=["CPUExecutionProvider"])
names = [o.name for o in sess.get_outputs()]
expected = dict(zip(names, sess.run(names, feeds)))
expected.update(numpy_refs)
bad = False
for name in [o.name for o in outputs]:
    want = expected[name]
    got = np.load(os.path.join(out, "got", name + ".npy"))
    same = got.dtype == want.dtype and got.shape == want.shape and \
        np.array_equal(got, want)
    print("%s: %s %s %s" % (name, want.dtype, list(want.shape), "ok" if same else "MISMATCH"))
    if not same:
        print("  want", want.tolist(), "\n  got ", got.tolist())
        bad = True

# Indices from the run: in range, then one out of range per kernel.
vi = helper.make_tensor_value_info
save("bad_index", [
    helper.make_node("GatherElements", ["x", "gi"], ["g"], axis=1),
    helper.make_node("ScatterND", ["x", "ni", "nu"], ["s"]),
], [vi("x", TensorProto.FLOAT, [2, 5]), vi("gi", TensorProto.INT64, [2, 2]),
    vi("ni", TensorProto.INT64, [1, 1]), vi("nu", TensorProto.FLOAT, [1, 5])],
    [vi("g", TensorProto.FLOAT, [2, 2]), vi("s", TensorProto.FLOAT, [2, 5])], [])
np.save(os.path.join(out, "bx.npy"), np.arange(10, dtype=np.float32).reshape(2, 5))
np.save(os.path.join(out, "nu.npy"), np.ones((1, 5), np.float32))
np.save(os.path.join(out, "ge_ok.npy"), np.array([[4, -5], [0, 1]], np.int64))
np.save(os.path.join(out, "ge_bad.npy"), np.array([[4, 5], [0, 1]], np.int64))
np.save(os.path.join(out, "nd_ok.npy"), np.array([[-2]], np.int64))
np.save(os.path.join(out, "nd_bad.npy"), np.array([[-3]], np.int64))
sys.exit(1 if bad else 0)
