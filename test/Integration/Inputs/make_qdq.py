"""A QDQ model of an fp32 ONNX model, as ONNX Runtime's quantize_static
writes one (QuantFormat.QDQ, MinMax, per-channel weights): every MatMul of
an activation by a float [K, N] initializer reads

    DequantizeLinear(QuantizeLinear(x, sa, za), sa, za)     uint8, per tensor
    DequantizeLinear(Wq, sw, 0, axis=1)                     int8, per column

and every Conv by float initializers the same activation,
its weight per output channel (axis 0) and its bias as int32 at the scale
sa * sw (DequantizeLinear(bq, sa * sw, 0, axis=0)).

  make_qdq.py MODEL.onnx OUT.onnx CALIBRATION_DIR [CALIBRATION_DIR ...]
  make_qdq.py --run MODEL.onnx OUTDIR NAME=FILE.npy ...
                  runs a model on ONNX Runtime, its outputs as OUTDIR/NAME.npy
  make_qdq.py --qoperator MODEL.onnx OUT.onnx CALIBRATION_DIR ...
                  quantize_static's QOperator form instead: QuantizeLinear of
                  the activation, QLinearMatMul or QLinearConv (its output
                  requantized to uint8 over the product's calibrated range;
                  a conv's bias int32 at sa * sw), DequantizeLinear
  make_qdq.py --qoperator --activation-matmuls MODEL.onnx OUT.onnx DIR ...
                  also every MatMul of two activations (a transformer's
                  attention products), as quantize_static does with its
                  default op types: both operands uint8 per tensor, a
                  QLinearMatMul requantizing to uint8, DequantizeLinear
  make_qdq.py --dql OUT.onnx     one DynamicQuantizeLinear of a [3, 4] input
  make_qdq.py --dynamic [--per-channel] MODEL.onnx OUT.onnx
                  the QOperator graph ONNX Runtime's quantize_dynamic writes
                  (quantize_dynamic below; --per-channel: its per_channel=True,
                  weights per output channel or column)

The activation ranges come from running ONNX Runtime on the calibration
samples (each folder holds NAME.npy per input), asymmetric uint8 over
[min(x, 0), max(x, 0)] as quantize_static's default (activation_type
QUInt8, MinMax); the weights are symmetric int8 per output column
(weight_type QInt8, per_channel=True). onnxruntime.quantization itself
cannot run here (it needs onnx >= 1.13; Debian has 1.12), so the graph is
written with onnx.helper.
"""
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper, numpy_helper


def run():
    model, outdir = sys.argv[2], sys.argv[3]
    feeds = {a.split("=", 1)[0]: np.load(a.split("=", 1)[1]) for a in sys.argv[4:]}
    sess = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    os.makedirs(outdir, exist_ok=True)
    for name, value in zip(names, sess.run(names, feeds)):
        np.save(os.path.join(outdir, name + ".npy"), value)


def drop_unused_initializers(g):
    """Removes the initializers no node of graph g reads."""
    used = {i for n in g.node for i in n.input}
    keep = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(keep)


def resolve_identities(g):
    """Identity of an initializer (torch's export shares weights so) is the
    initializer under the Identity's name, as ONNX Runtime's optimizer
    resolves it before quantizing. Returns the initializers by name."""
    inits = {t.name: t for t in g.initializer}
    for n in [n for n in g.node if n.op_type == "Identity" and n.input[0] in inits]:
        t = onnx.TensorProto()
        t.CopyFrom(inits[n.input[0]])
        t.name = n.output[0]
        g.initializer.append(t)
        inits[t.name] = t
        g.node.remove(n)
    return inits


def add_int8_weight(g, w, p, axis=None):
    """w as symmetric int8 per tensor, or per slice along `axis` (a Conv's
    output channels, 0; a MatMul's columns, 1): initializers P+"w" (int8),
    P+"ws" (its scale, shaped to broadcast over the product's output: [N]
    for a MatMul, [1, C, 1, ...] for a Conv) and P+"wz" (zero point 0: one
    per column for a MatMul, one for a Conv, whose ConvInteger kernel in
    ONNX Runtime refuses a zero point per channel), as quantize_dynamic
    writes a weight (per_channel False, or True)."""
    zero = np.array(0, np.int8)
    if axis is None:
        scale = np.array(max(float(np.abs(w).max()), 1e-12) / 127.0, np.float32)
        q = np.clip(np.rint(w / scale), -127, 127).astype(np.int8)
    else:
        if axis == 1:
            zero = np.zeros(w.shape[axis], np.int8)
        other = tuple(i for i in range(w.ndim) if i != axis)
        peak = np.maximum(np.abs(w).max(axis=other, keepdims=True), 1e-12)
        q = np.clip(np.rint(w / (peak / 127.0)), -127, 127).astype(np.int8)
        scale = (peak / 127.0).astype(np.float32).reshape(-1)
        if axis == 0:
            scale = scale.reshape((1, -1) + (1,) * (w.ndim - 2))
    g.initializer.extend([
        numpy_helper.from_array(q, p + "w"),
        numpy_helper.from_array(scale, p + "ws"),
        numpy_helper.from_array(zero, p + "wz")])


