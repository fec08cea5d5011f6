#!/usr/bin/env python3
"""Makes shape-only ONNX files of four large decoders, for the planner.

  bench/planner/make_shape_only_models.py OUT_DIR [--models gpt3-175b,...]
  bench/planner/make_shape_only_models.py OUT_DIR --tiny-with-weights [--layers N]

writes OUT_DIR/<model>.onnx for

  gpt3-175b     96 layers, d 12288, 96 heads, ff 4d, vocab 50257, context 2048
                (the GPT2 class of test/Models/Inputs/export_models.py:
                pre-LN, GELU, learned positions, LM head tied to the embedding)
  llama2-70b    80 layers, d 8192, 64 heads, 8 kv heads, ff 28672, vocab 32000
  llama3-8b     32 layers, d 4096, 32 heads, 8 kv heads, ff 14336, vocab 128256,
                rope theta 500000
  mixtral-8x7b  32 layers, d 4096, 32 heads, 8 kv heads, ff 14336, 8 experts,
                top-2, vocab 32000

Shape-only: every float initializer is declared as external data
(data_location EXTERNAL; location "<model>.weights", offset and length as
if that file held the tensors back to back in initializer order), but the
file is not written. Integer and boolean initializers and Constant nodes
stay inline, so the shape arithmetic of the graph can be folded. The files
are 1.4-38 MB (Mixtral's inline rotary cos and sin caches, 2 x 16 MB) and
take 4-16 s each; `shardc <model>.onnx --emit=plan --devices=N
--cluster=SPEC --input-shape ids=BxS` plans them without the weights
(hundreds of GB that this machine could not hold).

How: real exports at tiny width and 3 layers, rewritten to the real widths,
their middle layer repeated up to the real layer count.
1. Each architecture is exported by torch 1.13 (opset 17, batch and
   sequence dynamic as in export_models.py) with its real head count,
   kv-head count, expert count, top-k and context, but with head_dim, the
   MLP width and the vocabulary tiny; hidden = heads * head_dim as in all
   four. Llama and Mixtral come from Hugging Face transformers 4.46 built
   from a config (nothing is downloaded; attn_implementation="eager",
   use_cache=False), wrapped as export_moe.py does. Every parameter gets
   noise first so that the exporter's merging of equal initializers (the
   all-ones norm weights) does not share them between layers; the Identity
   nodes through which later layers read a merged initializer (GPT2's
   causal mask) are bypassed.
2. The 3-layer export is made twice, with two sets of tiny widths (TINY
   below). The two graphs must be identical but for the integers that
   depend on the widths: initializer and Constant dims, integer initializer
   and Constant data (Reshape, Expand, Split, Slice, ConstantOfShape
   operands), integer attributes, the dims of graph inputs and outputs.
   Each integer that differs between the two must be c * w for one width w
   (the same c in both; the two sets give every width a different ratio, so
   w is unique); it becomes c * w_real in the first export. The one kind of
   float constant whose size depends on a width, the rotary tables
   (Llama's inverse frequencies, Mixtral's cos and sin caches), is
   recomputed at the real head_dim after checking that it equals the table
   at the tiny one. Anything else -- a structural difference, an integer not
   proportional to one width, a non-integral real value, another constant
   whose size depends on the widths -- stops the script with the place it
   was found. Comparing positions rather than values means a tiny width
   that equals some other integer of the graph cannot be mistaken for it;
   the widths are still kept apart from those integers (see TINY).
   Other float constants (1/sqrt(head_dim)) keep their tiny values: only
   shapes matter here.
3. Layers: torch 1.13's exporter takes time quadratic in the nodes (34 s
   for Llama-3-8B's 32 layers, minutes for 80), so layer 1 of the 3-layer
   graph is repeated instead: each copy reads from the copy before it what
   layer 2 reads from layer 1, shares what all layers share (layer 0 hoists
   some shape arithmetic that the others reuse), and has its own copies of
   the initializers that only layer 1 uses; what follows the layers reads
   the last copy. Every run checks this against the exporter: 5 layers
   made from 3 must equal a direct 5-layer export node for node, up to
   value names and initializer order (integer constants by value, weights
   by shape).
4. Checks on the result: every value of the rewritten 3-layer graph has
   the shape that scaling the two tiny exports' inferred shapes predicts
   (ONNX shape inference, strict, ids fixed to 1x16); onnx.checker (beside
   an empty stand-in for the weights file, which it only looks for); logits
   infer as [1, 16, vocab]; the float initializers sum to the parameter
   count worked from the architecture's formula, within 1% (the export adds
   GPT's transposed copy of its tied LM head: 175.2e9 against 174.6e9).

--tiny-with-weights writes the tiny export itself (first widths, layers
repeated the same way, fp32 weights inline; a copy repeats layer 1's
weights) as OUT_DIR/<model>.tiny.onnx, so that what shardc recognizes can
be checked with weights present, e.g.
  build/tools/shardc/shardc OUT/llama3-8b.tiny.onnx --input-shape ids=1x16 \\
      --emit=graph | grep -c graph.attention            # 32, the layers
--layers N (only with --tiny-with-weights) makes N layers instead; GPT-3's
96 tiny layers pass protobuf's 2 GB (36 MB a layer), so it needs N <= 50.

Run with the venv of test/Models/Inputs/export_moe.py (transformers 4.46
over Debian's torch 1.13, onnx and numpy, which also runs the GPT export):
  python3 -m venv --system-site-packages /tmp/moevenv
  /tmp/moevenv/bin/pip install transformers==4.46.0
  /tmp/moevenv/bin/python bench/planner/make_shape_only_models.py OUT_DIR
gpt3-175b alone needs only Debian's python3.
"""
import argparse
import io
import os
import re
import sys
import tempfile
import time
from fractions import Fraction

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

