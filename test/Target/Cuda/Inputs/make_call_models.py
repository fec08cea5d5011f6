"""Writes the small ONNX models of the CUDA runtime-kernel tests (calls.test)
into the given directory: one model per runtime kernel op (gather, softmax,
layer norm, pooling, arg max, top-k, cumsum, trilu, pad, resize, reference
and quantized matmuls, einsum, gather elements, scatters), and the models
the host emulation runs (emulate_mix, emulate_scatter)."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(0)

F32, F16, F64 = TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.DOUBLE
I64, I32, I8, U8 = TensorProto.INT64, TensorProto.INT32, TensorProto.INT8, TensorProto.UINT8


def save(name, nodes, inputs, outputs, inits=(), opset=17):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))


def vi(name, dims, t=F32):
    return helper.make_tensor_value_info(name, t, dims)


def init(name, array):
    return numpy_helper.from_array(array, name)


def ints(name, values):
    return init(name, np.array(values, np.int64))


# ---- gather ----
# An embedding lookup: rows of 64 floats move as 16-byte words.
save("gather_embedding", [helper.make_node("Gather", ["wte", "ids"], ["y"], axis=0)],
     [vi("ids", [1, 16], I64)], [vi("y", [1, 16, 64])],
     [init("wte", rng.standard_normal((512, 64)).astype(np.float32))])
# fp16 along axis 1 with int32 indices: rows of 3 halves (6 bytes) move as
# 2-byte words.
save("gather_axis1", [helper.make_node("Gather", ["x", "i"], ["y"], axis=1)],
     [vi("x", [3, 5, 3], F16), vi("i", [2], I32)], [vi("y", [3, 2, 3], F16)])

# ---- normalize ----
save("softmax_rows", [helper.make_node("Softmax", ["x"], ["y"], axis=-1)],
     [vi("x", [2, 4, 16, 16])], [vi("y", [2, 4, 16, 16])])
save("softmax_long", [helper.make_node("Softmax", ["x"], ["y"], axis=1)],
     [vi("x", [4, 2048])], [vi("y", [4, 2048])])
save("softmax_huge", [helper.make_node("LogSoftmax", ["x"], ["y"], axis=1)],
     [vi("x", [2, 50257])], [vi("y", [2, 50257])])
save("softmax_cols", [helper.make_node("Softmax", ["x"], ["y"], axis=1)],
     [vi("x", [2, 3, 4])], [vi("y", [2, 3, 4])])
save("log_softmax_half", [helper.make_node("LogSoftmax", ["x"], ["y"], axis=1)],
     [vi("x", [8, 1000], F16)], [vi("y", [8, 1000], F16)])
save("layer_norm", [helper.make_node("LayerNormalization", ["x", "s", "b"], ["y"],
                                     axis=-1, epsilon=1e-5)],
     [vi("x", [2, 16, 64])], [vi("y", [2, 16, 64])],
     [init("s", rng.standard_normal(64).astype(np.float32)),
      init("b", rng.standard_normal(64).astype(np.float32))])
save("layer_norm_stats", [helper.make_node("LayerNormalization", ["x", "s"],
                                           ["y", "mean", "inv"], axis=1, epsilon=1e-3)],
     [vi("x", [3, 5, 2], F64)], [vi("y", [3, 5, 2], F64), vi("mean", [3, 1, 1]),
                                 vi("inv", [3, 1, 1])],
     [init("s", rng.standard_normal((5, 2)))])
save("layer_norm_wide", [helper.make_node("LayerNormalization", ["x", "s", "b"], ["y"],
                                          axis=-1)],
     [vi("x", [4, 40000])], [vi("y", [4, 40000])],
     [init("s", rng.standard_normal(40000).astype(np.float32)),
      init("b", rng.standard_normal(40000).astype(np.float32))])

# ---- pool ----
save("max_pool", [helper.make_node("MaxPool", ["x"], ["y", "idx"], kernel_shape=[3, 3],
                                   strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1,
                                   storage_order=1)],
     [vi("x", [2, 3, 10, 9])], [vi("y", [2, 3, 6, 5]), vi("idx", [2, 3, 6, 5], I64)])
save("avg_pool", [helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[4],
                                   strides=[3], pads=[2, 1], count_include_pad=1)],
     [vi("x", [1, 2, 11])], [vi("y", [1, 2, 4])])
save("max_pool_3d_half", [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2, 2],
                                           dilations=[2, 1, 1])],
     [vi("x", [1, 1, 5, 4, 4], F16)], [vi("y", [1, 1, 3, 3, 3], F16)])
save("max_pool_int8", [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2])],
     [vi("x", [1, 2, 4, 4], I8)], [vi("y", [1, 2, 3, 3], I8)])

# ---- select ----
save("arg_max_long", [helper.make_node("ArgMax", ["x"], ["y"], axis=-1, keepdims=0)],
     [vi("x", [2, 1000])], [vi("y", [2], I64)])
save("arg_max_short", [helper.make_node("ArgMax", ["x"], ["y"], axis=0,
                                        select_last_index=1)],
     [vi("x", [3, 4], I32)], [vi("y", [1, 4], I64)])
save("topk", [helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=1, largest=1)],
     [vi("x", [2, 100, 3])], [vi("v", [2, 5, 3]), vi("i", [2, 5, 3], I64)],
     [ints("k", [5])])
save("topk_smallest", [helper.make_node("TopK", ["x", "k"], ["v", "i"], largest=0)],
     [vi("x", [4, 7], I64)], [vi("v", [4, 3], I64), vi("i", [4, 3], I64)],
     [ints("k", [3])])
save("cumsum", [helper.make_node("CumSum", ["x", "axis"], ["y"], exclusive=1, reverse=1)],
     [vi("x", [3, 4, 5])], [vi("y", [3, 4, 5])], [ints("axis", 1)])
save("cumsum_int", [helper.make_node("CumSum", ["x", "axis"], ["y"])],
     [vi("x", [6], I64)], [vi("y", [6], I64)], [ints("axis", 0)])
save("trilu_upper", [helper.make_node("Trilu", ["x", "k"], ["y"], upper=1)],
     [vi("x", [2, 4, 5])], [vi("y", [2, 4, 5])], [ints("k", 1)])
save("trilu_lower", [helper.make_node("Trilu", ["x"], ["y"], upper=0)],
     [vi("x", [3, 3], F16)], [vi("y", [3, 3], F16)])

# ---- pad ----
save("pad_constant", [helper.make_node("Pad", ["x", "pads", "v"], ["y"], mode="constant")],
     [vi("x", [2, 3])], [vi("y", [3, 6])],
     [ints("pads", [1, 2, 0, 1]), init("v", np.array(1.5, np.float32))])
save("pad_reflect", [helper.make_node("Pad", ["x", "pads"], ["y"], mode="reflect")],
     [vi("x", [1, 3, 4, 5])], [vi("y", [1, 3, 7, 6])],
     [ints("pads", [0, 0, 2, -1, 0, 0, 1, 2])])
save("pad_edge", [helper.make_node("Pad", ["x", "pads"], ["y"], mode="edge")],
     [vi("x", [3, 4], I64)], [vi("y", [5, 4], I64)], [ints("pads", [1, 0, 1, 0])])
# ---- resize ----
save("resize_nearest", [helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="nearest",
                                         coordinate_transformation_mode="asymmetric",
                                         nearest_mode="floor")],
     [vi("x", [1, 1, 2, 3])], [vi("y", [1, 1, 4, 6])],
     [init("scales", np.array([1, 1, 2, 2], np.float32))])
save("resize_linear", [helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="linear")],
     [vi("x", [1, 2, 4, 4])], [vi("y", [1, 2, 6, 6])],
     [init("scales", np.array([1, 1, 1.5, 1.5], np.float32))])
save("resize_cubic_u8", [helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode="cubic",
                                          exclude_outside=1,
                                          coordinate_transformation_mode="align_corners")],
     [vi("x", [1, 1, 3, 5], U8)], [vi("y", [1, 1, 5, 4], U8)], [ints("sizes", [1, 1, 5, 4])])

# ---- matmul ----
save("matmul_f64", [helper.make_node("MatMul", ["a", "b"], ["y"])],
     [vi("a", [2, 1, 3, 20], F64), vi("b", [4, 20, 5], F64)], [vi("y", [2, 4, 3, 5], F64)])
save("matmul_int_vec", [helper.make_node("MatMul", ["a", "b"], ["y"])],
     [vi("a", [7], I32), vi("b", [7, 3], I32)], [vi("y", [3], I32)])
save("matmul_integer", [helper.make_node("MatMulInteger", ["a", "b", "az", "bz"], ["y"])],
     [vi("a", [4, 3], U8), vi("b", [3, 2], U8)], [vi("y", [4, 2], I32)],
     [init("az", np.array([1, 2, 3, 4], np.uint8)), init("bz", np.array(7, np.uint8))])
save("qlinear_matmul", [helper.make_node("QLinearMatMul",
                                         ["a", "as", "az", "b", "bs", "bz", "ys", "yz"],
                                         ["y"])],
     [vi("a", [2, 4], I8), vi("b", [4, 3], I8)], [vi("y", [2, 3], I8)],
     [init("as", np.array(0.05, np.float32)), init("az", np.array(1, np.int8)),
      init("bs", np.array([0.1, 0.2, 0.3], np.float32)),
      init("bz", np.array([0, 1, -1], np.int8)),
      init("ys", np.array(0.3, np.float32)), init("yz", np.array(-2, np.int8))])

# ---- no CUDA form ----
save("einsum", [helper.make_node("Einsum", ["a", "b"], ["y"], equation="ij,jk->ik")],
     [vi("a", [2, 3]), vi("b", [3, 4])], [vi("y", [2, 4])])

# ---- one node per family, for the host emulation (emulate.py) ----
q = lambda name, v, t: init(name, np.array(v, t))
save("emulate_mix", [
    helper.make_node("Gather", ["wte", "ids"], ["gather"], axis=0),
    helper.make_node("Softmax", ["x_rows"], ["approx_softmax"], axis=-1),
    helper.make_node("LogSoftmax", ["x_long"], ["approx_log_softmax"], axis=-1),
    helper.make_node("Softmax", ["x_cols"], ["approx_softmax_cols"], axis=1),
    helper.make_node("LayerNormalization", ["x_ln", "ln_s", "ln_b"],
                     ["approx_layer_norm", "approx_mean", "approx_inv_std"], axis=-1),
    helper.make_node("MaxPool", ["img_special"], ["max_pool", "max_pool_indices"],
                     kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1),
    helper.make_node("AveragePool", ["img_special"], ["average_pool"], kernel_shape=[2, 3],
                     pads=[1, 1, 0, 1], count_include_pad=1),
    helper.make_node("ArgMax", ["x_special"], ["arg_max"], axis=1, keepdims=0),
    helper.make_node("ArgMax", ["x_special"], ["arg_max_last"], axis=0, select_last_index=1),
    helper.make_node("TopK", ["x_special", "k"], ["topk_values", "topk_indices"], axis=1),
    helper.make_node("CumSum", ["x_int", "cs_axis"], ["cumsum"], exclusive=1),
    helper.make_node("CumSum", ["x_long_int", "cs_axis"], ["cumsum_long"], reverse=1),
    helper.make_node("Trilu", ["x_rows"], ["trilu"], upper=0),
    helper.make_node("Pad", ["x_cols", "pads"], ["pad"], mode="reflect"),
    helper.make_node("Resize", ["img_small", "", "", "sizes"], ["resize"], mode="cubic"),
    helper.make_node("MatMul", ["mm_a", "mm_b"], ["matmul"]),
    helper.make_node("QLinearMatMul", ["qa", "qa_s", "qa_z", "qb", "qb_s", "qb_z", "qy_s", "qy_z"],
                     ["qlinear_matmul"]),
], [vi("x_rows", [6, 10]), vi("x_long", [3, 1500]), vi("x_cols", [2, 5, 3]), vi("x_ln", [5, 40]),
    vi("img_special", [1, 2, 7, 7]), vi("x_special", [3, 300]), vi("x_int", [4, 6], I32),
    vi("x_long_int", [2, 700], TensorProto.INT32),
    vi("img_small", [1, 1, 4, 5]), vi("mm_a", [2, 17, 9], F64), vi("mm_b", [9, 20], F64),
    vi("qa", [3, 5], I8)],
    [vi("gather", [2, 3, 24]), vi("approx_softmax", [6, 10]), vi("approx_log_softmax", [3, 1500]),
     vi("approx_softmax_cols", [2, 5, 3]), vi("approx_layer_norm", [5, 40]),
     vi("approx_mean", [5, 1]), vi("approx_inv_std", [5, 1]), vi("max_pool", [1, 2, 4, 4]),
     vi("max_pool_indices", [1, 2, 4, 4], I64), vi("average_pool", [1, 2, 7, 7]),
     vi("arg_max", [3], I64), vi("arg_max_last", [1, 300], I64), vi("topk_values", [3, 4]),
     vi("topk_indices", [3, 4], I64), vi("cumsum", [4, 6], I32),
     vi("cumsum_long", [2, 700], TensorProto.INT32), vi("trilu", [6, 10]),
     vi("pad", [2, 9, 3]), vi("resize", [1, 1, 7, 3]), vi("matmul", [2, 17, 20], F64),
     vi("qlinear_matmul", [3, 4], I8)],
    [init("wte", rng.standard_normal((50, 24)).astype(np.float32)),
     ints("ids", [[0, -1, 7], [49, -50, 3]]),
     init("ln_s", rng.standard_normal(40).astype(np.float32)),
     init("ln_b", rng.standard_normal(40).astype(np.float32)),
     ints("k", [4]), ints("cs_axis", 1), ints("pads", [0, 2, 0, 0, 2, 0]),
     ints("sizes", [1, 1, 7, 3]),
     q("qa_s", 0.05, np.float32), q("qa_z", [1, -2, 0], np.int8),
     init("qb", rng.integers(-128, 128, (5, 4)).astype(np.int8)),
     q("qb_s", [0.1, 0.2, 0.3, 0.4], np.float32), q("qb_z", [0, 1, -1, 2], np.int8),
     q("qy_s", 0.3, np.float32), q("qy_z", -2, np.int8)])

# ---- scatter (a generator of their own, so the models above stay as they were) ----
srng = np.random.default_rng(1)
I16 = TensorProto.INT16
save("gather_elements_half", [helper.make_node("GatherElements", ["x", "i"], ["y"], axis=0)],
     [vi("x", [5, 3], F16), vi("i", [2, 3], I32)], [vi("y", [2, 3], F16)])
save("scatter_nd_add", [helper.make_node("ScatterND", ["x", "i", "u"], ["y"],
                                         reduction="add")],
     [vi("x", [5, 4, 3], F16), vi("i", [6, 2], I64), vi("u", [6, 3], F16)],
     [vi("y", [5, 4, 3], F16)], opset=18)


def idx(name, lo, hi, shape, dtype=np.int64):
    return init(name, srng.integers(lo, hi, shape).astype(dtype))


def distinct_cols(name, rows, n, k):
    """Per row, k distinct column indices of [0, n), negative half the time."""
    a = np.stack([srng.permutation(n)[:k] for _ in range(rows)])
    return init(name, np.where(srng.random(a.shape) < 0.5, a - n, a).astype(np.int64))


se = lambda out, ins, axis, red: helper.make_node("ScatterElements", ins, [out], axis=axis,
                                                  reduction=red)
nd = lambda out, ins, red: helper.make_node("ScatterND", ins, [out], reduction=red)
# Element stores without duplicates, reductions with them: the atomics on
# words of 8, 4, 2 and 1 bytes. Integer sums and products (they wrap), max
# and min (NaN propagates) are exact in any order; float sums are not.
save("emulate_scatter", [
    helper.make_node("GatherElements", ["ge_x", "ge_i"], ["gather_elements"], axis=1),
    se("scatter_none", ["ge_x", "sn_i", "sn_u"], 1, "none"),
    se("scatter_add_i32", ["sa_x", "sa_i", "sa_u"], 0, "add"),
    se("scatter_mul_i16", ["sm_x", "sm_i", "sm_u"], 0, "mul"),
    se("scatter_max", ["xs_special", "sx_i", "us_special"], 1, "max"),
    se("scatter_min_i8", ["si_x", "si_i", "si_u"], 1, "min"),
    se("half_scatter_add", ["sh_x", "sh_i", "sh_u"], 0, "add"),
    se("approx_scatter_add_f64", ["sd_x", "sd_i", "sd_u"], 0, "add"),
    nd("scatter_nd", ["nd_x", "nd_i", "nd_u"], "none"),
    nd("scatter_nd_add_i64", ["na_x", "na_i", "na_u"], "add"),
    nd("scatter_nd_max_u8", ["nm_x", "nm_i", "nm_u"], "max"),
], [vi("ge_x", [4, 6]), vi("sn_u", [4, 2]), vi("sa_x", [30, 8], I32), vi("sa_u", [200, 8], I32),
    vi("sm_x", [4, 5], I16), vi("sm_u", [6, 5], I16), vi("xs_special", [3, 8]),
    vi("us_special", [3, 12]), vi("si_x", [3, 8], I8), vi("si_u", [3, 10], I8),
    vi("sh_x", [4, 4], F16), vi("sh_u", [8, 4], F16), vi("sd_x", [4, 4], F64),
    vi("sd_u", [9, 4], F64), vi("nd_x", [5, 4, 3]), vi("nd_u", [3, 4, 3]),
    vi("na_x", [4, 5], I64), vi("na_u", [12], I64), vi("nm_x", [6, 4], U8),
    vi("nm_u", [5, 4], U8)],
    [vi("gather_elements", [4, 3]), vi("scatter_none", [4, 6]),
     vi("scatter_add_i32", [30, 8], I32), vi("scatter_mul_i16", [4, 5], I16),
     vi("scatter_max", [3, 8]), vi("scatter_min_i8", [3, 8], I8),
     vi("half_scatter_add", [4, 4], F16), vi("approx_scatter_add_f64", [4, 4], F64),
     vi("scatter_nd", [5, 4, 3]), vi("scatter_nd_add_i64", [4, 5], I64),
     vi("scatter_nd_max_u8", [6, 4], U8)],
    [idx("ge_i", -6, 6, (4, 3)), distinct_cols("sn_i", 4, 6, 2), idx("sa_i", -30, 30, (200, 8)),
     idx("sm_i", 0, 4, (6, 5)), idx("sx_i", -8, 8, (3, 12), np.int32), idx("si_i", -8, 8, (3, 10)),
     idx("sh_i", 0, 4, (8, 4)), idx("sd_i", -4, 4, (9, 4)),
     ints("nd_i", [[-1], [0], [2]]), idx("na_i", -4, 4, (12, 2)),
     idx("nm_i", -6, 6, (5, 1))], opset=18)