def preprocess(g):
    """ONNX Runtime's pre-processing before quantizing, in place: Constant
    nodes' tensors (Paddle's exports hold their weights so) become
    initializers and batch norms fold into the convolutions before them, as
    its optimizer does. Returns the initializers by name, Identity outputs
    included (resolve_identities)."""
    for n in [n for n in g.node if n.op_type == "Constant"
              and len(n.attribute) == 1 and n.attribute[0].name == "value"]:
        t = onnx.TensorProto()
        t.CopyFrom(n.attribute[0].t)
        t.name = n.output[0]
        g.initializer.append(t)
        g.node.remove(n)
    inits = {t.name: t for t in g.initializer}
    fold_batch_norms(g, inits)
    drop_unused_initializers(g)
    return resolve_identities(g)


def quantize_dynamic(src, dst, per_channel=False):
    """The graph of onnxruntime.quantization.quantize_dynamic(src, dst) with
    its defaults (weight_type QInt8, per_channel False): every MatMul of an
    activation A by a float [K, N] initializer B becomes
    DynamicQuantizeLinear(A) (uint8, per tensor, at run time), B symmetric
    int8 per tensor, MatMulInteger, Cast to float and Mul by the two
    scales, the form ONNX Runtime's optimizer fuses into
    DynamicQuantizeMatMul; every Conv by float initializers the same with
    ConvInteger, its bias added after the scales. Returns the numbers of
    MatMuls and of Convs quantized."""
    m = onnx.load(src)
    g = m.graph
    inits = preprocess(g)
    nodes = []
    count = convs = 0
    for n in g.node:
        b = inits.get(n.input[1]) if n.op_type in ("MatMul", "Conv") else None
        conv = n.op_type == "Conv"
        if (b is None or b.data_type != onnx.TensorProto.FLOAT
                or (len(b.dims) != 2 and not conv)
                or (conv and len(n.input) > 2 and n.input[2] not in inits)):
            nodes.append(n)
            continue
        w = numpy_helper.to_array(b)
        if conv:
            # ConvInteger, its int32 sums cast to float and scaled, then
            # the bias added (broadcast over the output's channels).
            p = "c%d_" % convs
            convs += 1
            add_int8_weight(g, w, p, 0 if per_channel else None)
            out = n.output[0]
            bias = len(n.input) > 2 and n.input[2]
            if bias:
                bv = numpy_helper.to_array(inits[n.input[2]])
                g.initializer.append(numpy_helper.from_array(
                    bv.reshape((1, -1) + (1,) * (w.ndim - 2)), p + "b"))
                out = p + "nobias"
            conv_node = helper.make_node("ConvInteger", [p + "a", p + "w", p + "az", p + "wz"],
                                         [p + "y32"])
            conv_node.attribute.extend(n.attribute)
            nodes += [
                helper.make_node("DynamicQuantizeLinear", [n.input[0]],
                                 [p + "a", p + "as", p + "az"]),
                conv_node,
                helper.make_node("Cast", [p + "y32"], [p + "yf"], to=onnx.TensorProto.FLOAT),
                helper.make_node("Mul", [p + "as", p + "ws"], [p + "s"]),
                helper.make_node("Mul", [p + "yf", p + "s"], [out])]
            if bias:
                nodes.append(helper.make_node("Add", [out, p + "b"], [n.output[0]]))
            continue
        p = "q%d_" % count
        count += 1
        add_int8_weight(g, w, p, 1 if per_channel else None)
        nodes += [
            helper.make_node("DynamicQuantizeLinear", [n.input[0]],
                             [p + "a", p + "as", p + "az"]),
            helper.make_node("MatMulInteger", [p + "a", p + "w", p + "az", p + "wz"],
                             [p + "y32"]),
            helper.make_node("Cast", [p + "y32"], [p + "yf"], to=onnx.TensorProto.FLOAT),
            helper.make_node("Mul", [p + "as", p + "ws"], [p + "s"]),
            helper.make_node("Mul", [p + "yf", p + "s"], [n.output[0]])]
    del g.node[:]
    g.node.extend(nodes)
    drop_unused_initializers(g)
    onnx.save(m, dst)
    return count, convs


