"""Writes the ONNX models of the importer's scatter test (scatter.test) into
the given directory: GatherElements, ScatterElements (and the older
Scatter) and ScatterND at the opsets that changed them, and one model per
defect the importer refuses."""
import os
import sys

import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
F, I32, I64 = TensorProto.FLOAT, TensorProto.INT32, TensorProto.INT64


def vi(name, dims, t=F):
    return helper.make_tensor_value_info(name, t, dims)


def save(name, node, inputs, output, opset, check=True):
    graph = helper.make_graph([node], name, inputs, [output])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    if check:
        onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))


def elements(name, op, opset, idx_type=I64, idx=(3, 2), check=True, **attrs):
    ins = ["x", "i"] + ([] if op == "GatherElements" else ["u"])
    inputs = [vi("x", [3, 4]), vi("i", list(idx), idx_type), vi("u", list(idx))]
    result = list(idx) if op == "GatherElements" else [3, 4]
    save(name, helper.make_node(op, ins, ["y"], name="y", **attrs), inputs[:len(ins)],
         vi("y", result), opset, check)


def nd(name, opset, check=True, **attrs):
    save(name, helper.make_node("ScatterND", ["x", "i", "u"], ["y"], name="y", **attrs),
         [vi("x", [3, 4]), vi("i", [2, 1], I64), vi("u", [2, 4])], vi("y", [3, 4]), opset, check)


# --- well-formed -----------------------------------------------------------
elements("gather_elements_11", "GatherElements", 11, axis=-1)
elements("gather_elements_13", "GatherElements", 13, I32, axis=0, idx=(2, 4))
elements("scatter_10", "Scatter", 10, axis=1)
elements("scatter_elements_11", "ScatterElements", 11, I32, axis=-2)
elements("scatter_elements_16", "ScatterElements", 16, axis=1, reduction="mul")
elements("scatter_elements_18", "ScatterElements", 18, axis=1, reduction="min")
nd("scatter_nd_11", 11)
nd("scatter_nd_16", 16, reduction="add")
nd("scatter_nd_18", 18, reduction="max")



def gnd(name, opset, x, i, y, check=True, **attrs):
    save(name, helper.make_node("GatherND", ["x", "i"], ["y"], name="y", **attrs),
         [vi("x", x), vi("i", i, I64)], vi("y", y), opset, check)


gnd("gather_nd_12", 12, [2, 3, 4], [5, 2], [5, 4])
gnd("gather_nd_batch", 12, [2, 3, 4], [2, 1], [2, 4], batch_dims=1)

# --- refused ---------------------------------------------------------------
# A reduction from a later opset; an unknown one; indices whose rank or
# size does not fit the data; updates of the wrong shape.
elements("reduction_opset16", "ScatterElements", 16, axis=1, reduction="max")
nd("reduction_opset13", 13, check=False, reduction="add")
nd("reduction_unknown", 18, check=False, reduction="sum")
elements("indices_rank", "GatherElements", 13, axis=0, idx=(6,), check=False)
elements("indices_dims", "ScatterElements", 13, axis=1, idx=(4, 2), check=False)
save("updates_shape", helper.make_node("ScatterND", ["x", "i", "u"], ["y"], name="y"),
     [vi("x", [3, 4]), vi("i", [2, 2], I64), vi("u", [2, 4])], vi("y", [3, 4]), 13,
     check=False)
gnd("gather_nd_components", 12, [3, 4], [2, 3], [2], check=False)
gnd("gather_nd_batch_dims", 12, [3, 4], [3, 1], [3], check=False, batch_dims=2)
