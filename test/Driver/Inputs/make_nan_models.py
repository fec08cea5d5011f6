"""NaN and +-Inf through every op family: small ONNX models, compiled by
shardc (CPU target) with and without fusion, run, and compared with ONNX
Runtime.

  make_nan_models.py DIR SHARDC [FAMILY ...]

For each family: writes DIR/FAMILY.onnx and its inputs (.npy, finite random
values with NaN, +Inf and -Inf planted at fixed places), compiles it twice
(`shardc --no-fusion` and the default fused build), runs both executables
and compares every output with onnxruntime's: NaN at the same places, the
infinities exactly (sign included), finite values within 1e-4 relative
(1e-5 absolute). Prints one line per family and build:

  act fused: 21 outputs ok

and, for each output where ONNX Runtime is not IEEE-consistent and shardc
follows ONNX/IEEE instead (see REFERENCE), a line saying where ORT differs.

What ONNX Runtime 1.31 (CPU) does, found by running it, and what shardc
does (the same unless said):

- Relu, LeakyRelu, HardSigmoid, Sigmoid, Tanh, Erf, Abs, Neg, Sqrt, Exp,
  Log, Reciprocal: IEEE (NaN in, NaN out; Relu(-Inf) = 0, Sigmoid(-Inf) =
  0, Sqrt(-1) = NaN, Log(0) = -Inf); HardSwish(-Inf) = -Inf * 0 = NaN.
  Sign, Floor, Ceil, Round keep +-Inf and NaN (shardc does not import them).
- Max / Min (variadic): NaN in either operand gives NaN (shardc: the
  NaN-propagating maximum / minimum behind Relu, Clip and the reductions;
  the ops themselves are not imported).
- Clip: NaN stays NaN; a missing bound is the type's lowest / largest
  finite value, so Clip(+Inf, min=0) = 3.4028235e+38 (ONNX's default).
- Equal, Less, Greater (and Not of them): IEEE, false against NaN.
- Softmax / LogSoftmax: a row with NaN or +Inf is all NaN, a row of -Inf
  only is NaN; -Inf entries give 0 (-Inf). LayerNormalization: a row with
  any NaN or Inf is all NaN.
- ReduceSum / ReduceMean / AveragePool / GlobalAveragePool: IEEE sums.
- Fused epilogues: oneDNN's eltwise_relu post-op maps NaN to 0 (JIT) or
  -Inf to NaN (reference); shardc applies ReLU after the primitive.

Where ORT 1.31 is inconsistent (its answer depends on where the NaN sits)
the reference is numpy's / PyTorch's (NaN propagates; the first NaN is the
maximum), which is what shardc does:

- ReduceMax: NaN propagates only when it is the first element of the
  reduced run ([nan, 1] -> nan but [1, nan] -> 1);
- ArgMax: likewise, NaN wins only in the first position;
- MaxPool: NaN wins only in the last position of the window;
- TopK: NaN is neither ordered first nor last (shardc: NaN above every
  number, first with largest=1, last with largest=0, as torch.topk).
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
nan, inf = np.nan, np.inf


def vi(name, dims, t=F):
    return helper.make_tensor_value_info(name, t, dims)


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def node(op, ins, outs, **attrs):
    return helper.make_node(op, ins, outs if isinstance(outs, list) else [outs], **attrs)


def plant(rng, shape, specials, scale=1.0):
    """Finite normal values with `specials` ({flat index: value}) planted."""
    x = (rng.standard_normal(shape) * scale).astype(np.float32)
    flat = x.reshape(-1)
    for i, v in specials.items():
        flat[i] = v
    return x


def family_act(rng):
    """Activations and clips on x [4, 16]: every special in several lanes."""
    x = plant(rng, (4, 16), {0: nan, 1: inf, 2: -inf, 17: nan, 20: -inf,
                             33: inf, 47: nan, 50: 0.0, 63: -inf})
    x[3, 8:16] = [-0.0, 1e-30, -1e30, 1e30, 3.0, -3.0, 6.5, -6.5]
    nodes, outs = [], []

    def out(name, *n):
        nodes.extend(n)
        outs.append(vi(name, None))

    out("relu", node("Relu", ["x"], "relu"))
    out("leaky", node("LeakyRelu", ["x"], "leaky", alpha=0.1))
    out("sigmoid", node("Sigmoid", ["x"], "sigmoid"))
    out("tanh", node("Tanh", ["x"], "tanh"))
    out("hsig", node("HardSigmoid", ["x"], "hsig", alpha=0.2, beta=0.5))
    out("hswish", node("HardSwish", ["x"], "hswish"))
    out("abs", node("Abs", ["x"], "abs"))
    out("neg", node("Neg", ["x"], "neg"))
    out("sqrt", node("Sqrt", ["x"], "sqrt"))
    out("exp", node("Exp", ["x"], "exp"))
    out("log", node("Log", ["x"], "log"))
    out("erf", node("Erf", ["x"], "erf"))
    out("recip", node("Reciprocal", ["x"], "recip"))
    out("clip", node("Clip", ["x", "m1", "p1"], "clip"))
    out("relu6", node("Clip", ["x", "zero", "six"], "relu6"))
    out("clipmin", node("Clip", ["x", "zero"], "clipmin"))
    out("clipmax", node("Clip", ["x", "", "six"], "clipmax"))
    # GELU as torch exports it (erf form) -> graph.gelu when fused.
    out("gelu", node("Div", ["x", "sqrt2"], "g1"), node("Erf", ["g1"], "g2"),
        node("Add", ["g2", "one"], "g3"), node("Mul", ["x", "g3"], "g4"),
        node("Mul", ["g4", "half"], "gelu"))
    # SiLU: x * sigmoid(x) -> graph.silu when fused.
    out("silu", node("Sigmoid", ["x"], "s1"), node("Mul", ["x", "s1"], "silu"))
    # Relu -> Sigmoid -> Relu chains fuse into one kernel.
    out("chain", node("Relu", ["x"], "c1"), node("Mul", ["c1", "half"], "c2"),
        node("Relu", ["c2"], "chain"))
    inits = [init("m1", np.float32(-1)), init("p1", np.float32(1)),
             init("zero", np.float32(0)), init("six", np.float32(6)),
             init("sqrt2", np.float32(np.sqrt(2))), init("one", np.float32(1)),
             init("half", np.float32(0.5))]
    return nodes, [vi("x", [4, 16])], outs, inits, {"x": x}


def family_binary(rng):
    """Arithmetic and comparisons on x, y [4, 16], with specials in both
    (every pair of NaN, +Inf, -Inf, 0 and a number occurs)."""
    sp = [nan, inf, -inf, 0.0, 1.5]
    pairs = [(a, b) for a in sp for b in sp]
    x = plant(rng, (4, 16), {i: a for i, (a, _) in enumerate(pairs)})
    y = plant(rng, (4, 16), {i: b for i, (_, b) in enumerate(pairs)})
    nodes, outs = [], []
    for op in ["Add", "Sub", "Mul", "Div", "Pow"]:
        nodes.append(node(op, ["x", "y"], op.lower()))
        outs.append(vi(op.lower(), None))
    B = TensorProto.BOOL
    for op in ["Equal", "Less", "Greater"]:
        nodes.append(node(op, ["x", "y"], op.lower()))
        outs.append(vi(op.lower(), None, B))
    # LessOrEqual as exporters write it for opset < 12; IsNaN as x != x.
    nodes += [node("Greater", ["x", "y"], "gt"), node("Not", ["gt"], "le"),
              node("Equal", ["x", "x"], "eqself"), node("Not", ["eqself"], "isnan"),
              # max/min through Where, as PyTorch exports torch.where(x > y, ...)
              node("Greater", ["x", "y"], "gt2"), node("Where", ["gt2", "x", "y"], "wmax"),
              node("Less", ["x", "y"], "lt2"), node("Where", ["lt2", "x", "y"], "wmin")]
    outs += [vi("le", None, B), vi("isnan", None, B), vi("wmax", None), vi("wmin", None)]
    return nodes, [vi("x", [4, 16]), vi("y", [4, 16])], outs, [], {"x": x, "y": y}


def family_reduce(rng):
    """ReduceMax / ReduceMean / ReduceSum / ArgMax / TopK on x [3, 5, 8]."""
    x = plant(rng, (3, 5, 8), {})
    x[0, 0, 0] = nan      # first of its last-axis run and of its axis-1 run
    x[0, 1, 5] = nan      # in the middle of a run
    x[0, 2, 7] = nan      # last of a run
    x[1, 0, 3] = inf
    x[1, 1, 4] = -inf
    x[1, 2, :] = -inf     # a run of -inf only
    x[1, 3, 2] = inf
    x[1, 3, 6] = -inf     # +inf and -inf together: the sum is NaN
    x[2, 4, 1] = nan
    x[2, 4, 2] = inf
    nodes = [node("ReduceMax", ["x"], "max_last", axes=[2], keepdims=0),
             node("ReduceMax", ["x"], "max_mid", axes=[1], keepdims=1),
             node("ReduceMax", ["x"], "max_all", keepdims=0),
             node("ReduceMean", ["x"], "mean_last", axes=[2], keepdims=0),
             node("ReduceSum", ["x", "ax1"], "sum_mid", keepdims=0),
             node("ArgMax", ["x"], "argmax_last", axis=2, keepdims=0),
             node("ArgMax", ["x"], "argmax_mid", axis=1, keepdims=0),
             node("TopK", ["x", "k"], ["topv", "topi"], axis=-1)]
    I = TensorProto.INT64
    outs = [vi("max_last", None), vi("max_mid", None), vi("max_all", None),
            vi("mean_last", None), vi("sum_mid", None), vi("argmax_last", None, I),
            vi("argmax_mid", None, I), vi("topv", None), vi("topi", None, I)]
    inits = [init("ax1", np.array([1], np.int64)), init("k", np.array([3], np.int64))]
    return nodes, [vi("x", [3, 5, 8])], outs, inits, {"x": x}


def family_softmax(rng):
    """Softmax, LogSoftmax (last axis and axis 0) and LayerNormalization;
    rows with a NaN, a +Inf, a -Inf, only -Inf, +Inf and -Inf."""
    x = plant(rng, (6, 8), {})
    x[0, 3] = nan
    x[1, 5] = inf
    x[2, 0] = -inf
    x[3, :] = -inf
    x[4, 1] = inf
    x[4, 6] = -inf
    nodes = [node("Softmax", ["x"], "sm", axis=-1),
             node("LogSoftmax", ["x"], "lsm", axis=-1),
             node("Softmax", ["x"], "sm0", axis=0),
             node("LayerNormalization", ["x", "g", "b"], "ln", axis=-1)]
    outs = [vi("sm", None), vi("lsm", None), vi("sm0", None), vi("ln", None)]
    inits = [init("g", rng.standard_normal(8).astype(np.float32)),
             init("b", rng.standard_normal(8).astype(np.float32))]
    return nodes, [vi("x", [6, 8])], outs, inits, {"x": x}


def family_pool(rng):
    """MaxPool (2x2 stride 2, 3x3 stride 1 pad 1), AveragePool,
    GlobalAveragePool on x [1, 3, 8, 8] (NCHW pooling kernels), and the same
    after a 1x1 convolution (channels-last pooling between convolutions)."""
    x = plant(rng, (1, 3, 8, 8), {})
    x[0, 0, 0, 0] = nan  # first of a window
    x[0, 0, 2, 3] = nan  # last of a 2x2 window
    x[0, 0, 5, 4] = nan  # first column, second row of a window
    x[0, 1, 1, 1] = inf
    x[0, 1, 4, 4] = -inf
    x[0, 1, 6, 6:8] = -inf
    x[0, 1, 7, 6:8] = -inf  # a window of -inf only
    x[0, 2, 3, 3] = nan
    x[0, 2, 3, 2] = inf
    w = rng.standard_normal((4, 3, 1, 1)).astype(np.float32)
    w[:, 1] = np.abs(w[:, 1])  # +-inf in channel 1 keeps its sign
    nodes = [node("MaxPool", ["x"], "mp2", kernel_shape=[2, 2], strides=[2, 2]),
             node("MaxPool", ["x"], "mp3", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             node("AveragePool", ["x"], "ap2", kernel_shape=[2, 2], strides=[2, 2]),
             node("GlobalAveragePool", ["x"], "gap"),
             node("Conv", ["x", "w"], "c"),
             node("MaxPool", ["c"], "cmp", kernel_shape=[2, 2], strides=[2, 2]),
             node("Neg", ["cmp"], "cmpn")]
    outs = [vi(n, None) for n in ["mp2", "mp3", "ap2", "gap", "cmpn"]]
    return nodes, [vi("x", [1, 3, 8, 8])], outs, [init("w", w)], {"x": x}


def family_conv(rng):
    """Convolution epilogues (oneDNN post-ops when fused): Conv + Relu,
    Conv + residual Add + Relu, Conv + HardSwish, Conv + Clip(0, 6), on a
    small 1x1 convolution and a 16-channel 3x3 one (oneDNN picks different
    implementations, with different NaN behaviour in their post-ops). The
    weights are positive, so +-Inf keeps its sign; each convolution has its
    own weights (identical ones would be merged by CSE and not fused)."""
    nodes, outs, inits = [], [], []
    x = plant(rng, (1, 4, 6, 6), {})
    x[0, :, 0, 0] = nan
    x[0, :, 1, 2] = inf
    x[0, :, 2, 3] = -inf
    x[0, 0, 4, 4] = nan
    r = plant(rng, (1, 4, 6, 6), {})
    r[0, 1, 5, 5] = nan
    r[0, 2, 5, 0] = -inf
    r[0, 3, 3, 3] = inf
    X = plant(rng, (1, 16, 12, 12), {})
    X[0, :, 1, 1] = nan
    X[0, 3, 6, 2] = nan
    X[0, :, 4, 8] = inf
    X[0, :, 9, 9] = -inf
    X[0, :, 10, 3] = -inf
    R = plant(rng, (1, 16, 12, 12), {})
    R[0, 2, 0, 11] = nan
    R[0, 5, 7, 7] = -inf
    R[0, 6, 11, 0] = inf
    count = [0]

    def conv(src, c, k, act, residual=None):
        i = count[0]
        count[0] += 1
        w = (np.abs(rng.standard_normal((c, c, k, k))) + 0.1).astype(np.float32)
        b = rng.standard_normal(c).astype(np.float32)
        inits.extend([init("w%d" % i, w), init("b%d" % i, b)])
        pads = [k // 2] * 4
        nodes.append(node("Conv", [src, "w%d" % i, "b%d" % i], "c%d" % i, pads=pads))
        y = "c%d" % i
        if residual:
            nodes.append(node("Add", [y, residual], "c%dr" % i))
            y = "c%dr" % i
        if act == "relu6":
            nodes.append(node("Clip", [y, "zero", "six"], "a%d" % i))
        elif act:
            nodes.append(node(act, [y], "a%d" % i))
        else:
            return y
        return "a%d" % i

    for src, c, k, res in (("x", 4, 1, "r"), ("X", 16, 3, "R")):
        for act in ("Relu", "HardSwish", "relu6"):
            out = conv(src, c, k, act)
            outs.append(out)
        outs.append(conv(src, c, k, "Relu", res))
        # Conv -> Relu -> Conv -> Relu: a channels-last intermediate.
        outs.append(conv(conv(src, c, k, "Relu"), c, k, "Relu"))
    inits += [init("zero", np.float32(0)), init("six", np.float32(6))]
    ins = [vi("x", [1, 4, 6, 6]), vi("r", [1, 4, 6, 6]), vi("X", [1, 16, 12, 12]),
           vi("R", [1, 16, 12, 12])]
    return nodes, ins, [vi(o, None) for o in outs], inits, {"x": x, "r": r, "X": X, "R": R}


def family_linear(rng):
    """GEMM epilogues (graph.linear: oneDNN post-ops when fused): MatMul +
    bias + Relu, + GELU (erf and tanh forms), + residual, small [4, 8] x
    [8, 8] and larger [32, 64] x [64, 64]. A NaN in a row of x makes a NaN
    row; +-Inf keeps its sign (positive weights). Each MatMul has its own
    weights (CSE would merge identical ones, and a shared product is not
    fused)."""
    nodes, outs, inits = [], [], []
    x = plant(rng, (4, 8), {})
    x[0, 2] = nan
    x[1, 3] = inf
    x[2, 5] = -inf
    r = plant(rng, (4, 8), {26: nan, 27: -inf, 28: inf})
    X = plant(rng, (32, 64), {})
    X[0, 2] = nan
    X[5, 3] = inf
    X[9, 60] = -inf
    X[17, :] = -inf
    R = plant(rng, (32, 64), {300: nan, 301: -inf, 302: inf})
    inits += [init("sqrt2", np.float32(np.sqrt(2))), init("one", np.float32(1)),
              init("half", np.float32(0.5)), init("c044", np.float32(0.044715)),
              init("s2pi", np.float32(np.sqrt(2 / np.pi)))]
    count = [0]

    def linear(src, k, n, act, residual=None):
        i = count[0]
        count[0] += 1
        w = (np.abs(rng.standard_normal((k, n))) * 0.2 + 0.01).astype(np.float32)
        b = rng.standard_normal(n).astype(np.float32)
        inits.extend([init("w%d" % i, w), init("b%d" % i, b)])
        p = "l%d_" % i
        nodes.extend([node("MatMul", [src, "w%d" % i], p + "m"),
                      node("Add", [p + "m", "b%d" % i], p + "a")])
        y = p + "a"
        if act == "relu":
            nodes.append(node("Relu", [y], p + "relu"))
            y = p + "relu"
        elif act == "gelu":  # torch's erf form
            nodes.extend([node("Div", [y, "sqrt2"], p + "g1"), node("Erf", [p + "g1"], p + "g2"),
                          node("Add", [p + "g2", "one"], p + "g3"),
                          node("Mul", [y, p + "g3"], p + "g4"), node("Mul", [p + "g4", "half"], p + "gelu")])
            y = p + "gelu"
        elif act == "gelu_tanh":  # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
            nodes.extend([node("Mul", [y, y], p + "t1"), node("Mul", [p + "t1", y], p + "t2"),
                          node("Mul", [p + "t2", "c044"], p + "t3"), node("Add", [y, p + "t3"], p + "t4"),
                          node("Mul", [p + "t4", "s2pi"], p + "t5"), node("Tanh", [p + "t5"], p + "t6"),
                          node("Add", [p + "t6", "one"], p + "t7"), node("Mul", [y, p + "t7"], p + "t8"),
                          node("Mul", [p + "t8", "half"], p + "gelut")])
            y = p + "gelut"
        if residual:
            nodes.append(node("Add", [y, residual], p + "res"))
            y = p + "res"
        outs.append(y)

    for src, k, res in (("x", 8, "r"), ("X", 64, "R")):
        for act in ("relu", "gelu", "gelu_tanh"):
            linear(src, k, k, act)
        linear(src, k, k, None, res)
        linear(src, k, k, "relu", res)
    ins = [vi("x", [4, 8]), vi("r", [4, 8]), vi("X", [32, 64]), vi("R", [32, 64])]
    return nodes, ins, [vi(o, None) for o in outs], inits, {"x": x, "r": r, "X": X, "R": R}


def family_attention(rng):
    """Scaled dot-product attention (graph.attention when fused) with a
    run-time additive mask: NaN in a query row, +Inf in a value, keys
    masked by -Inf (a whole first key block for one row), a NaN mask entry."""
    B, H, S, T, D = 1, 2, 4, 80, 8
    q = plant(rng, (B, H, S, D), {}, 0.5)
    k = plant(rng, (B, H, T, D), {}, 0.5)
    v = plant(rng, (B, H, T, D), {})
    m = np.zeros((B, 1, S, T), np.float32)
    q[0, 0, 1, 3] = nan          # query row 1 of head 0: NaN
    v[0, 1, 5, 2] = inf          # value column 2 of head 1: +Inf
    m[0, 0, 2, :70] = -inf       # row 2: the first key block masked
    m[0, 0, 3, 10] = -inf
    m[0, 0, 0, 75] = nan         # row 0: NaN through the mask
    nodes = [node("Transpose", ["k"], "kt", perm=[0, 1, 3, 2]),
             node("MatMul", ["q", "kt"], "s"),
             node("Div", ["s", "scale"], "ss"),
             node("Add", ["ss", "m"], "sm"),
             node("Softmax", ["sm"], "p", axis=-1),
             node("MatMul", ["p", "v"], "y")]
    ins = [vi("q", [B, H, S, D]), vi("k", [B, H, T, D]), vi("v", [B, H, T, D]),
           vi("m", [B, 1, S, T])]
    return nodes, ins, [vi("y", None)], [init("scale", np.float32(np.sqrt(D)))], \
        {"q": q, "k": k, "v": v, "m": m}


FAMILIES = {
    "act": family_act,
    "binary": family_binary,
    "reduce": family_reduce,
    "softmax": family_softmax,
    "pool": family_pool,
    "conv": family_conv,
    "linear": family_linear,
    "attention": family_attention,
}


def reference(family, name, feeds, want):
    """numpy's answer where ORT is not IEEE-consistent (module docstring);
    None where ORT's answer is the reference."""
    x = feeds.get("x")
    if family == "reduce":
        if name == "max_last":
            return np.max(x, axis=2)
        if name == "max_mid":
            return np.max(x, axis=1, keepdims=True)
        if name == "max_all":
            return np.max(x)
        if name == "argmax_last":
            return np.argmax(x, axis=2)
        if name == "argmax_mid":
            return np.argmax(x, axis=1)
        if name in ("topv", "topi"):
            # NaN is the largest (as for ArgMax), ties by the lower index.
            key = np.where(np.isnan(x), np.inf, x)
            order = np.lexsort((np.broadcast_to(np.arange(x.shape[-1]), x.shape),
                                -key, ~np.isnan(x)), axis=-1)[..., :3]
            return order if name == "topi" else np.take_along_axis(x, order, -1)
    if family == "pool" and name in ("mp2", "mp3"):
        import torch
        t = torch.from_numpy(x)
        if name == "mp2":
            return torch.nn.functional.max_pool2d(t, 2, 2).numpy()
        return torch.nn.functional.max_pool2d(t, 3, 1, 1).numpy()
    if family == "pool" and name == "cmpn":
        import torch
        c = np.einsum("oc,nchw->nohw", feeds_w["w"][:, :, 0, 0], x)
        return -torch.nn.functional.max_pool2d(torch.from_numpy(c), 2, 2).numpy()
    return None