def main():
    if sys.argv[1] == "--run":
        return run()
    if sys.argv[1] == "--dql":  # one DynamicQuantizeLinear of a [3, 4] input
        g = helper.make_graph(
            [helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "s", "z"])], "dql",
            [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [3, 4])],
            [helper.make_tensor_value_info("y", onnx.TensorProto.UINT8, [3, 4]),
             helper.make_tensor_value_info("s", onnx.TensorProto.FLOAT, []),
             helper.make_tensor_value_info("z", onnx.TensorProto.UINT8, [])])
        onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), sys.argv[2])
        return
    if sys.argv[1] == "--dynamic":
        per_channel = sys.argv[2] == "--per-channel"
        if per_channel:
            del sys.argv[2]
        matmuls, convs = quantize_dynamic(sys.argv[2], sys.argv[3], per_channel)
        print("%d MatMuls%s quantized" % (matmuls, " and %d Convs" % convs if convs else ""))
        return
    flags = {a for a in sys.argv[1:] if a in ("--qoperator", "--activation-matmuls")}
    args = [a for a in sys.argv[1:] if a not in flags]
    if "--activation-matmuls" in flags and "--qoperator" not in flags:
        sys.exit("make_qdq.py: --activation-matmuls writes QLinearMatMuls: it needs --qoperator")
    quantize_static(args[0], args[1], args[2:], "--qoperator" in flags,
                    "--activation-matmuls" in flags)


def to_opset13(m, dirs):
    """Upgrades m (opset 11 or 12) to opset 13 in place, which per-axis
    DequantizeLinear needs (quantize_static upgrades a model so too).
    ONNX's version converter needs every Softmax input's shape, which a
    model with dynamic reshapes does not give it, so the ops whose meaning
    changed are rewritten here: Squeeze's axes become an input, and a
    Softmax must be over the last axis (where opset 13's meaning is opset
    12's; the ranks come from running the model on the first sample).
    Anything else that changed stops the script."""
    g = m.graph
    changed = {"Unsqueeze", "Split", "ReduceSum", "LogSoftmax", "Hardmax"}
    bad = sorted({n.op_type for n in g.node if n.op_type in changed})
    if bad:
        sys.exit("make_qdq.py: cannot upgrade %s to opset 13" % ", ".join(bad))
    softmax = [n for n in g.node if n.op_type == "Softmax"]
    if softmax:
        probe = onnx.ModelProto()
        probe.CopyFrom(m)
        for n in softmax:
            probe.graph.output.append(
                helper.make_tensor_value_info(n.input[0], onnx.TensorProto.FLOAT, None))
        sess = ort.InferenceSession(probe.SerializeToString(), providers=["CPUExecutionProvider"])
        feeds = {f[:-4]: np.load(os.path.join(dirs[0], f))
                 for f in os.listdir(dirs[0]) if f.endswith(".npy")}
        values = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)))
        for n in softmax:
            axis = next((a.i for a in n.attribute if a.name == "axis"), 1)
            rank = values[n.input[0]].ndim
            if axis not in (-1, rank - 1):
                sys.exit("make_qdq.py: Softmax over axis %d of rank %d changes meaning "
                         "at opset 13" % (axis, rank))
    for i, n in enumerate(g.node):
        axes = [a for a in n.attribute if a.name == "axes"]
        if n.op_type == "Squeeze" and axes:
            name = "opset13_axes_%d" % i
            g.initializer.append(numpy_helper.from_array(np.array(axes[0].ints, np.int64), name))
            n.attribute.remove(axes[0])
            n.input.append(name)
    m.opset_import[0].version = 13


