"""Writes emulate_moe.onnx into the given directory: two mixture-of-experts
blocks (f32 and f16) written as torch 1.13 exports Hugging Face Mixtral's
sparse MoE block (test/Models/Inputs/export_moe.py: OneHot of the top-k,
per expert NonZero, a Gather of the routed tokens, the SwiGLU MLP, the
routing weight gathered at t * K + k, index_add as ScatterElements into
zeros and Add), which graph-fuse-moe turns into one graph.moe each.

The router's logits get a constant bias that fixes the routing whatever
the (random) tokens, so that the CUDA kernels meet, with 64-row GEMM
tiles: an expert with more rows than a tile, tiles straddling experts
(two and three), experts without rows (first, middle and last), and a
tile running past the last row."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(3)
nodes, inits = [], []


def const(name, array):
    inits.append(numpy_helper.from_array(np.asarray(array), name))
    return name


def node(op, ins, outs, **attrs):
    nodes.append(helper.make_node(op, ins, outs, **attrs))
    return outs[0] if len(outs) == 1 else outs


def routing(t, k, e, counts):
    """Per token k distinct experts, expert i chosen by counts[i] tokens (each
    at most t), in a random order of preference."""
    assert sum(counts) == t * k and max(counts) <= t
    chosen = [[] for _ in range(t)]
    # Most-wanted experts first, each to the tokens with the fewest choices.
    for i in sorted(range(e), key=lambda i: -counts[i]):
        for tok in sorted(range(t), key=lambda x: (len(chosen[x]), rng.random()))[:counts[i]]:
            chosen[tok].append(i)
    bias = np.full((t, e), -6.0)
    for tok, experts in enumerate(chosen):
        assert len(experts) == k
        for rank, i in enumerate(rng.permutation(experts)):
            bias[tok, i] = 6.0 - 2.0 * rank
    return bias


def moe_block(p, x, t, h, f, e, k, counts, dt, bias=False):
    """Mixtral's block on x [t, h] of numpy type dt; returns its output.
    With `bias`, each projection is an nn.Linear with a bias (an Add after
    the MatMul)."""
    onnx_t = TensorProto.FLOAT16 if dt == np.float16 else TensorProto.FLOAT
    w = lambda shape, fan: const(p + "w%d" % len(inits),
                                 (rng.standard_normal(shape) / np.sqrt(fan)).astype(dt))
    c = lambda v: const(p + "c%d" % len(inits), np.array(v, np.int64))
    xr = node("Reshape", [x, c([-1, h])], [p + "xr"])
    # Not a MatMul (cuBLASLt has no host emulation): a scaled slice of x.
    logits = node("Mul", [node("Slice", [xr, c([0]), c([e]), c([1])], [p + "xs"]),
                          const(p + "scale", np.array(0.1, dt))], [p + "logits"])
    biased = node("Add", [logits, const(p + "bias", routing(t, k, e, counts).astype(dt))],
                  [p + "biased"])
    probs = node("Cast", [node("Softmax", [biased], [p + "softmax"], axis=1)], [p + "probs"],
                 to=onnx_t)
    top, ids = node("TopK", [probs, c([k])], [p + "top", p + "ids"], axis=-1)
    total = node("ReduceSum", [top, c([-1])], [p + "total"], keepdims=1)
    weights = node("Cast", [node("Div", [top, total], [p + "div"])], [p + "weights"],
                   to=onnx_t)
    one_hot = node("OneHot", [ids, c(e), c([0, 1])], [p + "one_hot"], axis=-1)
    mask = node("Transpose", [one_hot], [p + "mask"], perm=[2, 1, 0])
    xu = node("Unsqueeze", [xr, c([0])], [p + "xu"])
    acc = const(p + "zeros", np.zeros((t, h), dt))
    for i in range(e):
        q = p + "e%d_" % i
        m = node("Cast", [node("Gather", [mask, c(i)], [q + "m"], axis=0)], [q + "mb"],
                 to=TensorProto.BOOL)
        nz = node("Transpose", [node("NonZero", [m], [q + "nz"])], [q + "nzt"], perm=[1, 0])
        s0, s1 = node("Split", [nz, c([1, 1])], [q + "s0", q + "s1"], axis=1)
        idx = node("Squeeze", [s0, c([1])], [q + "idx"])
        top_x = node("Squeeze", [s1, c([1])], [q + "top_x"])
        cur = node("Reshape", [node("Gather", [xu, top_x], [q + "g"], axis=1), c([-1, h])],
                   [q + "cur"])
        def proj(a, shape, fan, name):
            y = node("MatMul", [a, w(shape, fan)], [q + name])
            if bias:
                b = const(q + name + "_b", rng.uniform(-1, 1, shape[1]).astype(dt))
                y = node("Add", [y, b], [q + name + "_biased"])
            return y
        g = proj(cur, (h, f), h, "gate")
        silu = node("Mul", [g, node("Sigmoid", [g], [q + "sig"])], [q + "silu"])
        up = proj(cur, (h, f), h, "up")
        y = proj(node("Mul", [silu, up], [q + "act"]), (f, h), f, "y")
        # routing_weights[top_x, idx, None]
        wu = node("Unsqueeze", [weights, c([2])], [q + "wu"])
        shape = node("Shape", [wu], [q + "shape"])
        kk = node("Gather", [shape, c([1])], [q + "kk"], axis=0)
        one = node("Gather", [shape, c([2])], [q + "one"], axis=0)
        flat = node("Flatten", [wu], [q + "flat"], axis=2)
        pos = node("Add", [idx, node("Mul", [top_x, kk], [q + "tk"])], [q + "pos"])
        rw = node("Gather", [flat, pos], [q + "rw"], axis=0)
        rw = node("Reshape", [rw, node("Concat", [c([-1]), one], [q + "cat"], axis=0)],
                  [q + "rw1"])
        rw = node("Reshape", [rw, node("Concat", [node("Shape", [pos], [q + "np"]), one],
                                       [q + "cat1"], axis=0)], [q + "rw2"])
        yw = node("Cast", [node("Mul", [y, rw], [q + "yw"])], [q + "ywc"], to=onnx_t)
        # final.index_add_(0, top_x, yw)
        upd = node("Expand", [yw, c([1, h])], [q + "upd"])
        where = node("Expand", [node("Unsqueeze", [top_x, c([1])], [q + "tu"]),
                                node("Shape", [upd], [q + "us"])], [q + "where"])
        added = node("ScatterElements", [const(q + "z", np.zeros((t, h), dt)), where, upd],
                     [q + "added"], axis=0)
        acc = node("Add", [acc, added], [q + "acc"])
    return acc


moe_block("a_", "moe_x", 80, 24, 20, 4, 2, [70, 0, 80, 10], np.float32)
moe_block("h_", "moe16_x", 72, 20, 36, 6, 3, [0, 72, 8, 66, 70, 0], np.float16)
# nn.Linear experts (biases; kern.grouped_bias), last so that the kernels
# of the two blocks above keep their numbers.
moe_block("b_", "moeb_x", 80, 24, 20, 4, 2, [70, 0, 80, 10], np.float32, bias=True)
nodes.append(helper.make_node("Identity", ["a_e3_acc"], ["approx_moe"]))
nodes.append(helper.make_node("Identity", ["h_e5_acc"], ["half_moe"]))
nodes.append(helper.make_node("Identity", ["b_e3_acc"], ["approx_moe_bias"]))
vi = helper.make_tensor_value_info
graph = helper.make_graph(
    nodes, "emulate_moe",
    [vi("moe_x", TensorProto.FLOAT, [80, 24]), vi("moe16_x", TensorProto.FLOAT16, [72, 20]),
     vi("moeb_x", TensorProto.FLOAT, [80, 24])],
    [vi("approx_moe", TensorProto.FLOAT, [80, 24]),
     vi("half_moe", TensorProto.FLOAT16, [72, 20]),
     vi("approx_moe_bias", TensorProto.FLOAT, [80, 24])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "emulate_moe.onnx"))