MODELS = {
    "gpt3-175b": dict(family="gpt", layers=96, heads=96, head_dim=128, vocab=50257, ctx=2048),
    "llama2-70b": dict(family="llama", layers=80, heads=64, kv_heads=8, head_dim=128, ff=28672,
                       vocab=32000, ctx=4096, rope_theta=10000.0),
    "llama3-8b": dict(family="llama", layers=32, heads=32, kv_heads=8, head_dim=128, ff=14336,
                      vocab=128256, ctx=8192, rope_theta=500000.0),
    "mixtral-8x7b": dict(family="mixtral", layers=32, heads=32, kv_heads=8, head_dim=128, ff=14336,
                         experts=8, top_k=2, vocab=32000, ctx=32768, rope_theta=1e6),
}

# The two sets of tiny widths per family. They are 9 and up, apart from the
# integers the graphs hold (axes, head, kv-head and expert counts, top-k,
# heads per kv head), since the tracer records a Python int that equals a
# width differently (Mixtral at a head_dim of 4, its 32 / 8 heads per kv
# head, exports a Constant elsewhere). The ratios first / second differ
# (9/11, 13/17; 18/22, 13/17, 19/23) so that a scaled integer names its
# width. GPT's MLP is 4 d by construction, so it has no ff of its own;
# Llama's head_dim is even for the rotary halves.
TINY = {
    "gpt": ({"head_dim": 9, "vocab": 13}, {"head_dim": 11, "vocab": 17}),
    "llama": ({"head_dim": 18, "ff": 13, "vocab": 19}, {"head_dim": 22, "ff": 17, "vocab": 23}),
}
TINY["mixtral"] = TINY["llama"]

# Layers of the tiny exports; layer 1 is repeated up to the real count.
BASE = 3

FLOAT_TYPES = {TensorProto.FLOAT: 4, TensorProto.FLOAT16: 2, TensorProto.BFLOAT16: 2,
               TensorProto.DOUBLE: 8}
INT_TYPES = {TensorProto.INT64, TensorProto.INT32, TensorProto.INT16, TensorProto.INT8,
             TensorProto.UINT64, TensorProto.UINT32, TensorProto.UINT16, TensorProto.UINT8}


def fail(msg):
    raise SystemExit("make_shape_only_models: " + msg)


# --- 1. tiny exports ---------------------------------------------------------