def fold_batch_norms(g, inits):
    """Folds each BatchNormalization that alone reads a Conv's output into
    the Conv's weight and bias (initializers), as ONNX Runtime's
    quantization pre-processing does before it quantizes."""
    readers = {}
    for n in g.node:
        for i in n.input:
            readers.setdefault(i, []).append(n)
    producer = {o: n for n in g.node for o in n.output}
    for bn in [n for n in g.node if n.op_type == "BatchNormalization"]:
        conv = producer.get(bn.input[0])
        if (conv is None or conv.op_type != "Conv" or len(readers[bn.input[0]]) != 1
                or conv.input[1] not in inits or len(bn.output) != 1
                or not all(i in inits for i in bn.input[1:5])
                or (len(conv.input) > 2 and conv.input[2] not in inits)):
            continue
        gamma, beta, mean, var = (numpy_helper.to_array(inits[i]).astype(np.float64)
                                  for i in bn.input[1:5])
        eps = next((a.f for a in bn.attribute if a.name == "epsilon"), 1e-5)
        k = gamma / np.sqrt(var + eps)
        w = numpy_helper.to_array(inits[conv.input[1]]).astype(np.float64)
        b = (numpy_helper.to_array(inits[conv.input[2]]).astype(np.float64)
             if len(conv.input) > 2 and conv.input[2] else np.zeros_like(k))
        wname, bname = conv.input[1] + "_bn", bn.output[0] + "_bias"
        for name, value in ((wname, w * k.reshape((-1,) + (1,) * (w.ndim - 1))),
                            (bname, (b - mean) * k + beta)):
            t = numpy_helper.from_array(value.astype(np.float32), name)
            g.initializer.append(t)
            inits[name] = t
        del conv.input[1:]
        conv.input.extend([wname, bname])
        conv.output[0] = bn.output[0]
        g.node.remove(bn)


