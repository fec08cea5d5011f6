"""The cases of the sharding-rule conformance run
(scripts/sharding-conformance.py): one ONNX node each, with its graph inputs
(which the run splits), its constant inputs (axes, shapes, k: never split)
and the data its inputs get.

Data kinds:
  mixed   normal values rounded to halves (ties), negatives, and +inf, -inf
          and NaN at a few places
  plain   normal values rounded to eighths (no specials: ops whose result
          would be all NaN, or whose library kernels order sums differently)
  unit    values in [0.5, 1.5] (products)
  pos     values in [0.25, 4] (logs)
  bool    booleans
  index   int64 indices in [-n, n) for a dim of n (given as `bound`)
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


class Case:
    def __init__(self, name, op, inputs, attrs=None, consts=None,
                 outputs=("y",), reduced=(), opset=17):
        self.name = name
        self.op = op
        # [(name, shape, onnx type, data kind, bound)]
        self.input_specs = [(i + (None,))[:5] if len(i) == 4 else i
                            for i in inputs]
        self.attrs = attrs or {}
        self.consts = consts or []  # [(name, numpy array)], after the inputs
        self.outputs = list(outputs)
        self.reduced = reduced  # dims of input 0 a reduction combines
        self.opset = opset

    @property
    def shapes(self):
        return [s[1] for s in self.input_specs]

    def write(self, path):
        ins = [helper.make_tensor_value_info(n, t, s)
               for n, s, t, _, _ in self.input_specs]
        node = helper.make_node(self.op, [s[0] for s in self.input_specs] +
                                [c[0] for c in self.consts], self.outputs,
                                **self.attrs)
        graph = helper.make_graph(
            [node], self.name, ins,
            [helper.make_tensor_value_info(o, TensorProto.UNDEFINED, None)
             for o in self.outputs],
            [numpy_helper.from_array(v, n) for n, v in self.consts])
        model = helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", self.opset)])
        model.ir_version = 8
        inferred = onnx.shape_inference.infer_shapes(model)
        types = {v.name: v for v in inferred.graph.value_info}
        types.update({v.name: v for v in inferred.graph.output})
        del model.graph.output[:]
        for o in self.outputs:
            model.graph.output.append(types[o])
        onnx.checker.check_model(model)
        onnx.save(model, path)

    def inputs(self, rng):
        out = {}
        for name, shape, t, kind, bound in self.input_specs:
            out[name] = make_data(rng, shape, kind, bound)
        return out


def make_data(rng, shape, kind, bound=None):
    if kind == "bool":
        return rng.random(shape) < 0.5
    if kind == "index":
        return rng.integers(-bound, bound, size=shape).astype(np.int64)
    if kind == "unit":
        return rng.uniform(0.5, 1.5, shape).astype(np.float32)
    if kind == "pos":
        return rng.uniform(0.25, 4.0, shape).astype(np.float32)
    step = 2.0 if kind == "mixed" else 8.0
    x = (np.round(rng.standard_normal(shape) * step) / step).astype(np.float32)
    if kind == "mixed" and x.size >= 8:
        flat = x.reshape(-1)
        picks = rng.choice(x.size, size=3, replace=False)
        flat[picks[0]] = np.inf
        flat[picks[1]] = -np.inf
        flat[picks[2]] = np.nan
    return x


def axes(*a):
    return np.array(a, np.int64)


def cases():
    c = []
    # Elementwise and broadcasting.
    c.append(Case("add_broadcast", "Add",
                  [("x", [6, 4], F, "mixed"), ("b", [4], F, "mixed")]))
    c.append(Case("mul", "Mul",
                  [("x", [6, 4], F, "mixed"), ("y2", [6, 4], F, "plain")]))
    c.append(Case("where", "Where",
                  [("m", [6, 4], B, "bool"), ("x", [6, 4], F, "mixed"),
                   ("z", [1, 4], F, "plain")]))
    c.append(Case("max_elementwise", "Max",
                  [("x", [6, 4], F, "mixed"), ("z", [6, 4], F, "mixed")]))
    # Contractions: a split k gives partial sums.
    c.append(Case("matmul", "MatMul",
                  [("a", [6, 4], F, "plain"), ("w", [4, 6], F, "plain")]))
    c.append(Case("matmul_batched", "MatMul",
                  [("a", [2, 6, 4], F, "plain"), ("w", [2, 4, 3], F, "plain")]))
    c.append(Case("gemm_bias", "Gemm",
                  [("a", [6, 4], F, "plain"), ("w", [3, 4], F, "plain"),
                   ("c3", [3], F, "plain")], attrs={"transB": 1}))
    c.append(Case("einsum", "Einsum",
                  [("a", [6, 4], F, "plain"), ("w", [4, 6], F, "plain")],
                  attrs={"equation": "ij,jk->ik"}))
    # Reductions over dim 1 (and over both dims).
    red = [("ReduceMax", "mixed"), ("ReduceMin", "mixed"),
           ("ReduceSum", "mixed"), ("ReduceMean", "mixed"),
           ("ReduceProd", "unit"), ("ReduceSumSquare", "mixed"),
           ("ReduceL1", "mixed"), ("ReduceL2", "mixed"),
           ("ReduceLogSum", "pos"), ("ReduceLogSumExp", "mixed")]
    for op, kind in red:
        name = op[len("Reduce"):].lower()
        for keep in (1, 0):
            consts, attrs = [], {"keepdims": keep}
            if op == "ReduceSum":
                consts = [("axes", axes(1))]
            else:
                attrs["axes"] = [1]
            c.append(Case("reduce_%s_k%d" % (name, keep), op,
                          [("x", [6, 6], F, kind)], attrs=attrs,
                          consts=consts, reduced=(1,)))
    c.append(Case("reduce_max_all", "ReduceMax", [("x", [6, 4], F, "mixed")],
                  attrs={"keepdims": 0}, reduced=(0, 1)))
    c.append(Case("reduce_mean_rows", "ReduceMean",
                  [("x", [6, 3, 4], F, "plain")],
                  attrs={"axes": [0, 2], "keepdims": 1}, reduced=(0, 2)))
    # Normalizations and softmax: their axis stays whole.
    c.append(Case("softmax", "Softmax", [("x", [4, 6], F, "plain")],
                  attrs={"axis": 1}))
    c.append(Case("log_softmax", "LogSoftmax", [("x", [4, 6], F, "plain")],
                  attrs={"axis": 0}))
    c.append(Case("layer_norm", "LayerNormalization",
                  [("x", [4, 6], F, "plain"), ("g", [6], F, "plain"),
                   ("bt", [6], F, "plain")], attrs={"axis": -1}))
    # Selection and scans: split along their axis, the ranks combine value
    # and index (arg max, top k) or the blocks' totals (cumsum).
    for last in (0, 1):
        c.append(Case("argmax_last%d" % last, "ArgMax",
                      [("x", [6, 6], F, "mixed")],
                      attrs={"axis": 1, "keepdims": 1,
                             "select_last_index": last}, reduced=(1,)))
        c.append(Case("argmin_last%d" % last, "ArgMin",
                      [("x", [6, 6], F, "mixed")],
                      attrs={"axis": 1, "keepdims": 0,
                             "select_last_index": last}, reduced=(1,)))
    c.append(Case("topk", "TopK", [("x", [4, 6], F, "plain")],
                  attrs={"axis": 1}, consts=[("k", axes(2))],
                  outputs=("values", "indices"), reduced=(1,)))
    c.append(Case("topk_smallest", "TopK", [("x", [4, 6], F, "mixed")],
                  attrs={"axis": 1, "largest": 0}, consts=[("k", axes(2))],
                  outputs=("values", "indices"), reduced=(1,)))
    c.append(Case("cumsum", "CumSum", [("x", [4, 6], F, "plain")],
                  consts=[("ax", np.array(1, np.int64))], reduced=(1,)))
    c.append(Case("cumsum_reverse_exclusive", "CumSum",
                  [("x", [4, 6], F, "plain")],
                  attrs={"exclusive": 1, "reverse": 1},
                  consts=[("ax", np.array(1, np.int64))], reduced=(1,)))
    # Shapes and movement.
    c.append(Case("transpose", "Transpose", [("x", [6, 4], F, "mixed")],
                  attrs={"perm": [1, 0]}))
    c.append(Case("reshape_split", "Reshape", [("x", [6, 4], F, "mixed")],
                  consts=[("shape", axes(2, 3, 4))]))
    c.append(Case("reshape_merge", "Reshape", [("x", [2, 3, 4], F, "mixed")],
                  consts=[("shape", axes(6, 4))]))
    c.append(Case("concat", "Concat",
                  [("x", [6, 2], F, "mixed"), ("z", [6, 4], F, "plain")],
                  attrs={"axis": 1}))
    c.append(Case("slice", "Slice", [("x", [6, 4], F, "mixed")],
                  consts=[("st", axes(1)), ("en", axes(5)), ("ax", axes(0))]))
    c.append(Case("gather_rows", "Gather",
                  [("t", [6, 4], F, "mixed"), ("ids", [3], I64, "index", 6)],
                  attrs={"axis": 0}))
    c.append(Case("gather_cols", "Gather",
                  [("t", [6, 4], F, "mixed"), ("ids", [2, 3], I64, "index", 4)],
                  attrs={"axis": 1}))
    c.append(Case("unsqueeze", "Unsqueeze", [("x", [6, 4], F, "mixed")],
                  consts=[("ax", axes(1))]))
    c.append(Case("expand", "Expand", [("x", [6, 1], F, "mixed")],
                  consts=[("shape", axes(6, 4))]))
    # Convolution and pooling: input channels a sum reduction, windows whole.
    c.append(Case("conv", "Conv",
                  [("x", [1, 4, 5, 5], F, "plain"),
                   ("w", [6, 4, 3, 3], F, "plain")],
                  attrs={"pads": [1, 1, 1, 1]}))
    c.append(Case("global_average_pool", "GlobalAveragePool",
                  [("x", [2, 4, 3, 3], F, "plain")]))
    c.append(Case("global_max_pool", "GlobalMaxPool",
                  [("x", [2, 4, 3, 4], F, "mixed")], reduced=(2, 3)))
    c.append(Case("max_pool", "MaxPool", [("x", [1, 4, 6, 6], F, "mixed")],
                  attrs={"kernel_shape": [2, 2], "strides": [2, 2]}))
    return c