def build_module(spec, widths, layers):
    import torch
    sys.path.insert(0, os.path.join(ROOT, "test", "Models", "Inputs"))
    if spec["family"] == "gpt":
        from export_models import GPT2
        return GPT2(vocab=widths["vocab"], d=spec["heads"] * widths["head_dim"],
                    heads=spec["heads"], layers=layers, ctx=spec["ctx"])
    import transformers
    common = dict(vocab_size=widths["vocab"], hidden_size=spec["heads"] * widths["head_dim"],
                  intermediate_size=widths["ff"], num_hidden_layers=layers,
                  num_attention_heads=spec["heads"], num_key_value_heads=spec["kv_heads"],
                  max_position_embeddings=spec["ctx"], rope_theta=spec["rope_theta"],
                  use_cache=False, attn_implementation="eager")
    if spec["family"] == "llama":
        model = transformers.LlamaForCausalLM(transformers.LlamaConfig(**common))
    else:
        model = transformers.MixtralForCausalLM(transformers.MixtralConfig(
            num_local_experts=spec["experts"], num_experts_per_tok=spec["top_k"], **common))
    from export_moe import Logits  # the logits of a Hugging Face causal LM
    return Logits(model)


def export_tiny(spec, widths, layers):
    import torch
    import warnings
    torch.manual_seed(0)
    model = build_module(spec, widths, layers).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.01)
    ids = torch.randint(0, widths["vocab"], (1, 16))
    buf = io.BytesIO()
    dynamic = {"ids": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}}
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tracer's warnings on Python branches
        torch.onnx.export(model, (ids,), buf, input_names=["ids"], output_names=["logits"],
                          dynamic_axes=dynamic, opset_version=17)
    return drop_initializer_aliases(onnx.load_from_string(buf.getvalue()))


def drop_initializer_aliases(model):
    """Reads initializers directly where the exporter reads them through an
    Identity. The exporter merges equal initializers (GPT2's causal mask, one
    per layer) into one and gives each later layer an Identity of it, all at
    the start of the graph, where they would not repeat with their layers."""
    g = model.graph
    inits = {t.name for t in g.initializer}
    outputs = {o.name for o in g.output}
    alias = {n.output[0]: n.input[0] for n in g.node
             if n.op_type == "Identity" and n.input[0] in inits and n.output[0] not in outputs}
    keep = [n for n in g.node if not (n.op_type == "Identity" and n.output[0] in alias)]
    for n in keep:
        for i, x in enumerate(n.input):
            if x in alias:
                n.input[i] = alias[x]
    del g.node[:]
    g.node.extend(keep)
    return model


# --- 2. rewrite to the real widths --------------------------------------------

def int_slots(model):
    """Yields (key, int64 vector, setter) for every integer of the graph that
    could carry a width: dims of graph values, initializers and Constant
    tensors, integer tensor data and integer attributes."""
    g = model.graph
    if any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS)
           for n in g.node for a in n.attribute):
        fail("the export has subgraphs (If/Loop); this script does not walk them")

    def dims_slot(key, owner):
        def set_dims(v, owner=owner):
            del owner.dims[:]
            owner.dims.extend(int(x) for x in v)
        return (key, np.array(owner.dims, dtype=np.int64), set_dims)

    def data_slot(key, t):
        def set_data(v, t=t):
            arr = numpy_helper.to_array(t)
            new = numpy_helper.from_array(v.astype(arr.dtype).reshape(arr.shape), t.name)
            t.CopyFrom(new)
        return (key, numpy_helper.to_array(t).astype(np.int64).ravel(), set_data)

    # Keys are positions: the exporter numbers the names it makes
    # (onnx::MatMul_661) on from its earlier exports in the process.
    for kind, infos in (("input", g.input), ("output", g.output), ("value_info", g.value_info)):
        for j, vi in enumerate(infos):
            for i, d in enumerate(vi.type.tensor_type.shape.dim):
                if d.HasField("dim_value"):
                    def set_dim(v, d=d):
                        d.dim_value = int(v[0])
                    yield ((kind, j, i), np.array([d.dim_value], dtype=np.int64), set_dim)
    for j, t in enumerate(g.initializer):
        yield dims_slot(("init_dims", j), t)
        if t.data_type in INT_TYPES:
            yield data_slot(("init_data", j), t)
    for i, n in enumerate(g.node):
        for a in n.attribute:
            key = ("node", i, n.op_type, a.name)
            if a.type == onnx.AttributeProto.INT:
                def set_int(v, a=a):
                    a.i = int(v[0])
                yield (key, np.array([a.i], dtype=np.int64), set_int)
            elif a.type == onnx.AttributeProto.INTS:
                def set_ints(v, a=a):
                    del a.ints[:]
                    a.ints.extend(int(x) for x in v)
                yield (key, np.array(a.ints, dtype=np.int64), set_ints)
            elif a.type == onnx.AttributeProto.TENSOR:
                yield dims_slot(key + ("dims",), a.t)
                if a.t.data_type in INT_TYPES:
                    yield data_slot(key + ("data",), a.t)