def quantize_static(src, dst, dirs, qoperator=False, activation_matmuls=False):
    """quantize_static's graph (QDQ, or QOperator with `qoperator`; the
    products of two activations too with `activation_matmuls`, QOperator
    only), calibrated on the sample folders `dirs`; see the file comment."""
    m = onnx.load(src)
    if m.opset_import[0].version < 13 and not qoperator:
        to_opset13(m, dirs)
    g = m.graph
    inits = preprocess(g)
    targets = [n for n in g.node if n.op_type == "MatMul" and n.input[1] in inits
               and len(inits[n.input[1]].dims) == 2
               and inits[n.input[1]].data_type == onnx.TensorProto.FLOAT]
    matmuls = len(targets)
    # Products of two activations (QLinearMatMul by a run-time operand).
    pairs = [n for n in g.node if activation_matmuls and n.op_type == "MatMul"
             and n.input[0] not in inits and n.input[1] not in inits]
    # Convolutions (QDQ and QLinearConv): weights per output channel.
    targets += [n for n in g.node if n.op_type == "Conv" and n.input[1] in inits
                    and inits[n.input[1]].data_type == onnx.TensorProto.FLOAT
                    and (len(n.input) < 3 or n.input[2] in inits)]
    # The activations' ranges: each MatMul's input as an extra output.
    probe = onnx.ModelProto()
    probe.CopyFrom(m)
    have = {o.name for o in probe.graph.output}
    acts = sorted({n.input[0] for n in targets}
                  | {i for n in pairs for i in n.input[:2]})
    if qoperator:  # the products' ranges too: QLinearMatMul requantizes them
        acts = sorted(set(acts) | {n.output[0] for n in targets + pairs})
    for a in acts:
        if a not in have:
            probe.graph.output.append(helper.make_tensor_value_info(a, onnx.TensorProto.FLOAT, None))
    sess = ort.InferenceSession(probe.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    lo = {a: 0.0 for a in acts}
    hi = {a: 0.0 for a in acts}
    for d in dirs:
        feeds = {f[:-4]: np.load(os.path.join(d, f)) for f in os.listdir(d) if f.endswith(".npy")}
        for name, value in zip(names, sess.run(None, feeds)):
            if name in lo:
                lo[name] = min(lo[name], float(value.min()))
                hi[name] = max(hi[name], float(value.max()))
    nodes = []
    done = {}
    act_scale = {}

    def uint8_params(v, p):  # asymmetric uint8 over [min(v, 0), max(v, 0)]
        scale = max(hi[v] - lo[v], 1e-12) / 255.0
        act_scale[v] = np.float32(scale)
        zp = int(np.clip(round(-lo[v] / scale), 0, 255))
        g.initializer.extend([numpy_helper.from_array(np.array(scale, np.float32), p + "s"),
                              numpy_helper.from_array(np.array(zp, np.uint8), p + "z")])
        return p + "s", p + "z"

    def quantize(x):  # one QuantizeLinear (and DequantizeLinear) per activation
        if x not in done:
            p = "qdq_%d_" % len(done)
            sx, zx = uint8_params(x, p)
            nodes.append(helper.make_node("QuantizeLinear", [x, sx, zx], [p + "q"]))
            if not qoperator:
                nodes.append(helper.make_node("DequantizeLinear", [p + "q", sx, zx], [p + "dq"]))
            done[x] = (p + "q", sx, zx) if qoperator else p + "dq"
    for n in g.node:
        if n in pairs:  # QLinearMatMul of two activations
            a, b = n.input[0], n.input[1]
            quantize(a)
            quantize(b)
            p = "qmm_%s_" % (n.name or n.output[0]).replace("/", "_")
            sy, zy = uint8_params(n.output[0], p + "y")
            nodes += [helper.make_node("QLinearMatMul", list(done[a]) + list(done[b]) + [sy, zy],
                                       [p + "yq"], name=n.name),
                      helper.make_node("DequantizeLinear", [p + "yq", sy, zy], list(n.output))]
            continue
        if n not in targets:
            nodes.append(n)
            continue
        x, wname = n.input[0], n.input[1]
        quantize(x)
        w = numpy_helper.to_array(inits[wname])
        conv = n.op_type == "Conv"
        if conv:  # per output channel (axis 0)
            ws = np.maximum(np.abs(w).reshape(w.shape[0], -1).max(1), 1e-12) / 127.0
            wq = np.clip(np.rint(w / ws.reshape((-1,) + (1,) * (w.ndim - 1))),
                         -127, 127).astype(np.int8)
        else:
            ws = np.maximum(np.abs(w).max(0), 1e-12) / 127.0
            wq = np.clip(np.rint(w / ws), -127, 127).astype(np.int8)
        p = "qdqw_%s_" % (n.name or n.output[0]).replace("/", "_")
        g.initializer.extend([numpy_helper.from_array(wq, p + "q"),
                              numpy_helper.from_array(ws.astype(np.float32), p + "s"),
                              numpy_helper.from_array(np.zeros(ws.shape, np.int8), p + "z")])
        if qoperator and conv:  # QLinearConv, int32 bias at sa * sw, output dequantized
            sy, zy = uint8_params(n.output[0], p + "y")
            inputs = list(done[x]) + [p + "q", p + "s", p + "z", sy, zy]
            if len(n.input) > 2 and n.input[2]:
                bs = (act_scale[x] * ws).astype(np.float32)
                bq = np.clip(np.rint(numpy_helper.to_array(inits[n.input[2]]) / bs),
                             -2**31, 2**31 - 1).astype(np.int32)
                g.initializer.append(numpy_helper.from_array(bq, p + "bq"))
                inputs.append(p + "bq")
            nodes += [helper.make_node("QLinearConv", inputs, [p + "yq"], name=n.name),
                      helper.make_node("DequantizeLinear", [p + "yq", sy, zy], list(n.output))]
            nodes[-2].attribute.extend(n.attribute)
            continue
        if qoperator:  # QLinearMatMul, its output dequantized for the float ops after it
            sy, zy = uint8_params(n.output[0], p + "y")
            nodes += [helper.make_node("QLinearMatMul", list(done[x]) + [p + "q", p + "s", p + "z",
                                                                         sy, zy],
                                       [p + "yq"], name=n.name),
                      helper.make_node("DequantizeLinear", [p + "yq", sy, zy], list(n.output))]
            continue
        if conv:  # the bias as int32 at the product's scale, as quantize_static writes it
            inputs = [done[x], p + "w"]
            if len(n.input) > 2 and n.input[2]:
                bs = (act_scale[x] * ws).astype(np.float32)
                bq = np.clip(np.rint(numpy_helper.to_array(inits[n.input[2]]) / bs),
                             -2**31, 2**31 - 1).astype(np.int32)
                g.initializer.extend([numpy_helper.from_array(bq, p + "bq"),
                                      numpy_helper.from_array(bs, p + "bs"),
                                      numpy_helper.from_array(np.zeros(bs.shape, np.int32),
                                                              p + "bz")])
                nodes.append(helper.make_node("DequantizeLinear", [p + "bq", p + "bs", p + "bz"],
                                              [p + "b"], axis=0))
                inputs.append(p + "b")
            nodes += [helper.make_node("DequantizeLinear", [p + "q", p + "s", p + "z"],
                                       [p + "w"], axis=0),
                      helper.make_node("Conv", inputs, list(n.output), name=n.name)]
            nodes[-1].attribute.extend(n.attribute)
            continue
        nodes += [helper.make_node("DequantizeLinear", [p + "q", p + "s", p + "z"], [p + "w"], axis=1),
                  helper.make_node("MatMul", [done[x], p + "w"], list(n.output), name=n.name)]
    del g.node[:]
    g.node.extend(nodes)
    drop_unused_initializers(g)
    if m.opset_import[0].version < 13:
        sys.exit("make_qdq.py: per-axis DequantizeLinear needs opset 13")
    onnx.save(m, dst)
    convs = len(targets) - matmuls
    print("%d MatMuls%s%s quantized, %d activations"
          % (matmuls, " and %d Convs" % convs if convs else "",
             " and %d products of activations" % len(pairs) if pairs else "", len(done)))


if __name__ == "__main__":
    main()
