"""Writes shape-only copies of a model: its initializers of at least 1 KiB
moved to external data that is then deleted (the file is absent), plus two
copies whose declarations are wrong even without the data.

  make_shape_only.py MODEL OUT_DIR

OUT_DIR/model.onnx      weights in OUT_DIR/model.weights, which is absent
OUT_DIR/bad_length.onnx the first external initializer declares a length
                        that does not match its shape
OUT_DIR/escape.onnx     ... a location that leaves the model's folder
"""
import os
import sys

import onnx

src, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
model = onnx.load(src)
path = os.path.join(out, "model.onnx")
onnx.save_model(model, path, save_as_external_data=True,
                all_tensors_to_one_file=True, location="model.weights",
                size_threshold=1024)
os.remove(os.path.join(out, "model.weights"))


def variant(name, key, value):
    m = onnx.load(path, load_external_data=False)
    for init in m.graph.initializer:
        if init.data_location == onnx.TensorProto.EXTERNAL:
            for kv in init.external_data:
                if kv.key == key:
                    kv.value = value
            break
    onnx.save_model(m, os.path.join(out, name + ".onnx"))


variant("bad_length", "length", "12")
variant("escape", "location", "../elsewhere/model.weights")