def same_structure(ga, gb):
    """Whether the two graphs are the same up to the names of their values."""
    if ([(n.op_type, len(n.input), len(n.output)) for n in ga.node]
            != [(n.op_type, len(n.input), len(n.output)) for n in gb.node]):
        return False
    if ([t.data_type for t in ga.initializer] != [t.data_type for t in gb.initializer]
            or len(ga.input) != len(gb.input) or len(ga.output) != len(gb.output)):
        return False
    names = {"": ""}
    for xa, xb in zip(list(ga.input) + list(ga.initializer), list(gb.input) + list(gb.initializer)):
        names[xa.name] = xb.name
    for na, nb in zip(ga.node, gb.node):
        if [names.get(x) for x in na.input] != list(nb.input):
            return False
        names.update(zip(na.output, nb.output))
    return [names.get(o.name) for o in ga.output] == [o.name for o in gb.output]


def scale(key, a, b, wa, wb, real):
    """The real values of slot `key` from its values a, b in the two exports."""
    out = a.copy()
    for i in np.nonzero(a != b)[0]:
        va, vb = int(a[i]), int(b[i])
        hits = [w for w in wa if va * wb[w] == vb * wa[w]]
        if len(hits) != 1:
            fail("%s[%d] is %d and %d in the two tiny exports: not c * one width of %s and %s"
                 % (key, i, va, vb, wa, wb))
        c = Fraction(va, wa[hits[0]])
        v = c * real[hits[0]]
        if v.denominator != 1:
            fail("%s[%d] = %s * %s is not an integer at the real width" % (key, i, c, hits[0]))
        out[i] = int(v)
    return out


def rotary_tables(head_dim, theta, ctx):
    """The rotary embeddings' tables as transformers 4.46 computes them: the
    inverse frequencies (Llama reads them from a Constant) and the cos and sin
    of every position (Mixtral's caches, Constants of ctx x head_dim)."""
    import torch
    inv = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.int64).float() / head_dim))
    freqs = torch.outer(torch.arange(ctx, dtype=torch.int64).type_as(inv), inv)
    emb = torch.cat((freqs, freqs), dim=-1)
    return [inv.numpy(), emb.cos().numpy(), emb.sin().numpy()]


def rewrite(model_a, model_b, wa, wb, real, spec):
    """Sets every width-dependent integer of model_a to its real value. The
    float constants whose size depends on a width, the rotary tables, are
    recomputed at the real head_dim."""
    if not same_structure(model_a.graph, model_b.graph):
        fail("the two tiny exports are different graphs")
    slots_b = {k: v for k, v, _ in int_slots(model_b)}
    int_inits = {("init_dims", j) for j, t in enumerate(model_a.graph.initializer)
                 if t.data_type not in FLOAT_TYPES}
    tables = []
    if "rope_theta" in spec:
        tables = rotary_tables(wa["head_dim"], spec["rope_theta"], spec["ctx"])
    real_tables = None
    seen, scaled = set(), 0
    for key, a, setter in list(int_slots(model_a)):
        seen.add(key)
        b = slots_b.get(key)
        if b is None or a.shape != b.shape:
            fail("%s differs in size between the two tiny exports" % (key,))
        if (a == b).all():
            continue
        dims = scale(key, a, b, wa, wb, real)
        if key[0] == "node" and key[-1] == "dims":
            t = next(x.t for x in model_a.graph.node[key[1]].attribute if x.name == key[3])
            tiny = numpy_helper.to_array(t).ravel()
            found = [i for i, table in enumerate(tables) if table.size == tiny.size
                     and np.allclose(table.ravel(), tiny, rtol=1e-6, atol=1e-6)]
            if t.data_type != TensorProto.FLOAT or len(found) != 1:
                fail("%s: a constant whose size depends on the widths and that is not a rotary "
                     "table; its data cannot be scaled" % (key,))
            if real_tables is None:
                real_tables = rotary_tables(real["head_dim"], spec["rope_theta"], spec["ctx"])
            t.CopyFrom(numpy_helper.from_array(real_tables[found[0]].reshape(dims), t.name))
        elif key in int_inits:
            fail("%s: an integer initializer whose size depends on the widths" % (key,))
        else:
            setter(dims)
        scaled += int((a != b).sum())
    if seen != set(slots_b):
        fail("the two tiny exports differ in their integer attributes")
    return scaled


