#!/usr/bin/env python3
"""Makes the models of the weights-at-scale benchmark (bench/bench_weights.py).

  bench/make_big_models.py gpt2 OUT_DIR [--batch B --seq S]
                                              GPT-2-small-sized export
  bench/make_big_models.py stack OUT_DIR [--gb 4] [--d 8192]

gpt2: the GPT-2-style decoder of test/Models/Inputs/export_models.py at the
size of GPT-2 small (12 layers, d=768, 12 heads, vocab 50257, context 1024,
124 M parameters, LM head tied to the token embedding), random weights,
exported by Debian's torch 1.13 (opset 17, ids 1x16 static, or B x S) into
one protobuf file (weights as raw_data): OUT_DIR/gpt2_small.onnx.

stack: a stack of d x d fp32 MatMuls with Relu between them and a bias Add
after each, built with the onnx helpers (no torch), weights in one external
data file written tensor by tensor (protobuf caps a message at 2 GB):
OUT_DIR/stack.onnx + OUT_DIR/stack.data. Input x [16, d], output y [16, d].
The layers pair up column-parallel then row-parallel under --tp=2.

Run with /usr/bin/python3 (Debian's onnx, numpy and torch).
"""
import argparse
import os
import sys

import numpy as np


def make_gpt2(out, batch=1, seq=16):
    import torch
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                    "test", "Models", "Inputs"))
    from export_models import GPT2
    torch.manual_seed(0)
    model = GPT2(vocab=50257, d=768, heads=12, layers=12, ctx=1024).eval()
    params = sum(p.numel() for p in model.parameters())
    path = os.path.join(out, "gpt2_small.onnx")
    ids = torch.randint(0, 50257, (batch, seq))
    with torch.no_grad():
        torch.onnx.export(model, (ids,), path, input_names=["ids"], output_names=["logits"],
                          opset_version=17)
    np.save(os.path.join(out, "gpt2_small_ids.npy"), ids.numpy())
    print("%s: %d parameters, %d bytes" % (path, params, os.path.getsize(path)))


def make_stack(out, gb, d):
    import onnx
    from onnx import helper, TensorProto
    layers = max(2, int(round(gb * 2**30 / (4 * d * d))))
    layers += layers % 2
    rng = np.random.default_rng(0)
    data_name = "stack.data"
    inits, nodes = [], []
    offset = 0
    x = "x"
    with open(os.path.join(out, data_name), "wb") as f:
        for i in range(layers):
            w = (rng.standard_normal((d, d), dtype=np.float32) * (1.0 / np.sqrt(d))).astype(np.float32)
            b = (rng.standard_normal((d,), dtype=np.float32) * 0.01).astype(np.float32)
            for name, arr in (("w%d" % i, w), ("b%d" % i, b)):
                raw = arr.tobytes()
                f.write(raw)
                t = TensorProto()
                t.name = name
                t.data_type = TensorProto.FLOAT
                t.dims.extend(arr.shape)
                t.data_location = TensorProto.EXTERNAL
                for k, v in (("location", data_name), ("offset", str(offset)),
                             ("length", str(len(raw)))):
                    e = t.external_data.add()
                    e.key, e.value = k, v
                inits.append(t)
                offset += len(raw)
            nodes.append(helper.make_node("MatMul", [x, "w%d" % i], ["m%d" % i], name="mm%d" % i))
            y = "y" if i == layers - 1 else "a%d" % i
            if i % 2 == 0:
                nodes.append(helper.make_node("Add", ["m%d" % i, "b%d" % i], ["p%d" % i], name="add%d" % i))
                nodes.append(helper.make_node("Relu", ["p%d" % i], [y], name="relu%d" % i))
            else:
                nodes.append(helper.make_node("Add", ["m%d" % i, "b%d" % i], [y], name="add%d" % i))
            x = y
    graph = helper.make_graph(nodes, "stack",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [16, d])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [16, d])],
                              initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    path = os.path.join(out, "stack.onnx")
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    np.save(os.path.join(out, "stack_x.npy"), rng.standard_normal((16, d), dtype=np.float32))
    print("%s: %d layers of %dx%d, %d bytes of external data" % (path, layers, d, d, offset))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("which", choices=["gpt2", "stack"])
    ap.add_argument("out")
    ap.add_argument("--gb", type=float, default=4.0, help="stack: GiB of weights")
    ap.add_argument("--d", type=int, default=8192, help="stack: matrix size")
    ap.add_argument("--batch", type=int, default=1, help="gpt2: batch")
    ap.add_argument("--seq", type=int, default=16, help="gpt2: tokens per row")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.which == "gpt2":
        make_gpt2(args.out, args.batch, args.seq)
    else:
        make_stack(args.out, args.gb, args.d)


if __name__ == "__main__":
    main()