feeds_w = {}


def compare(got, want):
    """'' if equal under the rules of the module docstring, else why not."""
    if got.shape != want.shape:
        return "shape %s, want %s" % (list(got.shape), list(want.shape))
    if got.dtype != want.dtype:
        return "dtype %s, want %s" % (got.dtype, want.dtype)
    if not np.issubdtype(want.dtype, np.floating):
        bad = np.argwhere(got != want)
        return "" if not len(bad) else "differs at %s: %s, want %s" % (
            bad[0].tolist(), got[tuple(bad[0])], want[tuple(bad[0])])
    gn, wn = np.isnan(got), np.isnan(want)
    if (gn != wn).any():
        i = tuple(np.argwhere(gn != wn)[0])
        return "NaN differs at %s: %s, want %s" % (list(i), got[i], want[i])
    gi, wi = np.isinf(got), np.isinf(want)
    if (gi != wi).any() or (got[wi] != want[wi]).any():
        i = tuple(np.argwhere((gi != wi) | (wi & (got != want)))[0])
        return "Inf differs at %s: %s, want %s" % (list(i), got[i], want[i])
    fin = ~(wn | wi)
    g, w = got[fin].astype(np.float64), want[fin].astype(np.float64)
    err = np.abs(g - w) - (1e-5 + 1e-4 * np.abs(w))
    if (err > 0).any():
        j = int(np.argmax(err))
        i = tuple(np.argwhere(fin)[j])
        return "value differs at %s: %s, want %s" % (list(i), got[i], want[i])
    return ""


