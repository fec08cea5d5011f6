"""Collects and generates raw seed inputs for the libFuzzer targets.

usage: /usr/bin/python3 fuzz/make_seeds.py OUT [--shardc PATH]

Writes OUT/<target>/ for onnx, plan, weights, npy and pb:
  onnx     examples/*.onnx, the models the importer, driver and C++ target
           tests generate (test/*/Inputs/make_*.py), ONNX node-test models
           (../shared/onnx-node-tests or Debian's libonnx-testdata)
  plan     plan_data of the generated C++ (shardc --emit=cpp) of tiny_gpt2,
           the generated test models and the dynamic Hugging Face exports
           (--max-shape: plans with dynamic dims)
  weights  .weights files of some of them compiled with shardc -o
  npy      numpy .npy files: every dtype, versions 1-3, scalars, empty,
           fortran order, examples/*.npy
  pb       TensorProto .pb files of the node tests, plus numpy_helper ones
scripts/fuzz.sh --make-corpus merges these into fuzz/corpus/<target>/
(libFuzzer -merge=1 keeps the inputs that add coverage).
"""
import argparse
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from onnx import numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_ONNX = 256 * 1024
MAX_PB = 64 * 1024


def put(out, target, data, hint):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    name = hint + "-" + hashlib.sha1(data).hexdigest()[:12]
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def put_file(out, target, path, limit=None):
    if limit and os.path.getsize(path) > limit:
        return
    with open(path, "rb") as f:
        put(out, target, f.read(), os.path.basename(os.path.dirname(path))[:40]
            if os.path.basename(path) in ("model.onnx",) or
            re.match(r"(input|output)_\d+\.pb", os.path.basename(path))
            else os.path.splitext(os.path.basename(path))[0][:40])


def node_test_root():
    for d in (os.path.join(ROOT, "..", "shared", "onnx-node-tests", "node"),
              "/work/shared/onnx-node-tests/node",
              "/usr/share/libonnx-testdata/data/node"):
        if os.path.isdir(d):
            return d
    return None


def generated_models(tmp):
    """Runs the tests' model generators; returns their .onnx files."""
    gens = ["test/Import/ONNX/Inputs/make_models.py",
            "test/Import/ONNX/Inputs/make_hostile.py",
            "test/Driver/Inputs/make_models.py",
            "test/Target/Cpp/Inputs/make_models.py"]
    files = []
    for g in gens:
        src = os.path.join(ROOT, g)
        if not os.path.exists(src):
            continue
        d = os.path.join(tmp, g.replace("/", "_"))
        r = subprocess.run([sys.executable, src, d], capture_output=True)
        if r.returncode != 0:
            print("make_seeds: %s failed (skipped): %s" %
                  (g, r.stderr.decode()[-300:]), file=sys.stderr)
        files += sorted(glob.glob(os.path.join(d, "**", "*.onnx"),
                                  recursive=True))
    return files


def npy_seeds(out):
    rng = np.random.default_rng(0)
    arrays = [
        np.float32(1.5), np.array([], np.float32), np.zeros((0, 3), np.int64),
        np.arange(6, dtype=np.int64).reshape(2, 3),
        rng.standard_normal((2, 3, 4)).astype(np.float32),
        rng.standard_normal((3,)).astype(np.float64),
        rng.standard_normal((2, 2)).astype(np.float16),
        np.array([True, False, True]), np.arange(5, dtype=np.uint8),
        np.arange(-3, 3, dtype=np.int8), np.arange(4, dtype=np.int16),
        np.arange(4, dtype=np.uint16), np.arange(4, dtype=np.int32),
        np.arange(4, dtype=np.uint32), np.arange(4, dtype=np.uint64),
        np.ones((1, 1, 1, 1, 1, 1, 1, 1), np.float32),
    ]
    for i, a in enumerate(arrays):
        for version in ((1, 0), (2, 0), (3, 0)):
            import io
            buf = io.BytesIO()
            header = np.lib.format.header_data_from_array_1_0(a)
            np.lib.format._write_array_header(buf, header, version)
            buf.write(np.ascontiguousarray(a).tobytes())
            put(out, "npy", buf.getvalue(), "np%d-v%d" % (i, version[0]))
    # Fortran order (2-D: refused; 1-D: accepted), big-endian (refused).
    import io
    for a, hint in ((np.asfortranarray(np.arange(6.0).reshape(2, 3)), "fortran"),
                    (np.arange(3, dtype=">i4"), "bigendian")):
        buf = io.BytesIO()
        np.save(buf, a)
        put(out, "npy", buf.getvalue(), hint)
    for f in glob.glob(os.path.join(ROOT, "examples", "*.npy")):
        put_file(out, "npy", f)