def externalize(model, location):
    """Declares every float initializer as external data in `location`,
    back to back in initializer order, and drops its bytes."""
    offset = params = 0
    for t in model.graph.initializer:
        if t.data_type not in FLOAT_TYPES:
            continue
        n = int(np.prod(t.dims, dtype=np.int64))
        length = n * FLOAT_TYPES[t.data_type]
        for field in ("raw_data", "float_data", "double_data", "int32_data"):
            t.ClearField(field)
        t.data_location = TensorProto.EXTERNAL
        del t.external_data[:]
        for k, v in (("location", location), ("offset", str(offset)), ("length", str(length))):
            e = t.external_data.add()
            e.key, e.value = k, v
        offset += length
        params += n
    return params, offset


# --- 3. layers by replication --------------------------------------------------

LAYER = re.compile(r"(layers|blocks)\.(\d+)([/.])")


def layer_of(name):
    m = LAYER.search(name)
    return int(m.group(2)) if m else None


def block_layout(m3, m5):
    """(p, q, k): in m3, layer 0 is nodes p .. q and layer i >= 1 is
    q + (i - 1) k .. q + i k. (Layer 0 may differ from the others: the
    exporter hoists into it some shape arithmetic the later layers reuse.)"""
    k, odd = divmod(len(m5.graph.node) - len(m3.graph.node), 2)
    if odd or k <= 0:
        fail("the exports at %d and %d layers do not differ by whole layers" % (BASE, BASE + 2))
    nodes = list(m3.graph.node)
    p = next((i for i, n in enumerate(nodes) if layer_of(n.name) == 0), None)
    q = next((i for i, n in enumerate(nodes) if layer_of(n.name) == 1), None)
    if p is None or q is None or q + (BASE - 1) * k > len(nodes):
        fail("no layers 0 and 1 in the node names")
    for i in range(1, BASE):
        for n in nodes[q + (i - 1) * k:q + i * k]:
            if layer_of(n.name) not in (None, i):
                fail("node %s lies in layer %d's place" % (n.name, i))
    return p, q, k


