"""Writes hostile ONNX models for the importer's hardening tests (issue 11)
into the given directory, one defect each: external data that escapes the
model's folder, integer folding traps, wrong arities, invalid graphs and
names that would break a one-line error."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = os.path.abspath(sys.argv[1])
os.makedirs(out, exist_ok=True)
I64_MIN = np.iinfo(np.int64).min


def model(name, nodes, inputs, outputs, inits=(), opset=17, ir=8):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = ir
    return m


def save(m, name=None, folder=out):
    onnx.save(m, os.path.join(folder, (name or m.graph.name) + ".onnx"))


def vi(name, dims, t=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, t, dims)


def const(name, arr):
    return helper.make_node("Constant", [], [name],
                            value=numpy_helper.from_array(np.array(arr)))


# --- external data ---------------------------------------------------------
# A model folder with a legitimate weights file, a secret beside the folder,
# and one model per hostile location.
models = os.path.join(out, "models")
secret = os.path.join(out, "secret")
os.makedirs(models, exist_ok=True)
os.makedirs(secret, exist_ok=True)
W = np.arange(16, dtype=np.float32).reshape(4, 4)
with open(os.path.join(models, "w.bin"), "wb") as f:
    f.write(W.tobytes())
with open(os.path.join(secret, "secret.bin"), "wb") as f:
    f.write(W.tobytes())
os.makedirs(os.path.join(models, "sub"), exist_ok=True)
if not os.path.exists(os.path.join(models, "fifo.bin")):
    os.mkfifo(os.path.join(models, "fifo.bin"))
for link, target in (("escape.bin", os.path.join(secret, "secret.bin")),
                     ("dev.bin", "/dev/zero"), ("inside.bin", "w.bin")):
    path = os.path.join(models, link)
    if os.path.lexists(path):
        os.remove(path)
    os.symlink(target, path)


def external(name, **kv):
    t = onnx.TensorProto()
    t.name = "W"
    t.data_type = TensorProto.FLOAT
    t.dims.extend([4, 4])
    t.data_location = TensorProto.EXTERNAL
    for k, v in kv.items():
        t.external_data.add(key=k, value=v)
    m = model(name, [helper.make_node("MatMul", ["x", "W"], ["y"], name="mm")],
              [vi("x", [2, 4])], [vi("y", [2, 4])], [t])
    save(m, folder=models)


external("ext_ok", location="w.bin")
external("ext_ok_symlink", location="inside.bin")
external("ext_ok_offset", location="w.bin", offset="0", length="64")
external("ext_passwd", location="../../../../../../../../etc/passwd")
external("ext_sibling", location="../secret/secret.bin")
external("ext_sneaky", location="sub/../../secret/secret.bin")
external("ext_absolute", location=os.path.join(secret, "secret.bin"))
external("ext_symlink", location="escape.bin")
external("ext_device", location="dev.bin")
external("ext_dir", location=".")
external("ext_subdir", location="sub")
external("ext_fifo", location="fifo.bin")
external("ext_offset_junk", location="w.bin", offset="12abc")
external("ext_offset_negative", location="w.bin", offset="-4")
external("ext_length_hex", location="w.bin", length="0x40")
external("ext_past_end", location="w.bin", offset="8", length="64")
external("ext_offset_huge", location="w.bin", offset="9223372036854775807",
         length="64")
external("ext_no_location")

# --- integer folding -------------------------------------------------------
def fold(name, op, a, b, dtype=np.int64):
    save(model(name, [const("a", np.array(a, dtype)), const("b", np.array(b, dtype)),
                      helper.make_node(op, ["a", "b"], ["c"], name="fold"),
                      helper.make_node("Add", ["x", "c"], ["y"], name="add")],
               [vi("x", [2], TensorProto.INT64 if dtype == np.int64 else TensorProto.INT32)],
               [vi("y", [2], TensorProto.INT64 if dtype == np.int64 else TensorProto.INT32)]))


fold("fold_min_div", "Div", [I64_MIN, 7], [-1, 2])
fold("fold_div_zero", "Div", [1, 2], [1, 0])
fold("fold_int32_wrap", "Mul", [2**30, 3], [4, 5], np.int32)
fold("fold_add_wrap", "Add", [2**63 - 1, 1], [1, 1])

# --- arity -----------------------------------------------------------------
save(model("too_few_inputs", [helper.make_node("MatMul", ["x"], ["y"], name="mm")],
           [vi("x", [2, 2])], [vi("y", [2, 2])]))
save(model("empty_required", [helper.make_node("Gemm", ["x", "", "x"], ["y"], name="gemm")],
           [vi("x", [2, 2])], [vi("y", [2, 2])]))
save(model("too_many_inputs", [helper.make_node("Relu", ["x", "x"], ["y"], name="relu")],
           [vi("x", [2, 2])], [vi("y", [2, 2])]))
save(model("no_outputs", [helper.make_node("Relu", ["x"], [], name=""),
                          helper.make_node("Relu", ["x"], ["y"], name="next")],
           [vi("x", [2, 2])], [vi("y", [2, 2])]))

# --- invalid graphs --------------------------------------------------------
save(model("two_writers", [helper.make_node("Relu", ["x"], ["y"], name="first"),
                           helper.make_node("Neg", ["x"], ["y"], name="second")],
           [vi("x", [2])], [vi("y", [2])]))
w = numpy_helper.from_array(np.ones((2,), np.float32), "w")
save(model("dup_initializer", [helper.make_node("Add", ["x", "w"], ["y"], name="add")],
           [vi("x", [2])], [vi("y", [2])], [w, w]))
save(model("float_shape", [const("shape", np.array([4.0], np.float32)),
                           helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")],
           [vi("x", [2, 2])], [vi("y", [4])]))
save(model("output_dtype", [helper.make_node("Relu", ["x"], ["y"], name="relu")],
           [vi("x", [2])], [vi("y", [2], TensorProto.INT32)]))
save(model("output_shape", [helper.make_node("Relu", ["x"], ["y"], name="relu")],
           [vi("x", [2])], [vi("y", [3])]))
save(model("ir_future", [helper.make_node("Relu", ["x"], ["y"], name="relu")],
           [vi("x", [2])], [vi("y", [2])], ir=100))
both = numpy_helper.from_array(np.ones((2,), np.float32), "w")
both.float_data.extend([1.0, 1.0])
save(model("raw_and_typed", [helper.make_node("Add", ["x", "w"], ["y"], name="add")],
           [vi("x", [2])], [vi("y", [2])], [both]))
save(model("empty_input_name", [helper.make_node("Relu", [""], ["y"], name="relu")],
           [vi("", [2])], [vi("y", [2])]))
m = model("no_opset", [helper.make_node("Relu", ["x"], ["y"], name="relu")],
          [vi("x", [2])], [vi("y", [2])])
del m.opset_import[:]
save(m)
save(model("negative_dim", [helper.make_node("Relu", ["x"], ["y"], name="relu")],
           [vi("x", [2, -3])], [vi("y", [2, -3])]))
save(model("reshape_overflow", [const("shape", np.array([2**32, 2**32, 16], np.int64)),
                                helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")],
           [vi("x", [2, 2])], [vi("y", None)]))
save(model("newline_name", [helper.make_node("Frob", ["x"], ["y"], name="evil\nnode")],
           [vi("x", [2])], [vi("y", [2])]))
save(model("expand_overflow", [const("shape", np.array([2**31, 2**31], np.int64)),
                               helper.make_node("Expand", ["x", "shape"], ["y"], name="expand")],
           [vi("x", [1, 1])], [vi("y", None)]))
wc = numpy_helper.from_array(np.ones((1, 1, 5, 5), np.float32), "w")
save(model("conv_negative_pads", [helper.make_node("Conv", ["x", "w"], ["y"], name="conv",
                                                   pads=[-1, 0, 0, 0])],
           [vi("x", [1, 1, 8, 8])], [vi("y", None)], [wc]))
save(model("conv_big_kernel", [helper.make_node("Conv", ["x", "w"], ["y"], name="conv")],
           [vi("x", [1, 1, 3, 3])], [vi("y", None)], [wc]))
save(model("gather_out_of_range", [const("idx", np.array([1, 7], np.int64)),
                                   helper.make_node("Gather", ["x", "idx"], ["y"], name="gather")],
           [vi("x", [4, 2])], [vi("y", None)]))
np.save(os.path.join(out, "x.npy"), np.zeros((2,), np.float32))
m = model("float_shape_opset18", [const("shape", np.array([4.0], np.float32)),
                                   helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")],
          [vi("x", [2, 2])], [vi("y", [4])], opset=18)
save(m)
save(model("add_bool", [helper.make_node("Add", ["x", "x"], ["y"], name="add")],
           [vi("x", [2], TensorProto.BOOL)], [vi("y", [2], TensorProto.BOOL)]))
n = helper.make_node("Softmax", ["x"], ["y"], name="sm", axis=1)
n.attribute.extend([helper.make_attribute("axis", 0)])
save(model("attr_twice", [n], [vi("x", [2, 2])], [vi("y", [2, 2])]))
n = helper.make_node("Constant", [], ["c"], name="c", value_float=1.0, value_int=2)
save(model("constant_two_values", [n, helper.make_node("Add", ["x", "c"], ["y"], name="add")],
           [vi("x", [2])], [vi("y", [2])]))
save(model("overwrite_input", [helper.make_node("Relu", ["x"], ["x"], name="relu")],
           [vi("x", [2])], [vi("x", [2])]))
save(model("overwrite_initializer", [helper.make_node("Relu", ["x"], ["w"], name="relu"),
                                     helper.make_node("Add", ["x", "w"], ["y"], name="add")],
           [vi("x", [2])], [vi("y", [2])], [w]))
m = model("opset_twice", [helper.make_node("Relu", ["x"], ["y"], name="relu")],
          [vi("x", [2])], [vi("y", [2])])
m.opset_import.extend([helper.make_opsetid("", 13)])
m.opset_import[0].version, m.opset_import[1].version = 13, 17
save(m)
save(model("cycle", [helper.make_node("Add", ["x", "b"], ["a"], name="n1"),
                     helper.make_node("Relu", ["a"], ["b"], name="n2"),
                     helper.make_node("Relu", ["a"], ["y"], name="n3")],
           [vi("x", [2])], [vi("y", [2])]))
m = model("sparse", [helper.make_node("Add", ["x", "kv"], ["y"], name="add")],
          [vi("x", [4])], [vi("y", [4])])
sp = helper.make_sparse_tensor(numpy_helper.from_array(np.array([1.0], np.float32), "kv"),
                               numpy_helper.from_array(np.array([2], np.int64), "kv_idx"), [4])
m.graph.sparse_initializer.extend([sp])
save(m)
save(model("reshape_input", [helper.make_node("Reshape", ["x", "s"], ["y"], name="reshape")],
           [vi("x", [2, 2]), vi("s", [2], TensorProto.INT64)], [vi("y", None)]))
np.save(os.path.join(out, "s_float.npy"), np.array([4.0, 1.0], np.float32))
np.save(os.path.join(out, "s_long.npy"), np.array([4, 1, 1], np.int64))
save(model("slice_min_step", [const("st", np.array([-1], np.int64)), const("en", np.array([-2**63], np.int64)),
                              const("ax", np.array([0], np.int64)), const("sp", np.array([-2**63], np.int64)),
                              helper.make_node("Slice", ["x", "st", "en", "ax", "sp"], ["y"], name="slice")],
           [vi("x", [4, 3])], [vi("y", None)]))
wz = numpy_helper.from_array(np.ones((4, 0, 3, 3), np.float32), "w")
save(model("conv_no_channels", [helper.make_node("Conv", ["x", "w"], ["y"], name="conv")],
           [vi("x", [1, 0, 8, 8])], [vi("y", None)], [wz]))
# Found by the importer fuzzer (fuzz/crashes/onnx): an op below the opset
# that introduced it, and a zero stride with auto_pad.
save(model("trilu_opset8", [helper.make_node("Trilu", [], ["y"], name="trilu")],
           [vi("x", [2, 2])], [vi("y", [2, 2])], opset=8))
wc3 = numpy_helper.from_array(np.ones((1, 1, 3, 3), np.float32), "w")
save(model("conv_stride0_same", [helper.make_node("Conv", ["x", "w"], ["y"], name="conv",
                                                  strides=[0, 2], auto_pad="SAME_UPPER")],
           [vi("x", [1, 1, 8, 8])], [vi("y", None)], [wc3]))
save(model("split_overflow", [const("sp", np.array([2**62, 2**62, 2**62, 4], np.int64)),
                              helper.make_node("Split", ["x", "sp"], ["a", "b", "c", "d"], name="split")],
           [vi("x", [4])], [vi("a", None), vi("b", None), vi("c", None), vi("d", None)]))
