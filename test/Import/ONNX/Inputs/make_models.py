"""Writes small ONNX models for the importer tests into the given directory:
well-formed ones exercising opset-specific forms, and broken ones, each with
one defect."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def save(name, nodes, inputs, outputs, inits=(), opset=17, check=True):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    if check:
        onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))
    return model


def vi(name, dims, t=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, t, dims)


rng = np.random.default_rng(0)
W = numpy_helper.from_array(rng.standard_normal((8, 8)).astype(np.float32), "W")

# --- well-formed -----------------------------------------------------------
# PyTorch-style shape arithmetic feeding a Reshape; W shared by two MatMuls.
save("shape_subgraph", [
    helper.make_node("MatMul", ["x", "W"], ["h"], name="mm1"),
    helper.make_node("MatMul", ["h", "W"], ["h2"], name="mm2"),
    helper.make_node("Shape", ["h2"], ["s"]),
    helper.make_node("Constant", [], ["zero"], value=numpy_helper.from_array(np.array(0, np.int64))),
    helper.make_node("Gather", ["s", "zero"], ["batch"], axis=0),
    helper.make_node("Constant", [], ["ax0"], value=numpy_helper.from_array(np.array([0], np.int64))),
    helper.make_node("Unsqueeze", ["batch", "ax0"], ["b1"]),
    helper.make_node("Constant", [], ["rest"], value=numpy_helper.from_array(np.array([2, 4], np.int64))),
    helper.make_node("Concat", ["b1", "rest"], ["target"], axis=0),
    helper.make_node("Reshape", ["h2", "target"], ["y"], name="reshape"),
], [vi("x", ["batch", 8])], [vi("y", None)], [W], check=False)

# The same reduction, split and squeeze at opsets where axes are attributes
# and where they are inputs.
def forms(opset):
    axes_attr = opset < 13
    ax = numpy_helper.from_array(np.array([1], np.int64), "ax")
    split = numpy_helper.from_array(np.array([2, 6], np.int64), "split")
    nodes = [
        helper.make_node("ReduceMean", ["x"] + ([] if opset < 18 else ["ax"]), ["m"],
                         **({"axes": [1]} if opset < 18 else {}), keepdims=1),
        helper.make_node("Split", ["x"] + ([] if axes_attr else ["split"]), ["a", "b"], axis=1,
                         **({"split": [2, 6]} if axes_attr else {})),
        helper.make_node("Squeeze", ["m"] + ([] if axes_attr else ["ax"]), ["y"],
                         **({"axes": [1]} if axes_attr else {})),
    ]
    save("forms_opset%d" % opset, nodes, [vi("x", [4, 8])],
         [vi("y", [4]), vi("a", [4, 2]), vi("b", [4, 6])], [ax, split], opset=opset,
         check=opset <= 17)  # onnx 1.12 knows opsets up to 17

for opset in (11, 13, 18):
    forms(opset)

# Weights in an external data file next to the model.
m = helper.make_model(helper.make_graph(
    [helper.make_node("MatMul", ["x", "W"], ["y"])], "external",
    [vi("x", [2, 8])], [vi("y", [2, 8])], [W]), opset_imports=[helper.make_opsetid("", 17)])
onnx.save(m, os.path.join(out, "external.onnx"), save_as_external_data=True,
          all_tensors_to_one_file=True, location="external.weights", size_threshold=0)

# --- broken ----------------------------------------------------------------
good = save("good", [helper.make_node("Relu", ["x"], ["y"])], [vi("x", [2, 3])], [vi("y", [2, 3])])
data = good.SerializeToString()
with open(os.path.join(out, "truncated.onnx"), "wb") as f:
    f.write(data[: len(data) // 2])
with open(os.path.join(out, "not_onnx.onnx"), "w") as f:
    f.write("this is a text file, not a model\n")

save("unknown_op", [helper.make_node("FrobnicateTensor", ["x"], ["y"], name="frob")],
     [vi("x", [2])], [vi("y", [2])], check=False)
g = helper.make_graph([helper.make_node("Gelu", ["x"], ["y"], name="gelu", domain="com.example")],
                      "custom", [vi("x", [2])], [vi("y", [2])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17),
                                              helper.make_opsetid("com.example", 1)]),
          os.path.join(out, "custom_domain.onnx"))
save("opset6", [helper.make_node("Relu", ["x"], ["y"])], [vi("x", [2])], [vi("y", [2])], opset=6, check=False)
save("opset23", [helper.make_node("Relu", ["x"], ["y"])], [vi("x", [2])], [vi("y", [2])], opset=23, check=False)
save("attr_type", [helper.make_node("Softmax", ["x"], ["y"], name="sm", axis=1.5)],
     [vi("x", [2, 3])], [vi("y", [2, 3])], check=False)
save("empty_graph", [], [vi("x", [2])], [], check=False)
save("missing_initializer", [helper.make_node("MatMul", ["x", "W_missing"], ["y"], name="proj")],
     [vi("x", [2, 8])], [vi("y", [2, 8])], check=False)
save("absurd_dim", [helper.make_node("Relu", ["x"], ["y"])],
     [vi("x", [1000000000000000, 4])], [vi("y", None)], check=False)
save("dynamic_dim", [helper.make_node("Relu", ["x"], ["y"])],
     [vi("x", [1, "seq"])], [vi("y", None)], check=False)
save("dynamic_other", [helper.make_node("Relu", ["x"], ["y"])],
     [vi("x", [1, "n"])], [vi("y", None)], check=False)
W2 = numpy_helper.from_array(np.zeros((128, 4), np.float32), "W2")
save("wrong_shape", [helper.make_node("MatMul", ["x", "W2"], ["y"], name="attn/MatMul_3")],
     [vi("x", [2, 64])], [vi("y", None)], [W2], check=False)
then = helper.make_graph([helper.make_node("Identity", ["x"], ["t"])], "then", [], [vi("t", [2])])
save("nested_if", [helper.make_node("If", ["c"], ["y"], name="branch", then_branch=then, else_branch=then)],
     [vi("c", [], TensorProto.BOOL), vi("x", [2])], [vi("y", [2])], check=False)
bad = numpy_helper.from_array(np.zeros((4, 4), np.float32), "Wbad")
bad.raw_data = bad.raw_data[:10]
save("corrupt_initializer", [helper.make_node("MatMul", ["x", "Wbad"], ["y"])],
     [vi("x", [2, 4])], [vi("y", None)], [bad], check=False)
ext = numpy_helper.from_array(np.zeros((4, 4), np.float32), "Wext")
ext.ClearField("raw_data")
ext.data_location = TensorProto.EXTERNAL
ext.external_data.add(key="location", value="does_not_exist.bin")
save("missing_external", [helper.make_node("MatMul", ["x", "Wext"], ["y"])],
     [vi("x", [2, 4])], [vi("y", None)], [ext], check=False)
save("string_input", [helper.make_node("Identity", ["x"], ["y"])],
     [vi("x", [2], TensorProto.STRING)], [vi("y", [2], TensorProto.STRING)], check=False)
# A Reshape whose target is a graph input: it must be bound at compile time.
save("runtime_shape", [helper.make_node("Reshape", ["x", "shape"], ["y"], name="rs")],
     [vi("x", [2, 3]), vi("shape", [2], TensorProto.INT64)], [vi("y", None)], check=False)
np.save(os.path.join(out, "shape_3x2.npy"), np.array([3, 2], np.int64))