def replicate(model, layout, layers):
    """A copy of `model` (BASE layers laid out as block_layout says) with
    `layers` layers: layer 1 is repeated, each copy reading from the copy
    before it what layer 2 reads from layer 1, with its own copies of the
    initializers that only layer 1 uses (its weights); the part after the
    layers reads from the last copy what it read from layer BASE - 1."""
    p, q, k = layout
    if layers < 2:
        fail("replication needs at least 2 layers")
    g = model.graph
    nodes = list(g.node)
    prefix, suffix = nodes[:p], nodes[q + (BASE - 1) * k:]
    blocks = [nodes[p:q]] + [nodes[q + (i - 1) * k:q + i * k] for i in range(1, BASE)]
    made = {}  # value -> (layer, node offset, output index)
    for i, block in enumerate(blocks):
        for r, n in enumerate(block):
            for o, v in enumerate(n.output):
                made[v] = (i, r, o)
    users = {}
    for part, ns in enumerate([prefix] + blocks + [suffix]):
        for n in ns:
            for x in n.input:
                users.setdefault(x, set()).add(part)
    inits = {t.name: t for t in g.initializer}
    own = {x for x in inits if users.get(x) == {2}}  # part 2 is layer 1
    dropped = {x for x in inits if users.get(x) == {BASE}}  # part BASE is the last layer

    def rename(name, j):
        if j == 1 or not name:
            return name
        new = LAYER.sub(lambda m: "%s.%d%s" % (m.group(1), j, m.group(3))
                        if m.group(2) == "1" else m.group(0), name, count=1)
        return new if new != name else "%s__layer%d" % (name, j)

    # Layer 2 shows what a layer reads from the layer before it (layer 1
    # reads the same from layer 0, whose nodes are laid out differently)
    # and what all layers share (layer 0's hoisted values, the prefix's).
    for a, b in zip(blocks[1], blocks[2]):
        if (a.op_type, len(a.input)) != (b.op_type, len(b.input)):
            fail("layers 1 and 2 differ at %s, %s" % (a.name, b.name))
    out_nodes = prefix + blocks[0] + blocks[1]
    for j in range(2, layers):
        for n, guide in zip(blocks[1], blocks[2]):
            c = onnx.NodeProto()
            c.CopyFrom(n)
            c.name = rename(n.name, j)
            for idx, (x, y) in enumerate(zip(n.input, guide.input)):
                if x in made and made[x][0] == 1 or x in own:
                    c.input[idx] = rename(x, j)
                elif y in made and made[y][0] == 1:
                    c.input[idx] = rename(y, j - 1)
                elif x != y:
                    fail("layers 1 and 2 read %s and %s at %s" % (x, y, n.name))
            for idx, v in enumerate(n.output):
                c.output[idx] = rename(v, j)
            out_nodes.append(c)
    for n in suffix:
        c = onnx.NodeProto()
        c.CopyFrom(n)
        for idx, x in enumerate(n.input):
            if x in made and made[x][0] == BASE - 1:
                _, r, o = made[x]
                c.input[idx] = rename(blocks[1][r].output[o], layers - 1)
            elif x in made and made[x][0] != 0:
                fail("the part after the layers reads %s of layer %d" % (x, made[x][0]))
        out_nodes.append(c)
    new = onnx.ModelProto()
    new.CopyFrom(model)
    ng = new.graph
    del ng.node[:]
    ng.node.extend(out_nodes)
    del ng.initializer[:]
    ng.initializer.extend(t for t in g.initializer if t.name not in dropped)
    for j in range(2, layers):
        for t in g.initializer:
            if t.name in own:
                c = ng.initializer.add()
                c.CopyFrom(t)
                c.name = rename(t.name, j)
    for o in ng.output:
        if o.name in made:
            fail("a graph output is made inside a layer")
    names = [v for n in ng.node for v in n.output] + [t.name for t in ng.initializer]
    if len(set(names)) != len(names):
        fail("the copies of the layers reuse a name: %s"
             % sorted({x for x in names if names.count(x) > 1})[:3])
    return new


def same_tensor(a, b):
    if a.data_type != b.data_type or list(a.dims) != list(b.dims):
        return False
    return a.data_type in FLOAT_TYPES or np.array_equal(numpy_helper.to_array(a),
                                                        numpy_helper.to_array(b))


def isomorphic(ga, gb):
    """None if graph ga is gb up to the names of values and the order of the
    initializers (float initializers compared by shape, the rest by value),
    else the first difference."""
    if len(ga.node) != len(gb.node) or len(ga.initializer) != len(gb.initializer):
        return "%d nodes, %d initializers against %d, %d" % (
            len(ga.node), len(ga.initializer), len(gb.node), len(gb.initializer))
    ia = {t.name: t for t in ga.initializer}
    ib = {t.name: t for t in gb.initializer}
    names = {"": ""}
    names.update((x.name, y.name) for x, y in zip(ga.input, gb.input))
    taken = set()
    for i, (na, nb) in enumerate(zip(ga.node, gb.node)):
        where = "node %d (%s, %s)" % (i, na.op_type, na.name)
        if ((na.op_type, len(na.input), len(na.output))
                != (nb.op_type, len(nb.input), len(nb.output))):
            return where + ": against " + nb.op_type
        for x, y in zip(na.attribute, nb.attribute):
            if x.name != y.name or x.type != y.type:
                return where + ": attributes"
            if x.type == onnx.AttributeProto.TENSOR:
                if not same_tensor(x.t, y.t) or not np.array_equal(
                        numpy_helper.to_array(x.t), numpy_helper.to_array(y.t)):
                    return where + ": attribute " + x.name
            elif x.SerializeToString() != y.SerializeToString():
                return where + ": attribute " + x.name
        for x, y in zip(na.input, nb.input):
            if x in names:
                if names[x] != y:
                    return where + ": input " + x
            elif x in ia and y in ib and y not in taken and same_tensor(ia[x], ib[y]):
                names[x] = y
                taken.add(y)
            else:
                return where + ": input " + x
        names.update(zip(na.output, nb.output))
    if [names.get(o.name) for o in ga.output] != [o.name for o in gb.output]:
        return "the graph outputs"
    return None