def write_emit_model(out):
    """relu_max.onnx: Relu, ReduceMax and Clip with a minimum only, whose
    emitted C++ and CUDA nan-inf.test checks for the NaN-propagating form."""
    nodes = [node("Relu", ["x"], "relu"),
             node("ReduceMax", ["x"], "rmax", axes=[1], keepdims=0),
             node("Clip", ["x", "zero"], "clip")]
    graph = helper.make_graph(nodes, "relu_max", [vi("x", [4, 16])],
                              [vi("relu", [4, 16]), vi("rmax", [4]), vi("clip", [4, 16])],
                              [init("zero", np.float32(0))])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, "relu_max.onnx"))


def main():
    out, shardc = sys.argv[1], sys.argv[2]
    names = sys.argv[3:] or list(FAMILIES)
    os.makedirs(out, exist_ok=True)
    write_emit_model(out)
    import onnxruntime as ort
    failed = False
    for fam in names:
        rng = np.random.default_rng(sum(map(ord, fam)))
        nodes, ins, outs, inits, feeds = FAMILIES[fam](rng)
        feeds_w.clear()
        feeds_w.update({i.name: numpy_helper.to_array(i) for i in inits})
        graph = helper.make_graph(nodes, fam, ins, outs, inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        path = os.path.join(out, fam + ".onnx")
        onnx.save(model, path)
        args = []
        for k, a in feeds.items():
            np.save(os.path.join(out, "%s.%s.npy" % (fam, k)), a)
            args += ["--input", "%s=%s" % (k, os.path.join(out, "%s.%s.npy" % (fam, k)))]
        sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        onames = [o.name for o in sess.get_outputs()]
        ort_out = dict(zip(onames, sess.run(onames, feeds)))
        for build, flags in (("unfused", ["--no-fusion"]), ("fused", [])):
            exe = os.path.join(out, "%s_%s" % (fam, build))
            subprocess.check_call([shardc, path, "-o", exe] + flags)
            odir = exe + ".out"
            subprocess.check_call([exe] + args + ["--output", odir])
            bad, notes = [], []
            for n in onames:
                want = ort_out[n]
                ref = reference(fam, n, feeds, want)
                if ref is not None:
                    ref = np.asarray(ref).astype(want.dtype).reshape(want.shape)
                    if compare(want, ref):
                        notes.append("  %s: ORT differs from IEEE/numpy (%s); numpy's is the reference"
                                     % (n, compare(want, ref)))
                    want = ref
                why = compare(np.load(os.path.join(odir, n + ".npy")), want)
                if why:
                    bad.append("  %s: %s" % (n, why))
            if bad:
                failed = True
                print("%s %s: %d of %d outputs differ" % (fam, build, len(bad), len(onames)))
                print("\n".join(bad))
            else:
                print("%s %s: %d outputs ok" % (fam, build, len(onames)))
            if build == "fused":
                print("\n".join(notes)) if notes else None
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
