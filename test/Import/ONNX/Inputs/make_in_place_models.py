"""Models whose weights sit in the model file as raw_data, large enough for
the importer to leave them there (parseModelInPlace: 64 KiB and up), some
of them misaligned (viewed where they are, with alignment 1), for
test/Import/ONNX/in-place-weights.test.

  make_in_place_models.py OUT_DIR

sum.onnx      y = x + A + B + C, x [R, 1031] fp32 with R = 4099: A and B
              are raw_data of 16.1 MiB each (misaligned in the file by a
              padding name), C a broadcast row of 4 KiB of raw_data (parsed by protobuf). The
              weights file spans three 16 MiB checksum chunks with pieces
              across their borders. expected.npy = A + B + C (x = 0).
outside/link.onnx  a symlink to sum.onnx from another folder.
both_ext.onnx raw_data of 64 KiB and also data_location EXTERNAL.
both_typed.onnx raw_data of 64 KiB and also float_data.
truncated.onnx sum.onnx cut in the middle of A's raw_data.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper

out = sys.argv[1]
os.makedirs(os.path.join(out, "outside"), exist_ok=True)
rng = np.random.default_rng(3)
R, C = 4099, 1031


def raw(name, arr):
    return helper.make_tensor(name, TensorProto.FLOAT, arr.shape, arr.tobytes(), raw=True)


def save(path, inits, nodes, inputs=("x",)):
    graph = helper.make_graph(
        nodes, "in_place",
        [helper.make_tensor_value_info(i, TensorProto.FLOAT, [R, C]) for i in inputs],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [R, C])], initializer=inits)
    data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()
    with open(os.path.join(out, path), "wb") as f:
        f.write(data)
    return data


a = rng.standard_normal((R, C)).astype(np.float32)
b = rng.standard_normal((R, C)).astype(np.float32)
small = rng.standard_normal((1, C)).astype(np.float32)  # a row, 4 KiB
# Names of odd lengths shift the raw_data that follows off 4-byte alignment.
ta, tb, tc = raw("A_", a), raw("B__", b), raw("C", small)
data = save("sum.onnx", [ta, tb, tc], [
    helper.make_node("Add", ["x", "A_"], ["s"]),
    helper.make_node("Add", ["s", "B__"], ["t"]),
    helper.make_node("Add", ["t", "C"], ["y"])])
np.save(os.path.join(out, "expected.npy"), a + b + small)
np.save(os.path.join(out, "zeros.npy"), np.zeros((R, C), np.float32))
os.symlink(os.path.join(out, "sum.onnx"), os.path.join(out, "outside", "link.onnx"))
at = data.find(a.tobytes()[:64])
assert at > 0
with open(os.path.join(out, "truncated.onnx"), "wb") as f:
    f.write(data[:at + a.nbytes // 2])

w = rng.standard_normal((16, 1024)).astype(np.float32)  # 64 KiB
t = raw("W", w)
t.data_location = TensorProto.EXTERNAL
t.external_data.add(key="location", value="w.bin")
save("both_ext.onnx", [t], [helper.make_node("Add", ["x", "W"], ["y"])])
t = raw("W", w)
t.float_data.extend([1.0, 2.0])
save("both_typed.onnx", [t], [helper.make_node("Add", ["x", "W"], ["y"])])