# --- 4. checks ----------------------------------------------------------------

def formula_params(s):
    """Parameters of the PyTorch module at the real size, from the architecture."""
    d, v, L = s["heads"] * s["head_dim"], s["vocab"], s["layers"]
    if s["family"] == "gpt":
        # wte (tied head), wpe; per layer qkv, proj, fc1, fc2 with biases, 2 LayerNorms; ln_f
        return v * d + s["ctx"] * d + L * (12 * d * d + 13 * d) + 2 * d
    kv = s["kv_heads"] * s["head_dim"]
    attn = 2 * d * d + 2 * d * kv
    mlp = 3 * d * s["ff"]
    if s["family"] == "mixtral":
        mlp = s["experts"] * mlp + d * s["experts"]  # experts and the router
    return 2 * v * d + L * (attn + mlp + 2 * d) + d  # embedding, lm_head, norms


def infer(model):
    """`model` with ids fixed to 1x16 after ONNX shape inference (strict)."""
    static = onnx.ModelProto()
    static.CopyFrom(model)
    for vi in static.graph.input:
        if vi.name == "ids":
            for d, n in zip(vi.type.tensor_type.shape.dim, (1, 16)):
                d.dim_value = n
    try:
        return onnx.shape_inference.infer_shapes(static, check_type=True, strict_mode=True,
                                                 data_prop=True)
    except Exception as e:  # onnx raises its own InferenceError
        fail("shape inference: " + str(e).splitlines()[0])


def value_shapes(model):
    """{(node, output): dims} that shape inference finds, -1 where unknown."""
    g = infer(model).graph
    vi = {v.name: v for v in list(g.value_info) + list(g.output)}
    shapes = {}
    for i, n in enumerate(g.node):
        for o, name in enumerate(n.output):
            t = vi[name].type.tensor_type if name in vi else None
            if t is not None and t.HasField("shape"):
                shapes[(i, o)] = np.array([d.dim_value if d.HasField("dim_value") else -1
                                           for d in t.shape.dim], dtype=np.int64)
    return shapes


def check_value_shapes(tiny_a, tiny_b, rewritten, wa, wb, real):
    """Every value of the rewritten graph has the shape that scaling the
    tiny exports' inferred shapes predicts (a weight whose scaling went wrong
    shows in the values downstream of it)."""
    sa, sb, sr = value_shapes(tiny_a), value_shapes(tiny_b), value_shapes(rewritten)
    for key, a in sa.items():
        if key not in sb or key not in sr or len(sb[key]) != len(a) or len(sr[key]) != len(a):
            fail("node %d output %d: no comparable shape" % key)
        want = scale(("value",) + key, a, sb[key], wa, wb, real)
        if not np.array_equal(want, sr[key]):
            fail("node %d (%s) output %d infers as %s, not %s" % (
                key[0], rewritten.graph.node[key[0]].name, key[1], sr[key].tolist(), want.tolist()))
    return len(sa)


def check(model, spec, location):
    # The checker wants the external file to exist (it does not read it):
    # an empty one in a scratch directory.
    with tempfile.TemporaryDirectory() as tmp:
        open(os.path.join(tmp, location), "wb").close()
        path = os.path.join(tmp, "model.onnx")
        onnx.save(model, path)
        onnx.checker.check_model(path)
    dims = [d.dim_value if d.HasField("dim_value") else d.dim_param
            for d in infer(model).graph.output[0].type.tensor_type.shape.dim]
    if dims != [1, 16, spec["vocab"]]:
        fail("logits infer as %s, not [1, 16, %d]" % (dims, spec["vocab"]))