def pb_seeds(out, nodes):
    rng = np.random.default_rng(1)
    for i, a in enumerate([np.float32(2.0), np.arange(6, dtype=np.int64),
                           rng.standard_normal((2, 3)).astype(np.float32),
                           np.array([1, 0, 1], bool),
                           rng.standard_normal((2,)).astype(np.float16),
                           np.arange(3, dtype=np.uint64)]):
        t = numpy_helper.from_array(a, "t%d" % i)
        put(out, "pb", t.SerializeToString(), "raw%d" % i)
        # The typed repeated fields instead of raw_data.
        t2 = numpy_helper.from_array(a, "f%d" % i)
        t2.ClearField("raw_data")
        if a.dtype == np.float32:
            t2.float_data.extend(a.ravel().tolist())
        elif a.dtype in (np.int64,):
            t2.int64_data.extend(a.ravel().tolist())
        elif a.dtype == np.uint64:
            t2.uint64_data.extend(a.ravel().tolist())
        elif a.dtype == bool:
            t2.int32_data.extend(a.ravel().astype(int).tolist())
        elif a.dtype == np.float16:
            t2.int32_data.extend(a.ravel().view(np.uint16).astype(int).tolist())
        put(out, "pb", t2.SerializeToString(), "typed%d" % i)
    if nodes:
        for f in sorted(glob.glob(os.path.join(nodes, "*", "test_data_set_0",
                                               "*.pb"))):
            put_file(out, "pb", f, MAX_PB)


def plan_and_weights(out, shardc, models, tmp, extra=()):
    """Compiles models (with `extra` flags): plans from --emit=cpp, weights
    from -o."""
    if not shardc or not os.path.exists(shardc):
        print("make_seeds: no shardc binary; no plan or weights seeds",
              file=sys.stderr)
        return
    compiled = 0
    for m in models:
        name = os.path.splitext(os.path.basename(m))[0]
        args = [shardc, m] + list(extra)
        if name == "tiny_gpt2":
            args += ["--input-shape", "ids=1x16"]
        cpp = os.path.join(tmp, name + ".cpp")
        r = subprocess.run(args + ["--emit=cpp", "-o", cpp],
                           capture_output=True)
        if r.returncode != 0:
            continue
        text = open(cpp).read()
        mm = re.search(r"plan_data\[\] = \{([^}]*)\}", text)
        if not mm:
            continue
        plan = bytes(int(x) for x in mm.group(1).replace("\n", "").split(",")
                     if x.strip())
        put(out, "plan", plan, name)
        # Executables (host compile, about a second each) for a few only.
        if compiled < 12:
            exe = os.path.join(tmp, name)
            r = subprocess.run(args + ["-o", exe], capture_output=True)
            w = exe + ".weights"
            if r.returncode == 0 and os.path.exists(w):
                if os.path.getsize(w) <= MAX_PB:
                    put_file(out, "weights", w)
                compiled += 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--shardc",
                    default=os.path.join(ROOT, "build", "tools", "shardc",
                                         "shardc"))
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    nodes = node_test_root()
    with tempfile.TemporaryDirectory(prefix="shardc-seeds-") as tmp:
        models = generated_models(tmp)
        examples = sorted(glob.glob(os.path.join(ROOT, "examples", "*.onnx")))
        for f in examples + models:
            put_file(a.out, "onnx", f, MAX_ONNX)
        if nodes:
            for f in sorted(glob.glob(os.path.join(nodes, "*", "model.onnx"))):
                put_file(a.out, "onnx", f, MAX_ONNX)
        plan_and_weights(a.out, a.shardc, examples + models, tmp)
        # Plans with dynamic dims (plan v4's dims table and symbols).
        plan_and_weights(a.out, a.shardc, sorted(glob.glob(os.path.join(
            ROOT, "test", "Models", "Inputs", "dynamic_hf", "*.onnx"))), tmp,
            ["--max-shape", "input_ids=4x64"])
        npy_seeds(a.out)
        pb_seeds(a.out, nodes)
    for t in sorted(os.listdir(a.out)):
        files = os.listdir(os.path.join(a.out, t))
        size = sum(os.path.getsize(os.path.join(a.out, t, f)) for f in files)
        print("make_seeds: %-8s %5d files, %8d bytes" % (t, len(files), size))


if __name__ == "__main__":
    main()