def make(name, out, tiny_only, layers):
    spec = MODELS[name]
    wa, wb = TINY[spec["family"]]
    for w in wa:
        if any(Fraction(wa[w], wb[w]) == Fraction(wa[x], wb[x]) for x in wa if x != w):
            fail("the tiny widths %s, %s do not tell %s apart" % (wa, wb, w))
    real = {w: spec[w] for w in wa}
    layers = layers or spec["layers"]
    t0 = time.time()
    if tiny_only and layers <= BASE + 2:
        model = export_tiny(spec, wa, layers)
    else:
        model = export_tiny(spec, wa, BASE)
        direct = export_tiny(spec, wa, BASE + 2)
        layout = block_layout(model, direct)
        diff = isomorphic(replicate(model, layout, BASE + 2).graph, direct.graph)
        if diff:
            fail("%d layers made from %d differ from the export at %d: %s"
                 % (BASE + 2, BASE, BASE + 2, diff))
        del direct
    if tiny_only:
        if layers > BASE + 2:
            model = replicate(model, layout, layers)
        path = os.path.join(out, name + ".tiny.onnx")
        size = sum(t.ByteSize() for t in model.graph.initializer)
        if size >= 2**31 - 2**26:  # ByteSize itself fails past 2 GB
            fail("%d layers of the tiny %s are %.1f GB, over protobuf's 2 GB; pass --layers"
                 % (layers, name, size / 1e9))
        onnx.save(model, path)
        print("%s: %d layers at %s, %d bytes, %.0f s"
              % (path, layers, wa, os.path.getsize(path), time.time() - t0))
        return
    tiny, tiny_b = onnx.ModelProto(), export_tiny(spec, wb, BASE)
    tiny.CopyFrom(model)
    scaled = rewrite(model, tiny_b, wa, wb, real, spec)
    values = check_value_shapes(tiny, tiny_b, model, wa, wb, real)
    del tiny, tiny_b
    model = replicate(model, layout, layers)
    path = os.path.join(out, name + ".onnx")
    location = name + ".weights"
    if os.path.exists(os.path.join(out, location)):
        fail("%s exists; a shape-only model must not sit beside weights" % location)
    params, nbytes = externalize(model, location)
    entry = model.metadata_props.add()
    entry.key = "shape_only"
    entry.value = "float initializers point into %s, which is absent" % location
    check(model, spec, location)
    expect = formula_params(spec)
    if abs(params - expect) > 0.01 * expect:
        fail("%d parameters in the initializers, %d by the formula" % (params, expect))
    onnx.save(model, path)
    if os.path.exists(os.path.join(out, location)):
        fail("onnx.save wrote %s" % location)
    print("%s: %.3fe9 parameters (formula %.3fe9), %d integers scaled and %d value shapes "
          "checked in %d layers, %.1f GB fp32 absent in %s, file %.2f MB, %.0f s"
          % (path, params / 1e9, expect / 1e9, scaled, values, BASE, nbytes / 1e9, location,
             os.path.getsize(path) / 1e6, time.time() - t0))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--models", default=",".join(MODELS),
                    help="comma-separated, of: " + ", ".join(MODELS))
    ap.add_argument("--tiny-with-weights", action="store_true",
                    help="write the tiny export with inline fp32 weights instead")
    ap.add_argument("--layers", type=int, help="layers of the tiny export (--tiny-with-weights)")
    args = ap.parse_args()
    names = [m for m in args.models.split(",") if m]
    for m in names:
        if m not in MODELS:
            fail("unknown model '%s' (known: %s)" % (m, ", ".join(MODELS)))
    if args.layers is not None and (not args.tiny_with_weights or args.layers < 1):
        fail("--layers N (N >= 1) goes with --tiny-with-weights")
    os.makedirs(args.out, exist_ok=True)
    for m in names:
        make(m, args.out, args.tiny_with_weights, args.layers)


if __name__ == "__main__":
    main()
