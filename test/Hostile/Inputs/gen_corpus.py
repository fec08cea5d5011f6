#!/usr/bin/python3
"""Writes the hostile-model corpus: small models (and their side files) that
try to crash, hang, mislead or trick shardc and the executables it builds,
plus a manifest run_corpus.py reads.

    gen_corpus.py OUTDIR [--big] [--filter REGEX]

Each case is a folder OUTDIR/NAME; every command runs in that folder.
OUTDIR/manifest.json is a list of cases:

  name      the case (and its folder)
  class     what it attacks (see CLASSES)
  args      shardc's arguments (paths relative to the case folder)
  expect    refuse            shardc must refuse it with one clear line
            match             it must compile, run and match the reference
            refuse-or-match   either of the two
            refuse-or-run     a clean refusal, or it compiles and the run
                              exits 0 or fails with one clear line (the
                              answer is implementation-defined)
            run-refuse        it must compile; the executable must refuse
                              its run with one clear line
            run-refuse-or-match   it must compile; the run must refuse
                              cleanly or match the reference
  names     substrings of which the error line must contain one (the file,
            or the flag at fault)
  why       optional substrings of which a refusal must contain one: the
            defect the case plants (a refusal for another reason, or one
            that misstates the defect, is a bad error)
  model     the model ONNX Runtime runs for the reference
  exe       the executable shardc writes (the -o argument)
  run       {args, inputs {NAME: FILE}, names, prepare [...], must_not_exist
            [PATH...]} to run it; a run that creates a must_not_exist path
            wrote outside its output folder
  ref_inputs  {NAME: FILE}: inputs ONNX Runtime needs beyond the run's (those
            bound with --const-input)
  expected  {OUTPUT: FILE.npy}: the reference where ONNX Runtime cannot be
            trusted with the model (integer UB); else ONNX Runtime computes it
  precompile  extra shardc argument lists run before the case (no checks)
  rtol, atol  tolerance of the comparison (default 1e-4, 1e-5)

--big adds the 20,000-node scale cases (opt-in: minutes each).
"""
import argparse
import json
import os
import re
import shutil
import sys
import warnings

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

CLASSES = {
    "ext-data": "1. external data that escapes the model folder, or is not a plain in-folder file",
    "int-fold": "2. host folding of integer arithmetic in constants",
    "arity": "3. nodes with too few / too many / empty-named inputs",
    "zero-size": "4. zero-size dimensions",
    "scale": "5. long chains, wide fan-in, many outputs",
    "nan-inf": "8. NaN and +-Inf through each op family",
    "conv-kernel": "9. kernels larger than the padded input",
    "invalid-model": "10. structurally invalid models and bindings",
    "dim-overflow": "11. element counts that overflow, out-of-range constants",
    "messages": "12. things that invite a misleading message",
    "protobuf": "own: truncated, random or mis-typed protobuf",
    "attributes": "own: wrong attribute types and absurd attribute values",
    "types": "own: invalid dtypes, rank mismatches, sparse initializers",
    "cli": "own: bad --input-shape / --const-input specs",
    "exe-inputs": "own: executables run with bad inputs and options",
    "exe-weights": "own: executables with a corrupt, foreign or missing weights file",
}

F, I64, I32 = TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32
NAN, INF = float("nan"), float("inf")
INT64_MIN, INT64_MAX = -(2 ** 63), 2 ** 63 - 1
INT32_MIN, INT32_MAX = -(2 ** 31), 2 ** 31 - 1

ap = argparse.ArgumentParser()
ap.add_argument("outdir")
ap.add_argument("--big", action="store_true", help="add the 20,000-node scale cases")
ap.add_argument("--filter", help="only cases whose name matches this regex")
ARGS = ap.parse_args()
OUT = os.path.abspath(ARGS.outdir)
os.makedirs(OUT, exist_ok=True)
CASES = []
RNG = np.random.default_rng(1234)


# --- helpers ------------------------------------------------------------------
def vi(name, dims, t=F):
    return helper.make_tensor_value_info(name, t, dims)


def node(op, ins, outs, name=None, **attrs):
    return helper.make_node(op, ins, outs, name=name or (outs[0] if outs else op), **attrs)


def init(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


def model(nodes, inputs, outputs, inits=(), opset=17, ir=8, name="g"):
    g = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = ir
    return m


def const(name, arr):
    return node("Constant", [], [name], name="c_" + name, value=init(name + "_v", arr))


def case(name, cls, expect, m=None, inputs=None, args=None, model_path="model.onnx",
         names=None, run=None, expected=None, files=None, exe="model", ref_inputs=None, **extra):
    """Registers one case; writes its model (a ModelProto or bytes) and inputs."""
    assert cls in CLASSES, cls
    if ARGS.filter and not re.search(ARGS.filter, name):
        return None
    assert not any(c["name"] == name for c in CASES), name
    d = os.path.join(OUT, name)
    if os.path.lexists(d):
        shutil.rmtree(d)
    os.makedirs(d)
    if m is not None:
        p = os.path.join(d, model_path)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(m if isinstance(m, bytes) else m.SerializeToString())
    entry = {"name": name, "class": cls, "expect": expect}
    if args is None:
        args = [model_path, "-o", exe]
    entry["args"] = args
    entry["names"] = names if names is not None else [os.path.basename(model_path)]
    entry["model"] = model_path
    entry["exe"] = exe
    if inputs is not None or run is not None:
        run = dict(run or {})
        run.setdefault("args", [])
        run.setdefault("inputs", {})
        for k, v in (inputs or {}).items():
            fn = "in_%s.npy" % re.sub(r"[^A-Za-z0-9_.-]", "_", k)
            np.save(os.path.join(d, fn), v)
            run["inputs"][k] = fn
        entry["run"] = run
    if ref_inputs is not None:  # inputs ONNX Runtime needs that the executable does not take
        entry["ref_inputs"] = {}
        for k, v in ref_inputs.items():
            fn = "ref_%s.npy" % k
            np.save(os.path.join(d, fn), v)
            entry["ref_inputs"][k] = fn
    if expected is not None:
        entry["expected"] = {}
        for k, v in expected.items():
            fn = "expected_%s.npy" % k
            np.save(os.path.join(d, fn), v)
            entry["expected"][k] = fn
    for rel, content in (files or {}).items():
        p = os.path.join(d, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(content)
    entry.update(extra)
    CASES.append(entry)
    return d


def f32(*shape, lo=-2.0, hi=2.0):
    return RNG.uniform(lo, hi, size=shape).astype(np.float32)


# A small well-formed model most broken variants derive from.
def relu_model(**kw):
    return model([node("Relu", ["x"], ["y"])], [vi("x", [2, 3])], [vi("y", [2, 3])], **kw)


# --- 1. external data ---------------------------------------------------------
def ext_tensor(name, dims, entries, raw=None):
    t = TensorProto()
    t.name = name
    t.data_type = F
    t.dims.extend(dims)
    t.data_location = TensorProto.EXTERNAL
    for k, v in entries:
        e = t.external_data.add()
        e.key = k
        e.value = v
    if raw is not None:
        t.raw_data = raw
    return t


SECRET = np.arange(16, dtype=np.float32) * 1000 + 7  # recognisable if it leaks
WDATA = f32(4, 4)


def ext_case(name, entries, expect="refuse", setup=None, dims=(4, 4), raw=None, extra_inits=()):
    """model/model.onnx: y = x + W with W external; other/secret.bin is a
    sibling folder the model must not reach; model/w.bin is a legit file."""
    m = model([node("Add", ["x", "W"], ["y"])], [vi("x", [4, 4])], [vi("y", [4, 4])],
              [ext_tensor("W", list(dims), entries, raw)] + list(extra_inits))
    d = case(name, "ext-data", expect, m, model_path="model/model.onnx", why=["external", "'W'"],
             inputs={"x": f32(4, 4)} if expect != "refuse" else None,
             files={"other/secret.bin": SECRET.tobytes(), "model/w.bin": WDATA.tobytes()},
             args=["model/model.onnx", "-o", "model/model"], exe="model/model")
    if d and setup:
        setup(d)
    return d


def symlink(target, link):
    def go(d):
        p = os.path.join(d, link)
        if os.path.lexists(p):
            os.remove(p)
        os.symlink(target, p)
    return go


def gen_ext():
    up = "../" * 12
    ext_case("ext_etc_passwd_dotdot", [("location", up + "etc/passwd")])
    ext_case("ext_etc_passwd_dotdot_3", [("location", "../../../etc/passwd")])
    ext_case("ext_sibling_secret", [("location", "../other/secret.bin")])
    ext_case("ext_sibling_secret_dot_prefix", [("location", "./../other/secret.bin")])
    ext_case("ext_subdir_then_up", [("location", "sub/../../other/secret.bin")],
             setup=lambda d: os.makedirs(os.path.join(d, "model/sub")))
    ext_case("ext_abs_etc_passwd", [("location", "/etc/passwd")])
    ext_case("ext_abs_sibling_secret", [("location", os.path.join(OUT, "ext_abs_sibling_secret/other/secret.bin"))])
    ext_case("ext_abs_own_folder", [("location", os.path.join(OUT, "ext_abs_own_folder/model/w.bin"))])
    ext_case("ext_backslash_dotdot", [("location", "..\\other\\secret.bin")])
    ext_case("ext_symlink_file_outside", [("location", "w_link.bin")],
             setup=symlink("../other/secret.bin", "model/w_link.bin"))
    ext_case("ext_symlink_abs_passwd", [("location", "w_link.bin")],
             setup=symlink("/etc/passwd", "model/w_link.bin"))
    ext_case("ext_symlink_dir_outside", [("location", "sub/secret.bin")],
             setup=symlink("../other", "model/sub"))
    ext_case("ext_symlink_dangling", [("location", "w_link.bin")],
             setup=symlink("does/not/exist.bin", "model/w_link.bin"))
    ext_case("ext_location_dot", [("location", ".")])
    ext_case("ext_location_dotdot", [("location", "..")])
    ext_case("ext_location_subdir", [("location", "data")],
             setup=lambda d: os.makedirs(os.path.join(d, "model/data")))
    ext_case("ext_location_slash", [("location", "/")])
    ext_case("ext_dev_zero_path", [("location", "/dev/zero")])
    ext_case("ext_dev_zero_dotdot", [("location", up + "dev/zero")])
    ext_case("ext_dev_zero_symlink", [("location", "zero.bin")],
             setup=symlink("/dev/zero", "model/zero.bin"))
    ext_case("ext_dev_urandom_symlink", [("location", "rand.bin")],
             setup=symlink("/dev/urandom", "model/rand.bin"))
    ext_case("ext_proc_self_mem", [("location", "/proc/self/mem")])
    ext_case("ext_fifo_in_folder", [("location", "pipe.bin")],
             setup=lambda d: os.mkfifo(os.path.join(d, "model/pipe.bin")))
    for nm, off in [("12abc", "12abc"), ("neg", "-1"), ("hex", "0x10"), ("huge", "99999999999999999999999"),
                    ("int64max", str(INT64_MAX)), ("space", " 0"), ("plus", "+0"), ("empty", ""), ("float", "0.0")]:
        ext_case("ext_offset_" + nm, [("location", "w.bin"), ("offset", off)])
    for nm, ln in [("12abc", "64abc"), ("neg", "-1"), ("hex", "0x40"), ("huge", "18446744073709551615"),
                   ("short", "32"), ("long", "128")]:
        ext_case("ext_length_" + nm, [("location", "w.bin"), ("length", ln)])
    ext_case("ext_offset_length_beyond", [("location", "w.bin"), ("offset", "32"), ("length", "64")])
    ext_case("ext_offset_beyond_file", [("location", "w.bin"), ("offset", "1000")])
    ext_case("ext_offset_length_wrap", [("location", "w.bin"), ("offset", str(2 ** 64 - 32)), ("length", "64")])
    ext_case("ext_empty_location", [("location", "")])
    ext_case("ext_no_location", [("offset", "0")])
    ext_case("ext_missing_file", [("location", "nope.bin")])
    ext_case("ext_nul_in_location", [("location", "w.bin\x00../../other/secret.bin")])
    ext_case("ext_file_too_short", [("location", "short.bin")],
             setup=lambda d: open(os.path.join(d, "model/short.bin"), "wb").write(b"\0" * 10))
    ext_case("ext_raw_data_too", [("location", "w.bin")], raw=WDATA.tobytes())
    # legit: in the folder, in a subfolder, with offsets: must compile and match
    ext_case("ext_legit", [("location", "w.bin")], expect="match")
    ext_case("ext_legit_offset_length", [("location", "w2.bin"), ("offset", "64"), ("length", "64")], expect="match",
             setup=lambda d: open(os.path.join(d, "model/w2.bin"), "wb").write(b"\1" * 64 + WDATA.tobytes()))
    ext_case("ext_legit_subfolder", [("location", "data/w.bin")], expect="match",
             setup=lambda d: (os.makedirs(os.path.join(d, "model/data")),
                              shutil.copy(os.path.join(d, "model/w.bin"), os.path.join(d, "model/data/w.bin"))))
    ext_case("ext_legit_symlink_inside", [("location", "w_link.bin")], expect="refuse-or-match",
             setup=symlink("w.bin", "model/w_link.bin"))
    ext_case("ext_dotdot_back_inside", [("location", "../model/w.bin")], expect="refuse-or-match")
    d = ext_case("ext_model_folder_via_symlink", [("location", "w.bin")], expect="match",
                 setup=symlink("model", "link"))
    if d:
        CASES[-1]["args"] = ["link/model.onnx", "-o", "model/model"]
        CASES[-1]["model"] = "link/model.onnx"


# --- 2. integer folding -------------------------------------------------------
def fold_case(name, op, a, b, dtype, expect, expected=None, attrs=None, unary=False):
    """y = x + op(a, b) with a, b constants: the op is folded on the host."""
    t = I64 if dtype == np.int64 else (I32 if dtype == np.int32 else
                                       {np.uint64: TensorProto.UINT64, np.uint32: TensorProto.UINT32,
                                        np.uint8: TensorProto.UINT8}[dtype])
    a = np.array(a, dtype)
    b = np.array(b, dtype)
    nodes = [const("a", a)] + ([] if unary else [const("b", b)])
    nodes.append(node(op, ["a"] if unary else ["a", "b"], ["c"], name="fold_" + op, **(attrs or {})))
    nodes.append(node("Add", ["x", "c"], ["y"]))
    n = a.shape[0]
    x = np.arange(1, n + 1).astype(dtype)
    m = model(nodes, [vi("x", [n], t)], [vi("y", [n], t)], opset=18)
    exp = None if expected is None else {"y": (x + np.array(expected, dtype)).astype(dtype)}
    case(name, "int-fold", expect, m, inputs={"x": x}, expected=exp)


def gen_int_fold():
    with np.errstate(all="ignore"):
        fold_case("div_int64_min_by_neg1", "Div", [INT64_MIN, 7], [-1, 1], np.int64, "refuse-or-run")
        fold_case("div_int32_min_by_neg1", "Div", [INT32_MIN, 7], [-1, 1], np.int32, "refuse-or-run")
        fold_case("div_int64_by_zero", "Div", [5, 7], [0, 1], np.int64, "refuse")
        fold_case("div_int32_by_zero", "Div", [5, 7], [0, 1], np.int32, "refuse")
        fold_case("div_uint8_by_zero", "Div", [5, 7], [0, 1], np.uint8, "refuse")
        fold_case("mod_int64_by_zero", "Mod", [5, 7], [0, 3], np.int64, "refuse")
        fold_case("mod_int64_by_zero_fmod", "Mod", [5, 7], [0, 3], np.int64, "refuse", attrs={"fmod": 1})
        fold_case("mod_int32_by_zero", "Mod", [5, 7], [0, 3], np.int32, "refuse")
        fold_case("mod_int64_min_by_neg1", "Mod", [INT64_MIN, 7], [-1, 3], np.int64, "refuse-or-match",
                  expected=[0, 1])
        fold_case("mod_int64_min_by_neg1_fmod", "Mod", [INT64_MIN, 7], [-1, 3], np.int64, "refuse-or-match",
                  expected=[0, 1], attrs={"fmod": 1})
        for dt, w in [(np.uint64, 64), (np.uint32, 32), (np.uint8, 8)]:
            fold_case("bitshift_left_u%d_by_width" % w, "BitShift", [1, 1], [w, w + 1], dt, "refuse-or-run",
                      attrs={"direction": "LEFT"})
            fold_case("bitshift_right_u%d_by_width" % w, "BitShift", [2 ** w - 1, 1], [w, 200 % (2 ** min(w, 16))],
                      dt, "refuse-or-run", attrs={"direction": "RIGHT"})
        fold_case("mul_int64_overflow", "Mul", [INT64_MAX, 3], [2, 4], np.int64, "refuse-or-match",
                  expected=np.array([INT64_MAX, 3], np.int64) * np.array([2, 4], np.int64))
        fold_case("mul_int64_min_by_neg1", "Mul", [INT64_MIN, 3], [-1, 4], np.int64, "refuse-or-match",
                  expected=np.array([INT64_MIN, 3], np.int64) * np.array([-1, 4], np.int64))
        fold_case("add_int64_overflow", "Add", [INT64_MAX, 3], [1, 4], np.int64, "refuse-or-match",
                  expected=np.array([INT64_MAX, 3], np.int64) + np.array([1, 4], np.int64))
        fold_case("sub_int64_underflow", "Sub", [INT64_MIN, 3], [1, 4], np.int64, "refuse-or-match",
                  expected=np.array([INT64_MIN, 3], np.int64) - np.array([1, 4], np.int64))
        fold_case("mul_int32_overflow", "Mul", [INT32_MAX, 3], [2, 4], np.int32, "refuse-or-match",
                  expected=np.array([INT32_MAX, 3], np.int32) * np.array([2, 4], np.int32))
        fold_case("add_int32_overflow", "Add", [INT32_MAX, 3], [1, 4], np.int32, "refuse-or-match",
                  expected=np.array([INT32_MAX, 3], np.int32) + np.array([1, 4], np.int32))
        fold_case("pow_int64_overflow", "Pow", [10, 3], [30, 2], np.int64, "refuse-or-run")
        fold_case("pow_int32_overflow", "Pow", [10, 3], [20, 2], np.int32, "refuse-or-run")
        fold_case("pow_int64_negative_exponent", "Pow", [2, 3], [-1, 2], np.int64, "refuse-or-run")
        fold_case("neg_int64_min", "Neg", [INT64_MIN, 3], [0, 0], np.int64, "refuse-or-match",
                  expected=-np.array([INT64_MIN, 3], np.int64), unary=True)
        fold_case("abs_int64_min", "Abs", [INT64_MIN, -3], [0, 0], np.int64, "refuse-or-match",
                  expected=np.abs(np.array([INT64_MIN, -3], np.int64)), unary=True)
    # Shape arithmetic feeding a Reshape: folded while importing.
    sh = [node("Shape", ["x"], ["s"]), const("zero", np.array([0, 1], np.int64)),
          node("Div", ["s", "zero"], ["t"], name="div_shape"), node("Reshape", ["x", "t"], ["y"])]
    case("div_by_zero_in_shape_subgraph", "int-fold", "refuse",
         model(sh, [vi("x", [2, 3])], [vi("y", None)]))
    sh = [node("Shape", ["x"], ["s"]), const("big", np.array([INT64_MAX, 1], np.int64)),
          node("Mul", ["s", "big"], ["t"], name="mul_shape"), node("Reshape", ["x", "t"], ["y"])]
    case("mul_overflow_in_shape_subgraph", "int-fold", "refuse",
         model(sh, [vi("x", [2, 3])], [vi("y", None)]))
    # Range with delta 0 (an endless loop for a naive folder) and a huge count.
    for nm, (s, l, dl) in {"range_delta_zero": (0, 10, 0), "range_huge_count": (0, 2 ** 62, 1),
                           "range_int64_extremes": (INT64_MIN, INT64_MAX, 1),
                           "range_overflow_step": (INT64_MAX - 1, INT64_MIN, INT64_MAX)}.items():
        nodes = [const("s", np.array(s, np.int64)), const("l", np.array(l, np.int64)),
                 const("d", np.array(dl, np.int64)), node("Range", ["s", "l", "d"], ["r"], name="range"),
                 node("Shape", ["r"], ["rs"]), node("Cast", ["rs"], ["rf"], to=F),
                 node("Add", ["x", "rf"], ["y"])]
        if nm == "range_overflow_step":  # limit < start with a positive step: empty, if computed without overflow
            case(nm, "int-fold", "refuse-or-match", model(nodes, [vi("x", [1])], [vi("y", [1])]),
                 inputs={"x": np.ones(1, np.float32)}, expected={"y": np.ones(1, np.float32)})
        else:
            case(nm, "int-fold", "refuse", model(nodes, [vi("x", [1])], [vi("y", [1])]))
    # Casting NaN / Inf / 1e30 to integers while folding is undefined in C++.
    nodes = [const("a", np.array([NAN, INF, -INF, 1e30], np.float32)), node("Cast", ["a"], ["c"], to=I64, name="cast"),
             node("Add", ["x", "c"], ["y"])]
    case("cast_nan_inf_to_int64_folded", "int-fold", "refuse-or-run",
         model(nodes, [vi("x", [4], I64)], [vi("y", [4], I64)]), inputs={"x": np.arange(4, dtype=np.int64)})
    nodes = [const("a", np.array([NAN, INF, -INF, 1e30], np.float32)), node("Cast", ["a"], ["c"], to=I32, name="cast"),
             node("Add", ["x", "c"], ["y"])]
    case("cast_nan_inf_to_int32_folded", "int-fold", "refuse-or-run",
         model(nodes, [vi("x", [4], I32)], [vi("y", [4], I32)]), inputs={"x": np.arange(4, dtype=np.int32)})
    # Float Mod by zero is NaN, a defined answer.
    nodes = [const("a", np.array([5.0, 7.0], np.float32)), const("b", np.array([0.0, 2.0], np.float32)),
             node("Mod", ["a", "b"], ["c"], fmod=1), node("Add", ["x", "c"], ["y"])]
    case("mod_float_by_zero_fmod", "int-fold", "refuse-or-match",
         model(nodes, [vi("x", [2])], [vi("y", [2])]), inputs={"x": np.ones(2, np.float32)})
    # Division by zero at run time (the divisor is an input).
    case("div_int64_by_zero_input", "int-fold", "refuse-or-run",
         model([node("Div", ["x", "z"], ["y"])], [vi("x", [2], I64), vi("z", [2], I64)], [vi("y", [2], I64)]),
         inputs={"x": np.array([INT64_MIN, 5], np.int64), "z": np.array([-1, 0], np.int64)})


# --- 3. arity -----------------------------------------------------------------
def gen_arity():
    W = init("W", f32(3, 4))
    X = [vi("x", [2, 3])]

    def a(name, nodes, outs, inits=(), expect="refuse", inputs=None, ins=X):
        case(name, "arity", expect, model(nodes, ins, outs, inits), inputs=inputs)
    a("relu_no_inputs", [node("Relu", [], ["y"])], [vi("y", [2, 3])])
    a("add_one_input", [node("Add", ["x"], ["y"])], [vi("y", [2, 3])])
    a("matmul_one_input", [node("MatMul", ["x"], ["y"])], [vi("y", [2, 4])])
    a("gemm_one_input", [node("Gemm", ["x"], ["y"])], [vi("y", [2, 4])])
    a("conv_one_input", [node("Conv", ["x4"], ["y"])], [vi("y", None)], ins=[vi("x4", [1, 1, 4, 4])])
    a("where_two_inputs", [node("Where", ["c", "x"], ["y"])], [vi("y", [2, 3])],
      ins=[vi("c", [2, 3], TensorProto.BOOL), vi("x", [2, 3])])
    a("concat_no_inputs", [node("Concat", [], ["y"], axis=0)], [vi("y", None)])
    a("reshape_one_input_opset17", [node("Reshape", ["x"], ["y"])], [vi("y", None)])
    a("softmax_no_inputs", [node("Softmax", [], ["y"])], [vi("y", [2, 3])])
    a("layernorm_no_scale", [node("LayerNormalization", ["x"], ["y"])], [vi("y", [2, 3])])
    a("add_empty_name_input", [node("Add", ["x", ""], ["y"])], [vi("y", [2, 3])])
    a("matmul_empty_name_first", [node("MatMul", ["", "W"], ["y"])], [vi("y", [2, 4])], [W])
    a("reshape_empty_name_shape", [node("Reshape", ["x", ""], ["y"])], [vi("y", None)])
    a("gather_empty_name_indices", [node("Gather", ["x", ""], ["y"])], [vi("y", None)])
    a("conv_empty_name_weight", [node("Conv", ["x4", ""], ["y"])], [vi("y", None)], ins=[vi("x4", [1, 1, 4, 4])])
    a("where_empty_name_cond", [node("Where", ["", "x", "x"], ["y"])], [vi("y", [2, 3])])
    a("relu_two_inputs", [node("Relu", ["x", "x"], ["y"])], [vi("y", [2, 3])])
    a("add_three_inputs", [node("Add", ["x", "x", "x"], ["y"])], [vi("y", [2, 3])])
    a("sigmoid_two_inputs", [node("Sigmoid", ["x", "x"], ["y"])], [vi("y", [2, 3])])
    a("matmul_three_inputs", [node("MatMul", ["x", "W", "W"], ["y"])], [vi("y", [2, 4])], [W])
    a("transpose_two_inputs", [node("Transpose", ["x", "x"], ["y"])], [vi("y", [3, 2])])
    a("gemm_four_inputs", [node("Gemm", ["x", "W", "x", "x"], ["y"])], [vi("y", [2, 4])], [W])
    a("relu_two_outputs", [node("Relu", ["x"], ["y", "z"])], [vi("y", [2, 3])])
    a("conv_optional_bias_empty", [node("Conv", ["x4", "Wc", ""], ["y"])], [vi("y", [1, 2, 2, 2])],
      [init("Wc", f32(2, 1, 3, 3))], expect="match", inputs={"x4": f32(1, 1, 4, 4)}, ins=[vi("x4", [1, 1, 4, 4])])
    a("clip_optional_min_empty", [node("Clip", ["x", "", "mx"], ["y"])], [vi("y", [2, 3])],
      [init("mx", np.array(0.5, np.float32))], expect="match", inputs={"x": f32(2, 3)})


# --- 4. zero-size dims --------------------------------------------------------
def gen_zero_size():
    def z(name, nodes, ins, outs, inits=(), opset=17):
        feeds = {v.name: (np.zeros([d.dim_value for d in v.type.tensor_type.shape.dim], np.float32)
                          if v.type.tensor_type.elem_type == F else
                          np.zeros([d.dim_value for d in v.type.tensor_type.shape.dim], np.int64))
                 for v in ins}
        for k, v in feeds.items():
            if v.size:
                feeds[k] = f32(*v.shape) if v.dtype == np.float32 else v
        case(name, "zero-size", "refuse-or-match", model(nodes, ins, outs, inits, opset=opset), inputs=feeds)
    z("matmul_0x16", [node("MatMul", ["x", "W"], ["y"])], [vi("x", [0, 16])], [vi("y", [0, 8])],
      [init("W", f32(16, 8))])
    z("matmul_inner_0", [node("MatMul", ["x", "W"], ["y"])], [vi("x", [4, 0])], [vi("y", [4, 8])],
      [init("W", np.zeros((0, 8), np.float32))])
    z("matmul_out_0", [node("MatMul", ["x", "W"], ["y"])], [vi("x", [4, 16])], [vi("y", [4, 0])],
      [init("W", np.zeros((16, 0), np.float32))])
    z("gemm_inner_0_bias", [node("Gemm", ["x", "W", "b"], ["y"])], [vi("x", [4, 0])], [vi("y", [4, 8])],
      [init("W", np.zeros((0, 8), np.float32)), init("b", f32(8))])
    z("conv_n0", [node("Conv", ["x", "W"], ["y"])], [vi("x", [0, 3, 8, 8])], [vi("y", [0, 4, 6, 6])],
      [init("W", f32(4, 3, 3, 3))])
    z("conv_c0_bias", [node("Conv", ["x", "W", "b"], ["y"])], [vi("x", [1, 0, 8, 8])], [vi("y", [1, 4, 6, 6])],
      [init("W", np.zeros((4, 0, 3, 3), np.float32)), init("b", f32(4))])
    z("conv_h0", [node("Conv", ["x", "W"], ["y"], pads=[1, 1, 1, 1])], [vi("x", [1, 3, 0, 8])], [vi("y", None)],
      [init("W", f32(4, 3, 3, 3))])
    z("add_empty", [node("Add", ["x", "x2"], ["y"])], [vi("x", [0]), vi("x2", [0])], [vi("y", [0])])
    z("add_empty_broadcast", [node("Add", ["x", "x2"], ["y"])], [vi("x", [2, 0, 3]), vi("x2", [1, 0, 3])],
      [vi("y", [2, 0, 3])])
    z("add_broadcast_0_with_1", [node("Add", ["x", "x2"], ["y"])], [vi("x", [0, 3]), vi("x2", [1, 3])],
      [vi("y", [0, 3])])
    z("relu_empty", [node("Relu", ["x"], ["y"])], [vi("x", [3, 0])], [vi("y", [3, 0])])
    z("reducesum_over_empty", [node("ReduceSum", ["x", "ax"], ["y"], keepdims=0)], [vi("x", [3, 0])],
      [vi("y", [3])], [init("ax", np.array([1], np.int64))])
    z("reducemean_over_empty", [node("ReduceMean", ["x"], ["y"], axes=[1], keepdims=0)], [vi("x", [3, 0])],
      [vi("y", [3])])
    z("reducemax_empty_rows", [node("ReduceMax", ["x"], ["y"], axes=[1], keepdims=1)], [vi("x", [0, 5])],
      [vi("y", [0, 1])])
    z("softmax_empty_rows", [node("Softmax", ["x"], ["y"], axis=-1)], [vi("x", [0, 5])], [vi("y", [0, 5])])
    z("softmax_empty_axis", [node("Softmax", ["x"], ["y"], axis=-1)], [vi("x", [5, 0])], [vi("y", [5, 0])])
    z("concat_with_empty", [node("Concat", ["x", "x2"], ["y"], axis=0)], [vi("x", [2, 3]), vi("x2", [0, 3])],
      [vi("y", [2, 3])])
    z("transpose_empty", [node("Transpose", ["x"], ["y"], perm=[1, 0])], [vi("x", [0, 4])], [vi("y", [4, 0])])
    z("reshape_empty", [node("Reshape", ["x", "s"], ["y"], allowzero=1)], [vi("x", [0, 4])], [vi("y", [2, 0, 2])],
      [init("s", np.array([2, 0, 2], np.int64))])
    z("gather_empty_indices", [node("Gather", ["x", "i"], ["y"], axis=0)], [vi("x", [4, 3])], [vi("y", [0, 3])],
      [init("i", np.zeros((0,), np.int64))])
    z("slice_to_empty", [node("Slice", ["x", "s", "e"], ["y"])], [vi("x", [4, 3])], [vi("y", [0, 3])],
      [init("s", np.array([2], np.int64)), init("e", np.array([2], np.int64))])
    z("maxpool_n0", [node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2])], [vi("x", [0, 1, 4, 4])],
      [vi("y", [0, 1, 3, 3])])
    z("layernorm_empty_rows", [node("LayerNormalization", ["x", "g", "b"], ["y"], axis=-1)], [vi("x", [0, 8])],
      [vi("y", [0, 8])], [init("g", f32(8)), init("b", f32(8))])
    z("expand_to_empty", [node("Expand", ["x", "s"], ["y"])], [vi("x", [1, 4])], [vi("y", [0, 4])],
      [init("s", np.array([0, 4], np.int64))])
    z("split_zero_piece", [node("Split", ["x", "sp"], ["y", "y2"], axis=0)], [vi("x", [3, 2])],
      [vi("y", [3, 2]), vi("y2", [0, 2])], [init("sp", np.array([3, 0], np.int64))], opset=18)
    z("constantofshape_empty", [node("ConstantOfShape", ["s"], ["c"], value=init("v", np.array([1.0], np.float32))),
                                node("Concat", ["x", "c"], ["y"], axis=0)], [vi("x", [2, 3])], [vi("y", [2, 3])],
      [init("s", np.array([0, 3], np.int64))])


# --- 5. scale -----------------------------------------------------------------
def gen_scale(big):
    n_chain, n_par, n_out, n_in = (20000, 20000, 20000, 2000) if big else (2000, 1000, 500, 200)
    sfx = "_big" if big else ""
    cls = "scale"
    # elementwise chain: x*0.999 + 0.001 then tanh, repeated
    nodes, cur = [], "x"
    ops = ["Mul", "Add", "Tanh", "Relu"]
    for i in range(n_chain):
        op = ops[i % 4]
        nxt = "y" if i == n_chain - 1 else "t%d" % i
        ins = [cur, "c_mul" if op == "Mul" else "c_add"] if op in ("Mul", "Add") else [cur]
        nodes.append(node(op, ins, [nxt], name="n%d" % i))
        cur = nxt
    case("chain_%d_elementwise%s" % (n_chain, sfx), cls, "match",
         model(nodes, [vi("x", [4, 16])], [vi("y", [4, 16])],
               [init("c_mul", np.array(0.999, np.float32)), init("c_add", np.array(0.001, np.float32))]),
         inputs={"x": f32(4, 16)}, rtol=1e-3, atol=1e-4)
    # chain of Adds each with its own initializer
    nodes, inits, cur = [], [], "x"
    n_own = n_chain if big else 500
    for i in range(n_own):
        nxt = "y" if i == n_own - 1 else "t%d" % i
        inits.append(init("k%d" % i, np.full([16], 1e-3 * ((i % 7) - 3), np.float32)))
        nodes.append(node("Add", [cur, "k%d" % i], [nxt], name="a%d" % i))
        cur = nxt
    case("chain_%d_add_own_initializers%s" % (n_own, sfx), cls, "match",
         model(nodes, [vi("x", [4, 16])], [vi("y", [4, 16])], inits), inputs={"x": f32(4, 16)},
         rtol=1e-3, atol=1e-3)
    # chain of transposes
    nodes, cur = [], "x"
    n_t = n_chain // 2
    for i in range(n_t):
        nxt = "y" if i == n_t - 1 else "t%d" % i
        nodes.append(node("Transpose", [cur], [nxt], name="tr%d" % i, perm=[1, 0]))
        cur = nxt
    case("chain_%d_transpose%s" % (n_t, sfx), cls, "match",
         model(nodes, [vi("x", [3, 5])], [vi("y", [3, 5] if n_t % 2 == 0 else [5, 3])]), inputs={"x": f32(3, 5)})
    # many parallel nodes into one Concat
    nodes = [node("Mul", ["x", "p%d" % i], ["m%d" % i], name="m%d" % i) for i in range(n_par)]
    nodes.append(node("Concat", ["m%d" % i for i in range(n_par)], ["y"], axis=0))
    case("concat_of_%d_parallel%s" % (n_par, sfx), cls, "match",
         model(nodes, [vi("x", [1, 8])], [vi("y", [n_par, 8])],
               [init("p%d" % i, np.array(i * 0.01, np.float32)) for i in range(n_par)]), inputs={"x": f32(1, 8)})
    # a balanced tree of Adds over parallel branches
    leaves = ["b%d" % i for i in range(16384 if big else 1024)]
    nodes = [node("Mul", ["x", "q"], [l], name=l) for l in leaves]
    level, k = leaves, 0
    while len(level) > 1:
        nxt = []
        for i in range(0, len(level), 2):
            o = "y" if len(level) == 2 else "s%d" % k
            k += 1
            nodes.append(node("Add", [level[i], level[i + 1]], [o], name="add_" + o))
            nxt.append(o)
        level = nxt
    case("add_tree_of_%d%s" % (len(leaves), sfx), cls, "match",
         model(nodes, [vi("x", [2, 8])], [vi("y", [2, 8])], [init("q", np.array(0.5, np.float32))]),
         inputs={"x": f32(2, 8)}, rtol=1e-3, atol=1e-3)
    # many graph outputs
    nodes = [node("Add", ["x", "o%d_c" % i], ["o%d" % i], name="o%d" % i) for i in range(n_out)]
    case("outputs_%d%s" % (n_out, sfx), cls, "match",
         model(nodes, [vi("x", [2, 2])], [vi("o%d" % i, [2, 2]) for i in range(n_out)],
               [init("o%d_c" % i, np.array(float(i), np.float32)) for i in range(n_out)]), inputs={"x": f32(2, 2)})
    # many graph inputs summed
    nodes, cur = [], "i0"
    for i in range(1, n_in):
        nxt = "y" if i == n_in - 1 else "s%d" % i
        nodes.append(node("Add", [cur, "i%d" % i], [nxt], name="sum%d" % i))
        cur = nxt
    case("inputs_%d%s" % (n_in, sfx), cls, "match",
         model(nodes, [vi("i%d" % i, [3]) for i in range(n_in)], [vi("y", [3])]),
         inputs={"i%d" % i: f32(3) for i in range(n_in)}, rtol=1e-3, atol=1e-4)
    if not big:
        # long names (64 KiB each) on a short chain
        ln = "n" * 65536
        nodes = [node("Relu", ["x"], [ln + "1"], name=ln + "a"), node("Neg", [ln + "1"], ["y"], name=ln + "b")]
        case("names_64k_long", cls, "match", model(nodes, [vi("x", [2, 3])], [vi("y", [2, 3])]),
             inputs={"x": f32(2, 3)})
        # a chain of 150 small MatMuls (library calls, not fusable)
        nodes, cur = [], "x"
        for i in range(150):
            nxt = "y" if i == 149 else "h%d" % i
            nodes.append(node("MatMul", [cur, "Wm"], [nxt], name="mm%d" % i))
            cur = nxt
        Wm = (np.eye(8) * 0.9 + RNG.uniform(-0.05, 0.05, (8, 8))).astype(np.float32)
        case("chain_150_matmul", cls, "match", model(nodes, [vi("x", [2, 8])], [vi("y", [2, 8])], [init("Wm", Wm)]),
             inputs={"x": f32(2, 8)}, rtol=1e-3, atol=1e-4)


# --- 8. NaN and Inf -----------------------------------------------------------
SPECIAL = np.array([NAN, INF, -INF, 0.0, -0.0, 1.0, -1.0, 3.5, -2.5, 1e30, -1e30, 1e-40, NAN, INF, 0.5, -INF],
                   np.float32)


def gen_nan_inf():
    X = SPECIAL.reshape(2, 8)
    Y = np.roll(SPECIAL, 5).reshape(2, 8)
    cls = "nan-inf"

    def u(name, op, outs_dims=(2, 8), out_t=F, inits=(), extra_in=(), **attrs):
        ins = ["x"] + list(extra_in)
        case("naninf_" + name, cls, "match",
             model([node(op, ins, ["y"], **attrs)], [vi("x", [2, 8])], [vi("y", list(outs_dims), out_t)], inits),
             inputs={"x": X})

    def b(name, op, out_t=F, **attrs):
        case("naninf_" + name, cls, "match",
             model([node(op, ["x", "x2"], ["y"], **attrs)], [vi("x", [2, 8]), vi("x2", [2, 8])],
                   [vi("y", [2, 8], out_t)]), inputs={"x": X, "x2": Y})
    for op in ["Relu", "Sigmoid", "Tanh", "Abs", "Neg", "Exp", "Log", "Sqrt", "Erf", "Reciprocal",
               "HardSwish"]:
        u(op.lower(), op)
    u("leakyrelu", "LeakyRelu", alpha=0.1)
    u("hardsigmoid", "HardSigmoid", alpha=0.2, beta=0.5)
    u("clip", "Clip", inits=[init("lo", np.array(-1, np.float32)), init("hi", np.array(1, np.float32))],
      extra_in=["lo", "hi"])
    u("clip_min_only", "Clip", inits=[init("lo", np.array(0, np.float32))], extra_in=["lo"])
    u("softmax", "Softmax", axis=-1)
    u("logsoftmax", "LogSoftmax", axis=-1)
    u("softmax_axis0", "Softmax", axis=0)
    u("reducemax", "ReduceMax", outs_dims=(2, 1), axes=[1], keepdims=1)
    u("reducemean", "ReduceMean", outs_dims=(2, 1), axes=[1], keepdims=1)
    u("reducesum", "ReduceSum", outs_dims=(2, 1), inits=[init("ax", np.array([1], np.int64))], extra_in=["ax"],
      keepdims=1)
    u("cumsum", "CumSum", inits=[init("ax", np.array(1, np.int64))], extra_in=["ax"])
    u("cast_to_bool", "Cast", out_t=TensorProto.BOOL, to=TensorProto.BOOL)
    u("cast_to_f16", "Cast", out_t=TensorProto.FLOAT16, to=TensorProto.FLOAT16)
    for op in ["Min", "Max", "Add", "Sub", "Mul", "Div", "Pow"]:
        b(op.lower(), op)
    for op in ["Less", "Greater", "Equal"]:
        b(op.lower(), op, out_t=TensorProto.BOOL)
    # all -inf row and all NaN row into softmax / reducemax
    Z = np.array([[-INF] * 4, [NAN] * 4, [INF, INF, 1, 2], [INF, -INF, 0, 0]], np.float32)
    for op, dims, at in [("Softmax", [4, 4], {"axis": -1}), ("ReduceMax", [4, 1], {"axes": [1], "keepdims": 1})]:
        case("naninf_%s_degenerate_rows" % op.lower(), cls, "match",
             model([node(op, ["x"], ["y"], **at)], [vi("x", [4, 4])], [vi("y", dims)]), inputs={"x": Z})
    # Where on a comparison, MatMul / Gemm / Conv / pools / norms with specials
    case("naninf_where", cls, "match",
         model([node("Less", ["x", "zero"], ["c"]), node("Where", ["c", "x", "x2"], ["y"])],
               [vi("x", [2, 8]), vi("x2", [2, 8])], [vi("y", [2, 8])], [init("zero", np.array(0, np.float32))]),
         inputs={"x": X, "x2": Y})
    Wm = RNG.uniform(-1, 1, (8, 3)).astype(np.float32)
    Wm[2, 1] = 0.0  # inf * 0 = NaN
    case("naninf_matmul", cls, "match",
         model([node("MatMul", ["x", "W"], ["y"])], [vi("x", [2, 8])], [vi("y", [2, 3])], [init("W", Wm)]),
         inputs={"x": X})
    Xf = np.where(np.isfinite(X) & (np.abs(X) < 1e20), X, 0).astype(np.float32)
    Wn = Wm.copy()
    Wn[0, 0], Wn[3, 2] = NAN, INF
    case("naninf_matmul_weights", cls, "match",
         model([node("MatMul", ["x", "W"], ["y"])], [vi("x", [2, 8])], [vi("y", [2, 3])], [init("W", Wn)]),
         inputs={"x": Xf})
    case("naninf_gemm_bias", cls, "match",
         model([node("Gemm", ["x", "W", "bb"], ["y"])], [vi("x", [2, 8])], [vi("y", [2, 3])],
               [init("W", Wm), init("bb", np.array([NAN, INF, -INF], np.float32))]), inputs={"x": Xf})
    X4 = SPECIAL.reshape(1, 1, 4, 4)
    case("naninf_maxpool", cls, "match",
         model([node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2])], [vi("x", [1, 1, 4, 4])], [vi("y", [1, 1, 3, 3])]),
         inputs={"x": X4})
    case("naninf_maxpool_stride2", cls, "match",
         model([node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], strides=[2, 2])], [vi("x", [1, 1, 4, 4])],
               [vi("y", [1, 1, 2, 2])]), inputs={"x": X4})
    case("naninf_averagepool", cls, "match",
         model([node("AveragePool", ["x"], ["y"], kernel_shape=[2, 2])], [vi("x", [1, 1, 4, 4])],
               [vi("y", [1, 1, 3, 3])]), inputs={"x": X4})
    case("naninf_globalaveragepool", cls, "match",
         model([node("GlobalAveragePool", ["x"], ["y"])], [vi("x", [1, 1, 4, 4])], [vi("y", [1, 1, 1, 1])]),
         inputs={"x": X4})
    case("naninf_conv", cls, "match",
         model([node("Conv", ["x", "W"], ["y"])], [vi("x", [1, 1, 4, 4])], [vi("y", [1, 2, 3, 3])],
               [init("W", f32(2, 1, 2, 2))]), inputs={"x": X4})
    case("naninf_layernorm", cls, "match",
         model([node("LayerNormalization", ["x", "g", "bb"], ["y"], axis=-1)], [vi("x", [2, 8])], [vi("y", [2, 8])],
               [init("g", f32(8)), init("bb", f32(8))]), inputs={"x": X})
    case("naninf_relu_then_add_fused", cls, "match",
         model([node("Relu", ["x"], ["r"]), node("Mul", ["r", "x2"], ["m"]), node("Add", ["m", "x"], ["y"])],
               [vi("x", [2, 8]), vi("x2", [2, 8])], [vi("y", [2, 8])]), inputs={"x": X, "x2": Y})


# --- 9. conv kernel larger than its padded input -------------------------------
def gen_conv_kernel():
    cls = "conv-kernel"

    def c(name, xdims, wdims, expect="refuse", op="Conv", **attrs):
        ins = ["x", "W"] if op in ("Conv", "ConvTranspose") else ["x"]
        inits = [init("W", f32(*wdims))] if op in ("Conv", "ConvTranspose") else []
        x = f32(*xdims)
        case(name, cls, expect, model([node(op, ins, ["y"], name="conv", **attrs)], [vi("x", xdims)], [vi("y", None)],
                                      inits), inputs={"x": x} if expect != "refuse" else None)
    c("conv2d_kernel5_input3", [1, 1, 3, 3], [1, 1, 5, 5])
    c("conv2d_kernel4_input3_pad0", [1, 1, 3, 3], [1, 1, 4, 4], pads=[0, 0, 0, 0])
    c("conv2d_kernel5_input3_pad1_ok", [1, 1, 3, 3], [1, 1, 5, 5], expect="match", pads=[1, 1, 1, 1])
    c("conv2d_kernel6_input3_pad1", [1, 1, 3, 3], [1, 1, 6, 6], pads=[1, 1, 1, 1])
    c("conv2d_kernel_taller_only", [1, 1, 3, 8], [1, 1, 5, 3])
    c("conv2d_dilation_too_wide", [1, 1, 5, 5], [1, 1, 3, 3], dilations=[3, 3])
    c("conv1d_kernel5_input3", [1, 1, 3], [1, 1, 5])
    c("conv3d_kernel_too_deep", [1, 1, 2, 4, 4], [1, 1, 3, 3, 3])
    c("conv2d_kernel_gt_input_same_upper", [1, 1, 3, 3], [1, 1, 5, 5], expect="refuse-or-match", auto_pad="SAME_UPPER")
    c("conv2d_kernel_shape_attr_mismatch", [1, 1, 6, 6], [1, 1, 3, 3], kernel_shape=[5, 5])
    c("conv2d_channels_mismatch", [1, 2, 6, 6], [1, 3, 3, 3])
    c("conv2d_group_not_dividing", [1, 3, 6, 6], [2, 1, 3, 3], group=2)
    c("maxpool_kernel_gt_input", [1, 1, 3, 3], None, op="MaxPool", kernel_shape=[5, 5])
    c("averagepool_kernel_gt_input", [1, 1, 3, 3], None, op="AveragePool", kernel_shape=[4, 4])
    c("maxpool_dilation_too_wide", [1, 1, 4, 4], None, op="MaxPool", kernel_shape=[2, 2], dilations=[5, 5])


# --- 10. invalid models -------------------------------------------------------
def gen_invalid():
    cls = "invalid-model"
    X, Y = [vi("x", [2, 3])], [vi("y", [2, 3])]
    case("two_nodes_write_same_tensor", cls, "refuse",
         model([node("Relu", ["x"], ["y"], name="r1"), node("Neg", ["x"], ["y"], name="r2")], X, Y))
    case("two_nodes_write_same_intermediate", cls, "refuse",
         model([node("Relu", ["x"], ["t"], name="r1"), node("Neg", ["x"], ["t"], name="r2"),
                node("Abs", ["t"], ["y"])], X, Y))
    case("node_overwrites_graph_input", cls, "refuse",
         model([node("Relu", ["x"], ["x"], name="r1"), node("Abs", ["x"], ["y"])], X, Y))
    case("node_overwrites_initializer", cls, "refuse",
         model([node("Relu", ["x"], ["k"], name="r1"), node("Add", ["x", "k"], ["y"])], X, Y,
               [init("k", f32(2, 3))]))
    case("same_initializer_twice", cls, "refuse",
         model([node("Add", ["x", "k"], ["y"])], X, Y, [init("k", f32(2, 3)), init("k", f32(2, 3))]))
    case("same_input_twice", cls, "refuse", model([node("Relu", ["x"], ["y"])], X + X, Y))
    case("input_and_initializer_same_name_shape_clash", cls, "refuse",
         model([node("Relu", ["x"], ["y"])], X, Y, [init("x", f32(5))]))
    case("relu_more_inputs_than_op_takes", cls, "refuse", model([node("Relu", ["x", "x"], ["y"])], X, Y))
    case("reshape_float_shape_tensor", cls, "refuse",
         model([node("Reshape", ["x", "s"], ["y"])], X, [vi("y", [3, 2])], [init("s", np.array([3, 2], np.float32))]))
    case("declared_output_dtype_contradicts", cls, "refuse",
         model([node("Relu", ["x"], ["y"])], X, [vi("y", [2, 3], I64)]))
    case("declared_output_shape_contradicts", cls, "refuse",
         model([node("Relu", ["x"], ["y"])], X, [vi("y", [3, 2])]))
    case("declared_output_rank_contradicts", cls, "refuse",
         model([node("Relu", ["x"], ["y"])], X, [vi("y", [6])]))
    case("ir_version_100", cls, "refuse", relu_model(ir=100))
    case("ir_version_0", cls, "refuse", relu_model(ir=0))
    t = init("k", f32(2, 3))
    t.float_data.extend([1.0] * 6)
    case("tensor_raw_and_typed_data", cls, "refuse", model([node("Add", ["x", "k"], ["y"])], X, Y, [t]))
    t = TensorProto(name="k", data_type=F, dims=[2, 3])
    t.float_data.extend([1.0] * 5)
    case("tensor_typed_data_too_short", cls, "refuse", model([node("Add", ["x", "k"], ["y"])], X, Y, [t]))
    t = TensorProto(name="k", data_type=F, dims=[2, -3])
    case("tensor_negative_dim", cls, "refuse", model([node("Add", ["x", "k"], ["y"])], X, Y, [t]))
    t = TensorProto(name="k", data_type=0, dims=[2, 3], raw_data=b"\0" * 24)
    case("tensor_undefined_dtype", cls, "refuse", model([node("Add", ["x", "k"], ["y"])], X, Y, [t]))
    case("constant_without_value", cls, "refuse",
         model([node("Constant", [], ["k"]), node("Add", ["x", "k"], ["y"])], X, Y))
    c2 = node("Constant", [], ["k"], value=init("kv", f32(2, 3)))
    c2.attribute.append(helper.make_attribute("value_float", 1.0))
    case("constant_two_values", cls, "refuse", model([c2, node("Add", ["x", "k"], ["y"])], X, Y))
    # "input 'b' is not produced by any node" misstates a cycle: 'b' is produced, by a later node
    cyc = ["cycle", "later", "order", "sort", "itself"]
    case("cycle_two_nodes", cls, "refuse",
         model([node("Add", ["x", "b"], ["a"], name="n1"), node("Relu", ["a"], ["b"], name="n2"),
                node("Abs", ["a"], ["y"])], X, Y), why=cyc)
    case("self_loop", cls, "refuse", model([node("Add", ["x", "a"], ["a"], name="n1"), node("Abs", ["a"], ["y"])], X, Y),
         why=cyc)
    case("nodes_out_of_order", cls, "refuse-or-match",
         model([node("Abs", ["t"], ["y"], name="second"), node("Neg", ["x"], ["t"], name="first")], X, Y),
         inputs={"x": f32(2, 3)})
    case("output_not_produced", cls, "refuse", model([node("Relu", ["x"], ["t"])], X, Y))
    case("output_is_input", cls, "refuse-or-match", model([], X, [vi("x", [2, 3])]), inputs={"x": f32(2, 3)})
    case("input_without_type", cls, "refuse",
         model([node("Relu", ["x"], ["y"])], [helper.make_value_info("x", onnx.TypeProto())], Y))
    # --const-input naming something that is not an input
    m = model([node("Reshape", ["x", "s"], ["y"])], [vi("x", [2, 3]), vi("s", [2], I64)], [vi("y", None)])

    def ci(name, binding, expect="refuse", arr=np.array([3, 2], np.int64), names=None, raw=None):
        binding = [binding] if isinstance(binding, str) else binding
        d = case(name, cls, expect, m, args=["model.onnx", "-o", "model", "--const-input"] + binding,
                 names=names or ["model.onnx"], inputs={"x": f32(2, 3)} if expect != "refuse" else None,
                 ref_inputs={"s": arr} if expect != "refuse" else None)
        if d:
            if raw is not None:
                open(os.path.join(d, "s.npy"), "wb").write(raw)
            else:
                np.save(os.path.join(d, "s.npy"), arr)
    ci("const_input_not_an_input", "nope=s.npy", names=["nope"])
    ci("const_input_names_node_output", "y=s.npy", names=["'y'"])
    ci("const_input_wrong_dtype", "s=s.npy", arr=np.array([3, 2], np.float32), names=["s.npy", "'s'"])
    ci("const_input_wrong_count", "s=s.npy", arr=np.array([6], np.int64), names=["s.npy", "'s'"])
    ci("const_input_bad_element_count_for_reshape", "s=s.npy", arr=np.array([4, 2], np.int64),
       names=["s.npy", "model.onnx"])
    ci("const_input_ok", "s=s.npy", expect="match")
    ci("const_input_twice", ["s=s.npy", "--const-input", "s=s.npy"], expect="refuse-or-match")
    ci("const_input_missing_file", "s=nope.npy", names=["nope.npy"])
    ci("const_input_empty_name", "=s.npy", names=["=s.npy", "--const-input"])


# --- 11. dims that overflow ----------------------------------------------------
def gen_dim_overflow():
    cls = "dim-overflow"
    for nm, dims in {"input_2p32_2p32_16": [2 ** 32, 2 ** 32, 16], "input_2p20_cubed": [2 ** 20] * 3,
                     "input_2p21_cubed": [2 ** 21] * 3, "input_2p40_2p40": [2 ** 40, 2 ** 40]}.items():
        case(nm, cls, "refuse", model([node("Relu", ["x"], ["y"])], [vi("x", dims)], [vi("y", dims)]))
    for nm, shp in {"expand_2p31_2p31": [2 ** 31, 2 ** 31], "expand_2p62_4": [2 ** 62, 4],
                    "expand_negative": [-2, 4]}.items():
        case(nm, cls, "refuse", model([node("Expand", ["x", "s"], ["y"])], [vi("x", [1, 1])], [vi("y", None)],
                                      [init("s", np.array(shp, np.int64))]))
    case("constantofshape_2p31_2p31", cls, "refuse",
         model([node("ConstantOfShape", ["s"], ["c"]), node("Shape", ["c"], ["sc"]),
                node("Cast", ["sc"], ["y0"], to=F), node("Add", ["x", "y0"], ["y"])],
               [vi("x", [2])], [vi("y", [2])], [init("s", np.array([2 ** 31, 2 ** 31], np.int64))]))
    # a Constant whose value's dims multiply past int64 (the fuzzer found the
    # importer's element count overflowing)
    big = TensorProto(name="kv", data_type=F, dims=[2 ** 62, 2 ** 62, 16383])
    case("constant_value_dims_overflow", cls, "refuse",
         model([node("Constant", [], ["k"], value=big), node("Add", ["x", "k"], ["y"])],
               [vi("x", [2])], [vi("y", None)]),
         names=["model.onnx", "more elements"])
    case("reshape_target_wraps_to_4", cls, "refuse",
         model([node("Reshape", ["x", "s"], ["y"])], [vi("x", [4])], [vi("y", None)],
               [init("s", np.array([2 ** 62 + 1, 4], np.int64))]))
    case("reshape_target_2p32_2p32", cls, "refuse",
         model([node("Reshape", ["x", "s"], ["y"])], [vi("x", [4])], [vi("y", None)],
               [init("s", np.array([2 ** 32, 2 ** 32, 0], np.int64))]))
    # the same target for an input with a dynamic dim (--max-shape): the
    # fuzzer found the reshape's inference multiplying it unchecked
    case("reshape_dynamic_input_target_2p32_2p32", cls, "refuse",
         model([node("Reshape", ["x", "s"], ["y"], allowzero=1)], [vi("x", ["n"])], [vi("y", None)],
               [init("s", np.array([2 ** 32, 2 ** 32, 0], np.int64))]),
         args=["model.onnx", "-o", "model", "--max-shape", "x=4"])
    # a dim_param that sums other dims' names (a KV cache's mask, "past +
    # sequence") past 2^40 at their bounds
    case("dim_param_sum_past_2p40", cls, "refuse",
         model([node("Identity", ["m"], ["y"])], [vi("x", ["n"]), vi("m", [" + ".join(["n"] * 300)])],
               [vi("y", None)]),
         args=["model.onnx", "-o", "model", "--max-shape", "x=1099511627776"])
    for nm, pads in {"conv_negative_pads": [-1, -1, -1, -1], "conv_huge_pads": [2 ** 40] * 4,
                     "conv_pads_int64_max": [INT64_MAX] * 4}.items():
        case(nm, cls, "refuse", model([node("Conv", ["x", "W"], ["y"], pads=pads)], [vi("x", [1, 1, 4, 4])],
                                      [vi("y", None)], [init("W", f32(1, 1, 2, 2))]))
    case("pad_huge", cls, "refuse",
         model([node("Pad", ["x", "p"], ["y"])], [vi("x", [2, 3])], [vi("y", None)],
               [init("p", np.array([0, 2 ** 40, 0, 2 ** 40], np.int64))]))
    for nm, idx in {"gather_const_index_too_big": [5], "gather_const_index_too_negative": [-4],
                    "gather_const_index_int64_min": [INT64_MIN], "gather_const_index_2p62": [2 ** 62]}.items():
        case(nm, cls, "refuse", model([node("Gather", ["x", "i"], ["y"], axis=0)], [vi("x", [3, 2])],
                                      [vi("y", None)], [init("i", np.array(idx, np.int64))]))
    # a run-time index out of range: the executable must refuse it
    case("gather_runtime_index_out_of_range", cls, "run-refuse",
         model([node("Gather", ["x", "i"], ["y"], axis=0)], [vi("x", [3, 2]), vi("i", [2], I64)], [vi("y", [2, 2])]),
         inputs={"x": f32(3, 2), "i": np.array([1, 1000000], np.int64)}, run={"names": ["'i'", "Gather", "index"]})
    case("slice_extreme_bounds_ok", cls, "match",
         model([node("Slice", ["x", "s", "e", "a", "st"], ["y"])], [vi("x", [4, 3])], [vi("y", None)],
               [init("s", np.array([INT64_MAX, INT64_MIN], np.int64)), init("e", np.array([INT64_MIN, INT64_MAX], np.int64)),
                init("a", np.array([0, 1], np.int64)), init("st", np.array([-1, 1], np.int64))]),
         inputs={"x": f32(4, 3)})
    case("slice_step_zero", cls, "refuse",
         model([node("Slice", ["x", "s", "e", "a", "st"], ["y"])], [vi("x", [4, 3])], [vi("y", None)],
               [init("s", np.array([0], np.int64)), init("e", np.array([4], np.int64)),
                init("a", np.array([0], np.int64)), init("st", np.array([0], np.int64))]))
    case("slice_step_int64_min", cls, "refuse-or-match",
         model([node("Slice", ["x", "s", "e", "a", "st"], ["y"])], [vi("x", [4, 3])], [vi("y", None)],
               [init("s", np.array([3], np.int64)), init("e", np.array([INT64_MIN], np.int64)),
                init("a", np.array([0], np.int64)), init("st", np.array([INT64_MIN], np.int64))]),
         inputs={"x": f32(4, 3)})
    case("graph_input_named_empty", cls, "refuse",
         model([node("Relu", [""], ["y"])], [vi("", [2, 3])], [vi("y", [2, 3])]))
    case("node_output_named_empty", cls, "refuse",
         model([node("Relu", ["x"], [""], name="r"), node("Abs", [""], ["y"])], [vi("x", [2, 3])], [vi("y", [2, 3])]))
    case("matmul_output_4tib", cls, "refuse-or-run",
         model([node("MatMul", ["x", "w"], ["y"])], [vi("x", [2 ** 20, 1]), vi("w", [1, 2 ** 20])],
               [vi("y", [2 ** 20, 2 ** 20])]),
         inputs={"x": np.ones((2 ** 20, 1), np.float32), "w": np.ones((1, 2 ** 20), np.float32)})
    case("range_count_overflows_shape", cls, "refuse",
         model([node("Range", ["s", "l", "d"], ["y"])], [], [vi("y", None)],
               [init("s", np.array(0, np.int64)), init("l", np.array(2 ** 50, np.int64)),
                init("d", np.array(1, np.int64))]))


# --- 12. misleading messages --------------------------------------------------
def gen_messages():
    cls = "messages"
    good = relu_model()
    d = case("o_is_directory", cls, "refuse", good, args=["model.onnx", "-o", "outdir"], names=["outdir"])
    if d:
        os.makedirs(os.path.join(d, "outdir"))
    d = case("o_emit_graph_is_directory", cls, "refuse", good, args=["model.onnx", "--emit=graph", "-o", "outdir"],
             names=["outdir"])
    if d:
        os.makedirs(os.path.join(d, "outdir"))
    case("o_trailing_slash", cls, "refuse", good, args=["model.onnx", "-o", "newdir/"], names=["newdir"])
    case("o_parent_missing", cls, "refuse", good, args=["model.onnx", "-o", "no/such/dir/model"], names=["no/such/dir"])
    case("o_parent_is_file", cls, "refuse", good, args=["model.onnx", "-o", "model.onnx/model"],
         names=["model.onnx/model"], why=["not a directory"])
    case("o_unwritable_proc", cls, "refuse", good, args=["model.onnx", "-o", "/proc/shardc-hostile/model"],
         names=["/proc/shardc-hostile"])
    case("o_unwritable_proc_file", cls, "refuse", good, args=["model.onnx", "-o", "/proc/version"],
         names=["/proc/version"])
    case("o_emit_graph_unwritable", cls, "refuse", good, args=["model.onnx", "--emit=graph", "-o", "/proc/x.mlir"],
         names=["/proc/x.mlir"])
    m = relu_model()
    del m.opset_import[:]
    case("no_opset_import", cls, "refuse", m)
    m = relu_model()
    m.opset_import[0].version = 0
    case("opset_version_0", cls, "refuse", m)
    m = relu_model()
    m.opset_import.extend([helper.make_opsetid("", 13)])
    case("opset_import_twice_conflicting", cls, "refuse", m)
    case("dim_minus_3", cls, "refuse", model([node("Relu", ["x"], ["y"])], [vi("x", [2, -3])], [vi("y", None)]))
    case("reshape_target_overflows", cls, "refuse",
         model([node("Reshape", ["x", "s"], ["y"])], [vi("x", [4])], [vi("y", None)],
               [init("s", np.array([INT64_MAX, INT64_MAX, 4], np.int64))]))
    case("reshape_two_minus_ones", cls, "refuse",
         model([node("Reshape", ["x", "s"], ["y"])], [vi("x", [4])], [vi("y", None)],
               [init("s", np.array([-1, -1], np.int64))]))
    bad = [node("MatMul", ["x", "W"], ["y"], name="evil\nnode")]
    case("newline_in_node_name", cls, "refuse",
         model(bad, [vi("x", [2, 3])], [vi("y", None)], [init("W", f32(4, 2))]))
    case("newline_in_tensor_name", cls, "refuse",
         model([node("Relu", ["x\ny"], ["y"])], [vi("x\ny", [2, "dyn"])], [vi("y", None)]))
    case("carriage_return_and_escape_in_name", cls, "refuse",
         model([node("MatMul", ["x", "W"], ["y"], name="a\r\x1b[2Kb\x07")], [vi("x", [2, 3])], [vi("y", None)],
               [init("W", f32(4, 2))]))
    case("nul_in_node_name", cls, "refuse",
         model([node("MatMul", ["x", "W"], ["y"], name="a\x00b")], [vi("x", [2, 3])], [vi("y", None)],
               [init("W", f32(4, 2))]))
    raw = model([node("MatMul", ["x", "W"], ["y"], name="a@@b")], [vi("x", [2, 3])], [vi("y", None)],
                [init("W", f32(4, 2))]).SerializeToString()
    case("invalid_utf8_in_node_name", cls, "refuse", raw.replace(b"a@@b", b"a\xff\xfeb"))
    case("node_without_outputs", cls, "refuse",
         model([node("Relu", ["x"], [], name="r"), node("Abs", ["x"], ["y"])], [vi("x", [2, 3])], [vi("y", [2, 3])]))
    d = case("model_is_directory", cls, "refuse", None, args=["adir", "-o", "model"], names=["adir"])
    if d:
        os.makedirs(os.path.join(d, "adir"))
    case("model_empty_file", cls, "refuse", b"", names=["model.onnx"])
    case("model_dev_null", cls, "refuse", None, args=["/dev/null", "-o", "model"], names=["/dev/null"])
    case("model_dev_zero", cls, "refuse", None, args=["/dev/zero", "-o", "model"], names=["/dev/zero"])
    d = case("model_fifo", cls, "refuse", None, args=["pipe.onnx", "-o", "model"], names=["pipe.onnx"])
    if d:
        os.mkfifo(os.path.join(d, "pipe.onnx"))
    case("model_missing", cls, "refuse", None, args=["nope.onnx", "-o", "model"], names=["nope.onnx"])
    case("model_empty_path", cls, "refuse", None, args=["", "-o", "model"], names=["''", "\"\"", "model path", "empty"])
    case("unknown_flag", cls, "refuse", good, args=["model.onnx", "--frobnicate", "-o", "model"],
         names=["--frobnicate", "frobnicate"])
    case("bad_emit_value", cls, "refuse", good, args=["model.onnx", "--emit=bogus", "-o", "model"], names=["bogus"])
    case("bad_target", cls, "refuse", good, args=["model.onnx", "--target=tpu", "-o", "model"], names=["tpu"])
    case("bad_precision", cls, "refuse", good, args=["model.onnx", "--precision=fp8", "-o", "model"], names=["fp8"])
    case("bad_cpu", cls, "refuse", good, args=["model.onnx", "--cpu=notacpu", "-o", "model"], names=["notacpu"])
    case("two_models", cls, "refuse", good, args=["model.onnx", "model.onnx", "-o", "model"],
         names=["model.onnx", "positional"])
    case("exe_to_stdout", cls, "refuse", good, args=["model.onnx"], names=["-o", "stdout"])


# --- own: protobuf --------------------------------------------------------------
def gen_protobuf():
    cls = "protobuf"
    data = model([node("MatMul", ["x", "W"], ["y"])], [vi("x", [2, 8])], [vi("y", [2, 8])],
                 [init("W", f32(8, 8))]).SerializeToString()
    for frac in (1, 10, 50, 90, 99):
        case("truncated_%d_percent" % frac, cls, "refuse", data[: len(data) * frac // 100])
    case("truncated_last_byte", cls, "refuse", data[:-1])
    for seed in range(4):
        r = np.random.default_rng(seed)
        case("random_bytes_%d" % seed, cls, "refuse", r.integers(0, 256, 200 + 1000 * seed, dtype=np.uint8).tobytes())
    case("zero_bytes_4k", cls, "refuse", b"\0" * 4096)
    # field 7 (graph), length-delimited, claiming 2^60 bytes
    case("graph_length_2p60", cls, "refuse", b"\x08\x08\x3a" + bytes([0x80] * 8 + [0x10]))
    # a graph whose nodes nest unknown groups 100,000 deep
    case("deep_nesting", cls, "refuse", b"\x08\x08\x3a" + b"\x0a\xff\xff\x03" + b"\x0b" * 100000)
    case("tensorproto_not_model", cls, "refuse", init("W", f32(8, 8)).SerializeToString())
    case("json_text_model", cls, "refuse", b'{"irVersion": "8", "graph": {"node": []}}\n')
    import gzip
    case("gzipped_model", cls, "refuse", gzip.compress(data))
    # a valid model followed by garbage (protobuf merges concatenations)
    case("model_plus_random_tail", cls, "refuse-or-match", data + b"\x3a\x05junk!",
         inputs={"x": f32(2, 8)})
    m = relu_model()
    m.graph.node[0].op_type = "Relu\x00Abs"
    case("nul_in_op_type", cls, "refuse", m)


# --- own: attributes ------------------------------------------------------------
def gen_attributes():
    cls = "attributes"
    X = [vi("x", [2, 3])]

    def at(name, op, attrs, ins=("x",), outs_dims=None, inits=(), xin=X, expect="refuse", raw_attrs=()):
        n = node(op, list(ins), ["y"], name="n_" + op, **attrs)
        n.attribute.extend(raw_attrs)
        case(name, cls, expect, model([n], xin, [vi("y", outs_dims)], inits))
    at("softmax_axis_float", "Softmax", {"axis": 1.5})
    at("softmax_axis_string", "Softmax", {"axis": "one"})
    at("softmax_axis_tensor", "Softmax", {"axis": init("t", np.array(1, np.int64))})
    at("softmax_axis_100", "Softmax", {"axis": 100})
    at("softmax_axis_int64_min", "Softmax", {"axis": INT64_MIN})
    at("concat_axis_minus_100", "Concat", {"axis": -100}, ins=("x", "x"))
    at("concat_no_axis", "Concat", {}, ins=("x", "x"))
    at("gather_axis_5", "Gather", {"axis": 5}, ins=("x", "i"), inits=[init("i", np.array([0], np.int64))])
    at("transpose_perm_out_of_range", "Transpose", {"perm": [0, 5]})
    at("transpose_perm_duplicate", "Transpose", {"perm": [0, 0]})
    at("transpose_perm_wrong_length", "Transpose", {"perm": [1, 0, 2]})
    at("transpose_perm_int64_min", "Transpose", {"perm": [INT64_MIN, 0]})
    at("flatten_axis_10", "Flatten", {"axis": 10})
    at("leakyrelu_alpha_ints", "LeakyRelu", {"alpha": [1, 2]})
    at("cast_to_999", "Cast", {"to": 999})
    at("cast_to_string", "Cast", {"to": TensorProto.STRING})
    at("cast_to_negative", "Cast", {"to": -1})
    a = onnx.AttributeProto(name="axis")  # no type, no value
    at("attribute_without_type", "Softmax", {}, raw_attrs=[a])
    a = onnx.AttributeProto(name="axis", type=onnx.AttributeProto.INT, i=0)
    at("attribute_twice", "Softmax", {"axis": 1}, raw_attrs=[a])
    a = onnx.AttributeProto(name="axis", type=onnx.AttributeProto.FLOAT, i=1)  # type says FLOAT, value in i
    at("attribute_type_mismatch_value", "Softmax", {}, raw_attrs=[a])
    X4 = [vi("x", [1, 1, 6, 6])]
    W = [init("W", f32(1, 1, 3, 3))]
    for nm, attrs in {"conv_strides_zero": {"strides": [0, 0]}, "conv_strides_negative": {"strides": [-1, -1]},
                      "conv_dilations_zero": {"dilations": [0, 0]}, "conv_group_zero": {"group": 0},
                      "conv_group_negative": {"group": -1}, "conv_strides_2p62": {"strides": [2 ** 62, 2 ** 62]},
                      "conv_kernel_shape_huge": {"kernel_shape": [2 ** 40, 2 ** 40]},
                      "conv_pads_wrong_length": {"pads": [1, 1]}, "conv_auto_pad_bogus": {"auto_pad": "SIDEWAYS"}}.items():
        at(nm, "Conv", attrs, ins=("x", "W"), inits=W, xin=X4)
    at("maxpool_strides_zero", "MaxPool", {"kernel_shape": [2, 2], "strides": [0, 0]}, xin=X4)
    at("maxpool_no_kernel_shape", "MaxPool", {}, xin=X4)
    at("maxpool_kernel_zero", "MaxPool", {"kernel_shape": [0, 0]}, xin=X4)
    case("topk_k_gt_dim", cls, "refuse",
         model([node("TopK", ["x", "k"], ["y", "yi"], axis=1)], X, [vi("y", None), vi("yi", None, I64)],
               [init("k", np.array([10], np.int64))]), why=["10"])
    case("split_sizes_mismatch", cls, "refuse",
         model([node("Split", ["x", "sp"], ["y", "y2"], axis=1)], X, [vi("y", None), vi("y2", None)],
               [init("sp", np.array([1, 1], np.int64))]))
    case("split_attribute_at_opset11_mismatch", cls, "refuse",
         model([node("Split", ["x"], ["y", "y2"], axis=1, split=[1, 1])], X, [vi("y", None), vi("y2", None)],
               opset=11))
    at("resize_mode_bogus", "Resize", {"mode": "teleport"}, ins=("x4", "", "sc"), xin=[vi("x4", [1, 1, 2, 2])],
       inits=[init("sc", np.array([1, 1, 2, 2], np.float32))])
    case("einsum_bad_equation", cls, "refuse",
         model([node("Einsum", ["x", "W"], ["y"], equation="ij,jk->ik->q")], X, [vi("y", None)],
               [init("W", f32(3, 4))]), why=["equation", "->", "label"])
    case("trilu_upper_5", cls, "refuse-or-match", model([node("Trilu", ["x"], ["y"], upper=5)], X, [vi("y", None)]),
         inputs={"x": f32(2, 3)})


# --- own: types -----------------------------------------------------------------
def gen_types():
    cls = "types"
    case("input_dtype_99", cls, "refuse", model([node("Relu", ["x"], ["y"])], [vi("x", [2, 3], 99)], [vi("y", None)]))
    case("input_dtype_undefined", cls, "refuse",
         model([node("Relu", ["x"], ["y"])], [vi("x", [2, 3], 0)], [vi("y", None)]))
    case("input_complex64", cls, "refuse",
         model([node("Relu", ["x"], ["y"])], [vi("x", [2, 3], TensorProto.COMPLEX64)], [vi("y", None)]))
    case("initializer_dtype_99", cls, "refuse",
         model([node("Add", ["x", "k"], ["y"])], [vi("x", [2])], [vi("y", None)],
               [TensorProto(name="k", data_type=99, dims=[2], raw_data=b"\0" * 8)]))
    case("string_initializer", cls, "refuse",
         model([node("Add", ["x", "k"], ["y"])], [vi("x", [2])], [vi("y", None)],
               [helper.make_tensor("k", TensorProto.STRING, [2], [b"a", b"b"])]))
    sp = helper.make_sparse_tensor(helper.make_tensor("kv", F, [2], [1.0, 2.0]),
                                   helper.make_tensor("ki", I64, [2], [0, 3]), [2, 2])
    g = helper.make_graph([node("Add", ["x", "kv"], ["y"])], "g", [vi("x", [2, 2])], [vi("y", [2, 2])],
                          sparse_initializer=[sp])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    case("sparse_initializer", cls, "refuse-or-match", m, inputs={"x": f32(2, 2)}, why=["sparse"])
    sp = helper.make_sparse_tensor(helper.make_tensor("kv", F, [2], [1.0, 2.0]),
                                   helper.make_tensor("ki", I64, [2], [0, 400]), [2, 2])
    g = helper.make_graph([node("Add", ["x", "kv"], ["y"])], "g", [vi("x", [2, 2])], [vi("y", [2, 2])],
                          sparse_initializer=[sp])
    case("sparse_initializer_index_out_of_range", cls, "refuse",
         helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), why=["sparse"])
    case("add_bool", cls, "refuse",
         model([node("Add", ["x", "x"], ["y"])], [vi("x", [2], TensorProto.BOOL)], [vi("y", None, TensorProto.BOOL)]),
         why=["bool", "BOOL", "i1"])
    case("add_mixed_dtypes", cls, "refuse",
         model([node("Add", ["x", "k"], ["y"])], [vi("x", [2])], [vi("y", None)], [init("k", np.array([1, 2], np.int64))]))
    case("matmul_rank_mismatch", cls, "refuse",
         model([node("MatMul", ["x", "W"], ["y"])], [vi("x", [2, 3, 4])], [vi("y", None)], [init("W", f32(5))]))
    case("matmul_scalar", cls, "refuse",
         model([node("MatMul", ["x", "W"], ["y"])], [vi("x", [])], [vi("y", None)], [init("W", f32(3))]))
    case("concat_rank_mismatch", cls, "refuse",
         model([node("Concat", ["x", "k"], ["y"], axis=0)], [vi("x", [2, 3])], [vi("y", None)], [init("k", f32(3))]))
    case("add_broadcast_incompatible", cls, "refuse",
         model([node("Add", ["x", "k"], ["y"])], [vi("x", [2, 3])], [vi("y", None)], [init("k", f32(4))]))
    case("where_broadcast_incompatible", cls, "refuse",
         model([node("Where", ["c", "x", "k"], ["y"])], [vi("c", [2, 3], TensorProto.BOOL), vi("x", [2, 3])],
               [vi("y", None)], [init("k", f32(5, 1, 4))]))
    case("conv_input_rank_2", cls, "refuse",
         model([node("Conv", ["x", "W"], ["y"])], [vi("x", [4, 4])], [vi("y", None)], [init("W", f32(1, 1, 3, 3))]))
    seq = helper.make_tensor_sequence_value_info("x", F, [2])
    case("input_is_sequence", cls, "refuse", model([node("Identity", ["x"], ["y"])], [seq], [vi("y", None)]))
    t = onnx.TypeProto()
    t.tensor_type.elem_type = F  # no shape at all
    case("input_without_shape", cls, "refuse",
         model([node("Relu", ["x"], ["y"])], [helper.make_value_info("x", t)], [vi("y", None)]))
    case("gather_float_indices", cls, "refuse",
         model([node("Gather", ["x", "i"], ["y"])], [vi("x", [3, 2])], [vi("y", None)],
               [init("i", np.array([0.0], np.float32))]))


# --- own: command-line specs ----------------------------------------------------
def gen_cli():
    cls = "cli"
    dyn = model([node("Relu", ["x"], ["y"])], [vi("x", ["b", 3])], [vi("y", ["b", 3])])
    for nm, spec, expect in [("shape_empty_dims", "x=", "refuse"), ("shape_empty_name", "=2x3", "refuse"),
                             ("shape_negative", "x=2x-3", "refuse"), ("shape_zero", "x=0x3", "refuse-or-match"),
                             ("shape_huge", "x=99999999999999999999x3", "refuse"),
                             ("shape_2p40", "x=1099511627777x3", "refuse"),
                             ("shape_product_overflow", "x=1099511627775x1099511627775", "refuse"),
                             ("shape_trailing_x", "x=2x3x", "refuse"), ("shape_double_x", "x=2xx3", "refuse"),
                             ("shape_hex", "x=0x10x3", "refuse"), ("shape_spaces", "x= 2x3", "refuse"),
                             ("shape_static_dim_contradicts", "x=2x4", "refuse"),
                             ("shape_no_equals", "x2x3", "refuse"), ("shape_unicode", "x=2×3", "refuse")]:
        case("input_shape_" + nm, cls, expect, dyn, args=["model.onnx", "-o", "model", "--input-shape", spec],
             names=[spec.split("=")[-1] if "=" in spec else spec, spec, "'x'", "model.onnx"],
             inputs={"x": f32(*([0, 3] if nm == "shape_zero" else [2, 3]))} if expect != "refuse" else None)
    case("input_shape_twice_conflicting", cls, "refuse", dyn,
         args=["model.onnx", "-o", "model", "--input-shape", "x=2x3", "--input-shape", "x=4x3"],
         names=["x=4x3", "x=2x3", "'x'"])
    m = model([node("Reshape", ["x", "s"], ["y"])], [vi("x", [2, 3]), vi("s", [2], I64)], [vi("y", None)])

    def ci(name, content, expect="refuse", fn="s.npy"):
        d = case("const_input_" + name, cls, expect, m, args=["model.onnx", "-o", "model", "--const-input", "s=" + fn],
                 names=[fn, "'s'"])
        if d:
            p = os.path.join(d, fn)
            if content == "DIR":
                os.makedirs(p)
            elif callable(content):
                content(p)
            else:
                open(p, "wb").write(content)
    good = _npy_bytes(np.array([3, 2], np.int64))
    ci("truncated_npy", good[:-5])
    ci("header_only_npy", good[:good.index(b"\n") + 1])
    ci("garbage", b"not a numpy file at all")
    ci("empty_file", b"")
    ci("directory", "DIR")
    ci("npy_object_dtype", lambda p: np.save(p, np.array([3, 2], dtype=object), allow_pickle=True))
    ci("npy_header_len_huge", b"\x93NUMPY\x01\x00\xff\xff" + b" " * 64)
    ci("npy_shape_huge", _npy_raw("<i8", "(1099511627776,)", b"\0" * 16))
    ci("npy_negative_shape", _npy_raw("<i8", "(-2,)", b"\0" * 16))
    ci("pb_garbage", b"\xff\xff\xff\xff", fn="s.pb")
    ci("pb_truncated", init("s", np.array([3, 2], np.int64)).SerializeToString()[:-3], fn="s.pb")
    ci("dev_zero", lambda p: os.symlink("/dev/zero", p))


def _npy_bytes(arr):
    import io
    b = io.BytesIO()
    np.save(b, arr)
    return b.getvalue()


def _npy_raw(descr, shape, data, fortran=False, version=1):
    hdr = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape)
    pad = 64 - (10 + len(hdr) + 1) % 64
    hdr = (hdr + " " * pad + "\n").encode()
    return b"\x93NUMPY" + bytes([version, 0]) + len(hdr).to_bytes(2, "little") + hdr + data


# --- own: executables run with bad inputs ----------------------------------------
def gen_exe_inputs():
    cls = "exe-inputs"
    m = model([node("MatMul", ["x", "W"], ["y"])], [vi("x", [2, 8])], [vi("y", [2, 4])], [init("W", f32(8, 4))])
    good = f32(2, 8)

    def ex(name, payload=None, args=None, expect="run-refuse", fn="x_bad.npy", names=None, inputs=None):
        """payload: bytes (written to fn), an array (np.save), 'DIR', or a callable(path)."""
        run_args = list(args or [])
        ins = {} if inputs is None else inputs
        if payload is not None and args is None:
            run_args = ["--input", "x=" + fn]
        d = case("exe_" + name, cls, expect, m, inputs=ins,
                 run={"args": run_args, "names": names or [fn, "'x'", "x="]},
                 ref_inputs={"x": good} if payload is not None and expect != "run-refuse" else None)
        if d and payload is not None:
            p = os.path.join(d, fn)
            if isinstance(payload, bytes):
                open(p, "wb").write(payload)
            elif isinstance(payload, str) and payload == "DIR":
                os.makedirs(p)
            elif callable(payload):
                payload(p)
            else:
                np.save(p, payload)
    ex("wrong_dtype_f64", good.astype(np.float64))
    ex("wrong_dtype_i64", np.zeros((2, 8), np.int64))
    ex("wrong_shape", f32(2, 9))
    ex("wrong_rank", f32(16))
    ex("scalar", np.array(1.0, np.float32))
    ex("zero_size", np.zeros((0, 8), np.float32))
    gb = _npy_bytes(good)
    ex("truncated_data", gb[:-7])
    ex("truncated_header", gb[:20])
    ex("header_len_huge", b"\x93NUMPY\x01\x00\xff\xff" + b" " * 64)
    ex("garbage", b"hello, world")
    ex("empty_file", b"")
    ex("directory", "DIR")
    ex("missing_file", None, args=["--input", "x=nope.npy"], names=["nope.npy"])
    ex("dev_zero", lambda p: os.symlink("/dev/zero", p))
    ex("fifo", lambda p: os.mkfifo(p))
    ex("shape_huge", _npy_raw("<f4", "(1099511627776, 8)", good.tobytes()))
    ex("shape_negative", _npy_raw("<f4", "(-2, 8)", good.tobytes()))
    ex("shape_overflow", _npy_raw("<f4", "(4294967296, 4294967296, 16)", good.tobytes()))
    ex("object_dtype", lambda p: np.save(p, np.array([[1] * 8] * 2, dtype=object), allow_pickle=True))
    ex("descr_bogus", _npy_raw("<q9", "(2, 8)", good.tobytes()))
    ex("big_endian", good.astype(">f4"), expect="run-refuse-or-match")
    ex("fortran_order", np.asfortranarray(good), expect="run-refuse-or-match")
    ex("npy_version_2", lambda p: np.lib.format.write_array(open(p, "wb"), good, version=(2, 0)),
       expect="run-refuse-or-match")
    ex("trailing_bytes", gb + b"\0" * 16)
    ex("pb_wrong_dtype", init("x", np.zeros((2, 8), np.int32)).SerializeToString(), fn="x_bad.pb")
    ex("pb_truncated", init("x", good).SerializeToString()[:-9], fn="x_bad.pb")
    ex("pb_garbage", b"\xff\xfe\xfd" * 5, fn="x_bad.pb")
    for nm, oname in [("dotdot", "../../pwned"), ("absolute", os.path.join(OUT, "exe_output_name_absolute", "abs_pwned")),
                      ("slash", "sub/dir/pwned")]:
        mm = model([node("Relu", ["x"], [oname])], [vi("x", [2, 8])], [vi(oname, [2, 8])])
        case("exe_output_name_" + nm, cls, "refuse-or-match", mm, inputs={"x": good},
             run={"must_not_exist": [oname + ".npy", "pwned.npy", "../pwned.npy", "_out/sub", "abs_pwned.npy"]})
    ex("unknown_input_name", None, args=["--input", "zz=in_x.npy"], inputs={"x": good}, names=["zz"])
    ex("missing_input", None, args=[], inputs={}, names=["'x'", "x"])
    ex("input_twice", None, args=["--input", "x=in_x.npy"], inputs={"x": good}, names=["'x'"])
    ex("input_no_equals", None, args=["--input", "in_x.npy"], names=["in_x.npy", "--input"])
    ex("output_is_file", None, args=["--output", "in_x.npy"], inputs={"x": good}, names=["in_x.npy"])
    for nm, opt in [("threads_zero", ["--threads", "0"]), ("threads_negative", ["--threads", "-1"]),
                    ("threads_abc", ["--threads", "abc"]), ("threads_huge", ["--threads", "99999999999"]),
                    ("iterations_negative", ["--benchmark", "--iterations", "-1"]),
                    ("device_tpu", ["--device", "tpu"]), ("output_format_bogus", ["--output-format", "xml"]),
                    ("unknown_option", ["--frobnicate"])]:
        ex(nm, None, args=opt, inputs={"x": good}, names=[opt[-1], opt[0]],
           expect="run-refuse-or-match" if nm == "threads_zero" else "run-refuse")


# --- own: executables with a broken weights file -----------------------------------
def gen_exe_weights():
    cls = "exe-weights"
    m = model([node("MatMul", ["x", "W"], ["y"])], [vi("x", [2, 8])], [vi("y", [2, 4])], [init("W", f32(8, 4))])
    other = model([node("MatMul", ["x", "W"], ["y"])], [vi("x", [2, 8])], [vi("y", [2, 4])], [init("W", f32(8, 4))])
    other2 = model([node("MatMul", ["x", "W"], ["y"])], [vi("x", [2, 8])], [vi("y", [2, 16])], [init("W", f32(8, 16))])
    good = f32(2, 8)

    def w(name, prepare, args=(), names=("model.weights",), expect="run-refuse", precompile=None, extra=None):
        d = case("weights_" + name, cls, expect, m, inputs={"x": good},
                 run={"args": list(args), "names": list(names), "prepare": prepare},
                 precompile=precompile or [])
        if d and extra:
            for rel, mm in extra.items():
                open(os.path.join(d, rel), "wb").write(mm.SerializeToString())
    w("truncated_half", [["truncate", "model.weights", 0.5]])
    w("truncated_to_8", [["truncate", "model.weights", 8]])
    w("empty", [["truncate", "model.weights", 0]])
    w("byte_flipped_in_data", [["flip", "model.weights", -40]])
    w("byte_flipped_in_header", [["flip", "model.weights", 3]])
    w("byte_flipped_at_16", [["flip", "model.weights", 16]])
    w("appended_garbage", [["append", "model.weights", 4096]], expect="run-refuse-or-match")
    w("missing", [["remove", "model.weights"]])
    w("directory", [["remove", "model.weights"], ["mkdir", "model.weights"]])
    w("dev_zero", [["remove", "model.weights"], ["symlink", "/dev/zero", "model.weights"]])
    w("dev_null", [], args=["--weights", "/dev/null"], names=["/dev/null"])
    w("fifo", [["remove", "model.weights"], ["mkfifo", "model.weights"]])
    w("foreign_same_shape", [["copy", "other.weights", "model.weights"]],
      precompile=[["other.onnx", "-o", "other"]], extra={"other.onnx": other}, expect="run-refuse-or-match")
    w("foreign_other_shape", [["copy", "other2.weights", "model.weights"]],
      precompile=[["other2.onnx", "-o", "other2"]], extra={"other2.onnx": other2})
    w("random_bytes_same_size", [["randomize", "model.weights"]])
    w("weights_flag_missing_file", [], args=["--weights", "nope.weights"], names=["nope.weights"])



# --- more cases, filed under the classes above -----------------------------------
def gen_more():
    # ext-data: loops, odd spellings, many tensors in one file (fd leaks), sharing
    ext_case("ext_symlink_loop", [("location", "a.bin")],
             setup=lambda d: (os.symlink("b.bin", os.path.join(d, "model/a.bin")),
                              os.symlink("a.bin", os.path.join(d, "model/b.bin"))))
    ext_case("ext_location_trailing_slash", [("location", "w.bin/")])
    ext_case("ext_location_newline", [("location", "w\n.bin")])
    ext_case("ext_location_dot_slash_legit", [("location", "./w.bin")], expect="match")
    n = 1100
    big = f32(n, 4)
    tensors = []
    for i in range(n):
        tensors.append(ext_tensor("e%d" % i, [4], [("location", "many.bin"), ("offset", str(16 * i)), ("length", "16")]))
    m = model([node("Concat", ["e%d" % i for i in range(n)], ["c"], axis=0), node("Add", ["x", "c"], ["y"])],
              [vi("x", [n * 4])], [vi("y", [n * 4])], tensors)
    case("ext_1100_tensors_one_file", "ext-data", "match", m, model_path="model/model.onnx",
         inputs={"x": f32(n * 4)}, files={"model/many.bin": big.tobytes()},
         args=["model/model.onnx", "-o", "model/model"], exe="model/model")
    m = model([node("Add", ["x", "W"], ["t"]), node("Mul", ["t", "W2"], ["y"])], [vi("x", [4, 4])], [vi("y", [4, 4])],
              [ext_tensor("W", [4, 4], [("location", "w.bin")]), ext_tensor("W2", [4, 4], [("location", "w.bin")])])
    case("ext_two_tensors_share_a_file", "ext-data", "match", m, model_path="model/model.onnx",
         inputs={"x": f32(4, 4)}, files={"model/w.bin": WDATA.tobytes()},
         args=["model/model.onnx", "-o", "model/model"], exe="model/model")

    # nan-inf through fused patterns (GELU, LayerNorm, attention, epilogues)
    cls = "nan-inf"
    X = SPECIAL.reshape(2, 8)
    X4 = SPECIAL.reshape(1, 1, 4, 4)
    sq2 = init("sq2", np.array(np.sqrt(2.0), np.float32))
    case("naninf_gelu_pattern", cls, "match",
         model([node("Div", ["x", "sq2"], ["d"]), node("Erf", ["d"], ["e"]), node("Add", ["e", "one"], ["a"]),
                node("Mul", ["x", "a"], ["m"]), node("Mul", ["m", "half"], ["y"])], [vi("x", [2, 8])], [vi("y", [2, 8])],
               [sq2, init("one", np.array(1, np.float32)), init("half", np.array(0.5, np.float32))]), inputs={"x": X})
    case("naninf_layernorm_pattern", cls, "match",
         model([node("ReduceMean", ["x"], ["mu"], axes=[-1]), node("Sub", ["x", "mu"], ["dx"]),
                node("Pow", ["dx", "two"], ["sq"]), node("ReduceMean", ["sq"], ["var"], axes=[-1]),
                node("Add", ["var", "eps"], ["ve"]), node("Sqrt", ["ve"], ["sd"]), node("Div", ["dx", "sd"], ["n"]),
                node("Mul", ["n", "g"], ["ng"]), node("Add", ["ng", "bb"], ["y"])], [vi("x", [2, 8])], [vi("y", [2, 8])],
               [init("two", np.array(2, np.float32)), init("eps", np.array(1e-5, np.float32)), init("g", f32(8)),
                init("bb", f32(8))]), inputs={"x": X})
    mask = np.triu(np.full((4, 4), -INF, np.float32), 1)
    mask[0, :] = -INF  # a fully masked row: softmax of all -inf is NaN
    case("naninf_attention_fully_masked_row", cls, "match",
         model([node("Transpose", ["x"], ["kt"], perm=[0, 2, 1]), node("MatMul", ["x", "kt"], ["s"]),
                node("Mul", ["s", "sc"], ["ss"]), node("Add", ["ss", "mask"], ["sm"]),
                node("Softmax", ["sm"], ["p"], axis=-1), node("MatMul", ["p", "x"], ["y"])],
               [vi("x", [1, 4, 8])], [vi("y", [1, 4, 8])],
               [init("sc", np.array(0.35, np.float32)), init("mask", mask)]), inputs={"x": f32(1, 4, 8)})
    case("naninf_conv_relu_fused", cls, "match",
         model([node("Conv", ["x", "W", "b"], ["c"]), node("Relu", ["c"], ["y"])], [vi("x", [1, 1, 4, 4])],
               [vi("y", [1, 2, 3, 3])], [init("W", f32(2, 1, 2, 2)), init("b", f32(2))]), inputs={"x": X4})
    Wm = RNG.uniform(-1, 1, (8, 3)).astype(np.float32)
    case("naninf_matmul_bias_relu_fused", cls, "match",
         model([node("MatMul", ["x", "W"], ["m"]), node("Add", ["m", "b"], ["a"]), node("Relu", ["a"], ["y"])],
               [vi("x", [2, 8])], [vi("y", [2, 3])], [init("W", Wm), init("b", f32(3))]), inputs={"x": X})
    case("naninf_batchnorm", cls, "match",
         model([node("BatchNormalization", ["x", "g", "b", "mu", "var"], ["y"])], [vi("x", [1, 2, 2, 4])],
               [vi("y", [1, 2, 2, 4])], [init("g", f32(2)), init("b", f32(2)), init("mu", f32(2)),
                                         init("var", np.array([0.5, 2.0], np.float32))]),
         inputs={"x": SPECIAL.reshape(1, 2, 2, 4)})
    L = np.array([[1e30, 1e30, -1e30, 0], [88, 89, 90, 100], [-1e30, -1e30, -1e30, -1e30], [3.4e38, 3.4e38, 0, 0]],
                 np.float32)
    for op in ("Softmax", "LogSoftmax"):
        case("naninf_%s_large_finite" % op.lower(), cls, "match",
             model([node(op, ["x"], ["y"], axis=-1)], [vi("x", [4, 4])], [vi("y", [4, 4])]), inputs={"x": L})
    case("naninf_clip_min_gt_max", cls, "match",
         model([node("Clip", ["x", "lo", "hi"], ["y"])], [vi("x", [2, 8])], [vi("y", [2, 8])],
               [init("lo", np.array(1, np.float32)), init("hi", np.array(-1, np.float32))]), inputs={"x": X})
    case("naninf_transpose_concat_gather", cls, "match",
         model([node("Transpose", ["x"], ["t"], perm=[1, 0]), node("Concat", ["t", "t"], ["c"], axis=1),
                node("Gather", ["c", "i"], ["y"], axis=0)], [vi("x", [2, 8])], [vi("y", [3, 4])],
               [init("i", np.array([0, 7, -1], np.int64))]), inputs={"x": X})
    case("naninf_quantize_saturates_inf", "nan-inf", "refuse-or-match",
         model([node("QuantizeLinear", ["x", "s", "z"], ["y"])], [vi("x", [2, 8])], [vi("y", [2, 8], TensorProto.UINT8)],
               [init("s", np.array(0.1, np.float32)), init("z", np.array(128, np.uint8))]),
         inputs={"x": np.where(np.isnan(X), 0, X).astype(np.float32)})
    case("naninf_quantize_nan", "nan-inf", "refuse-or-run",
         model([node("QuantizeLinear", ["x", "s", "z"], ["y"])], [vi("x", [2, 8])], [vi("y", [2, 8], TensorProto.UINT8)],
               [init("s", np.array(0.1, np.float32)), init("z", np.array(128, np.uint8))]), inputs={"x": X})

    # int-fold: float Range with NaN / Inf / zero step, quantize scale 0, Trilu k extremes
    for nm, (a, b, c) in {"range_float_nan_limit": (0.0, NAN, 1.0), "range_float_inf_limit": (0.0, INF, 1.0),
                          "range_float_zero_step": (0.0, 5.0, 0.0), "range_float_tiny_step": (0.0, 1e10, 1e-10)}.items():
        case(nm, "int-fold", "refuse",
             model([node("Range", ["s", "l", "d"], ["r"], name="range"), node("ReduceSum", ["r"], ["rs"], keepdims=1),
                    node("Add", ["x", "rs"], ["y"])], [vi("x", [1])], [vi("y", [1])],
                   [init("s", np.array(a, np.float32)), init("l", np.array(b, np.float32)),
                    init("d", np.array(c, np.float32))]))
    case("quantize_scale_zero_folded", "int-fold", "refuse-or-match",
         model([node("QuantizeLinear", ["c", "s", "z"], ["q"]), node("Cast", ["q"], ["qf"], to=F),
                node("Add", ["x", "qf"], ["y"])], [vi("x", [3])], [vi("y", [3])],
               [init("c", np.array([1.0, -1.0, 0.0], np.float32)), init("s", np.array(0.0, np.float32)),
                init("z", np.array(0, np.uint8))]),
         inputs={"x": np.zeros(3, np.float32)}, expected={"y": np.array([255, 0, 0], np.float32)})
    for nm, k, up in [("trilu_k_int64_min_upper", INT64_MIN, 1), ("trilu_k_int64_max_upper", INT64_MAX, 1),
                      ("trilu_k_int64_min_lower", INT64_MIN, 0), ("trilu_k_int64_max_lower", INT64_MAX, 0)]:
        case(nm, "int-fold", "refuse-or-match",
             model([node("Trilu", ["x", "k"], ["y"], upper=up)], [vi("x", [3, 4])], [vi("y", [3, 4])],
                   [init("k", np.array(k, np.int64))]), inputs={"x": f32(3, 4)})

    # dim-overflow: broadcast products, Resize scales, Pad, axes
    cls = "dim-overflow"
    case("broadcast_chain_2p60", cls, "refuse",
         model([node("Add", ["a", "b"], ["ab"]), node("Add", ["ab", "c"], ["y"])],
               [vi("a", [2 ** 20, 1, 1]), vi("b", [1, 2 ** 20, 1]), vi("c", [1, 1, 2 ** 20])], [vi("y", None)]))
    R = [vi("x", [1, 1, 3, 3])]
    for nm, sc, exp in [("resize_scales_nan", [1, 1, NAN, 2], "refuse"), ("resize_scales_inf", [1, 1, INF, 2], "refuse"),
                        ("resize_scales_negative", [1, 1, -2, 2], "refuse"), ("resize_scales_1e10", [1, 1, 1e10, 1e10], "refuse"),
                        ("resize_scales_zero", [1, 1, 0, 2], "refuse")]:
        case(nm, cls, exp, model([node("Resize", ["x", "", "sc"], ["y"], mode="nearest")], R, [vi("y", None)],
                                 [init("sc", np.array(sc, np.float32))]),
             inputs={"x": f32(1, 1, 3, 3)} if exp != "refuse" else None)
    for nm, attrs, sc in [("resize_nearest_ceil_asymmetric_up", {"nearest_mode": "ceil",
                                                                 "coordinate_transformation_mode": "asymmetric"}, 2.5),
                          ("resize_nearest_ceil_half_pixel_down", {"nearest_mode": "ceil"}, 0.6),
                          ("resize_linear_align_corners_up", {"mode": "linear",
                                                              "coordinate_transformation_mode": "align_corners"}, 1.7),
                          ("resize_cubic_half_pixel_up", {"mode": "cubic"}, 2.3)]:
        attrs.setdefault("mode", "nearest")
        # align_corners with a scale whose output length is not whole: ONNX's
        # reference implementation (and the backend test data, e.g.
        # test_resize_downsample_scales_linear_align_corners) divides by
        # scale * length - 1, ONNX Runtime by the rounded output length - 1.
        # shardc follows the reference, so only a clean run is required here.
        expect = "refuse-or-run" if nm == "resize_linear_align_corners_up" else "refuse-or-match"
        case(nm, cls, expect,
             model([node("Resize", ["x", "", "sc"], ["y"], **attrs)], R, [vi("y", None)],
                   [init("sc", np.array([1, 1, sc, sc], np.float32))]), inputs={"x": f32(1, 1, 3, 3)})
    case("resize_align_corners_to_1x1", cls, "refuse-or-match",
         model([node("Resize", ["x", "", "", "sz"], ["y"], mode="linear", coordinate_transformation_mode="align_corners")],
               R, [vi("y", None)], [init("sz", np.array([1, 1, 1, 1], np.int64))]), inputs={"x": f32(1, 1, 3, 3)})
    P = [vi("x", [2, 3])]
    case("pad_negative_beyond_dim", cls, "refuse",
         model([node("Pad", ["x", "p"], ["y"])], P, [vi("y", None)], [init("p", np.array([0, -5, 0, 0], np.int64))]))
    case("pad_reflect_wider_than_input", cls, "refuse",
         model([node("Pad", ["x", "p"], ["y"], mode="reflect")], P, [vi("y", None)],
               [init("p", np.array([0, 5, 0, 5], np.int64))]))
    case("pad_reflect_exact_ok", cls, "match",
         model([node("Pad", ["x", "p"], ["y"], mode="reflect")], P, [vi("y", None)],
               [init("p", np.array([1, 2, 1, 2], np.int64))]), inputs={"x": f32(2, 3)})
    # ONNX Runtime refuses it too; the shapes are static, so the refusal belongs to compile time
    case("pad_edge_of_empty", cls, "refuse",
         model([node("Pad", ["x", "p"], ["y"], mode="edge")], [vi("x", [0, 3])], [vi("y", None)],
               [init("p", np.array([1, 0, 1, 0], np.int64))]), inputs={"x": np.zeros((0, 3), np.float32)})
    ax = lambda v: init("ax", np.array(v, np.int64))  # noqa: E731
    for nm, op, ins, inits, at in [
            ("unsqueeze_duplicate_axes", "Unsqueeze", ["x", "ax"], [ax([0, 0])], {}),
            ("unsqueeze_axis_out_of_range", "Unsqueeze", ["x", "ax"], [ax([7])], {}),
            ("squeeze_non_unit_dim", "Squeeze", ["x", "ax"], [ax([1])], {}),
            ("reducesum_axis_out_of_range", "ReduceSum", ["x", "ax"], [ax([9])], {}),
            ("cumsum_axis_out_of_range", "CumSum", ["x", "axs"], [init("axs", np.array(5, np.int64))], {}),
            ("gather_axis_minus_100", "Gather", ["x", "i"], [init("i", np.array([0], np.int64))], {"axis": -100}),
            ("topk_k_negative", "TopK", ["x", "k"], [init("k", np.array([-1], np.int64))], {}),
            ("argmax_axis_out_of_range", "ArgMax", ["x"], [], {"axis": 4})]:
        outs = ["y", "yi"] if op == "TopK" else ["y"]
        case(nm, cls, "refuse", model([node(op, ins, outs, **at)], P, [vi(o, None) for o in outs], inits))
    case("reducesum_duplicate_axes", cls, "refuse-or-match",
         model([node("ReduceSum", ["x", "ax"], ["y"])], P, [vi("y", None)], [ax([1, 1])]), inputs={"x": f32(2, 3)})
    case("convtranspose_output_padding_ge_stride", cls, "refuse",
         model([node("ConvTranspose", ["x", "W"], ["y"], strides=[2, 2], output_padding=[2, 2])],
               [vi("x", [1, 1, 3, 3])], [vi("y", None)], [init("W", f32(1, 1, 3, 3))]))
    case("convtranspose_strides_2p31", cls, "refuse",
         model([node("ConvTranspose", ["x", "W"], ["y"], strides=[2 ** 31, 2 ** 31])],
               [vi("x", [1, 1, 3, 3])], [vi("y", None)], [init("W", f32(1, 1, 3, 3))]))
    for r in (64, 1000):
        case("input_rank_%d" % r, cls, "refuse-or-match",
             model([node("Relu", ["x"], ["t"]), node("Neg", ["t"], ["y"])], [vi("x", [1] * (r - 2) + [2, 3])],
                   [vi("y", [1] * (r - 2) + [2, 3])]),
             inputs={"x": f32(*([1] * (r - 2) + [2, 3]))} if r <= 32 else None)
        if r > 32:  # numpy cannot hold rank > 64 arrays: the executable's run is skipped, a compile is enough
            CASES[-1]["expect"] = "refuse-or-run"

    # messages: control characters and absurd lengths in file names, strings, op types
    cls = "messages"
    badmm = model([node("MatMul", ["x", "W"], ["y"], name="mm")], [vi("x", [2, 3])], [vi("y", None)], [init("W", f32(4, 2))])
    case("model_path_with_newline", cls, "refuse", badmm, model_path="evil\nname.onnx", names=["evil"])
    case("model_path_too_long", cls, "refuse", None, args=["a" * 5000 + ".onnx", "-o", "model"], names=["aaaa"])
    case("o_path_too_long", cls, "refuse", relu_model(), args=["model.onnx", "-o", "b" * 5000], names=["bbbb"])
    case("o_path_newline_missing_dir", cls, "refuse", relu_model(), args=["model.onnx", "-o", "no\ndir/model"],
         names=["no"])
    m = model([node("Reshape", ["x", "s"], ["y"])], [vi("x", [2, 3]), vi("s", [2], I64)], [vi("y", None)])
    case("const_input_path_newline_missing", cls, "refuse", m,
         args=["model.onnx", "-o", "model", "--const-input", "s=bad\nfile.npy"], names=["bad"])
    case("attribute_string_newline", cls, "refuse",
         model([node("Resize", ["x", "", "sc"], ["y"], mode="near\nest")], [vi("x", [1, 1, 2, 2])], [vi("y", None)],
               [init("sc", np.array([1, 1, 2, 2], np.float32))]))
    m = relu_model()
    m.graph.node[0].op_type = "Frob\nnicate"
    case("op_type_newline", cls, "refuse", m)
    m = relu_model()
    m.graph.node[0].domain = "com.evil\nx"
    case("domain_newline", cls, "refuse", m)
    case("node_name_1mb", cls, "refuse",
         model([node("MatMul", ["x", "W"], ["y"], name="n" * (1 << 20))], [vi("x", [2, 3])], [vi("y", None)],
               [init("W", f32(4, 2))]))
    # exe-inputs: an input whose name has a newline, fed the wrong dtype
    m = model([node("Relu", ["a\nb"], ["y"])], [vi("a\nb", [2, 3])], [vi("y", [2, 3])])
    d = case("exe_input_name_newline_wrong_dtype", "exe-inputs", "run-refuse", m,
             run={"args": ["--input", "a\nb=bad.npy"], "names": ["bad.npy", "a"]})
    if d:
        np.save(os.path.join(d, "bad.npy"), np.zeros((2, 3), np.float64))


GENERATORS = [gen_ext, gen_int_fold, gen_arity, gen_zero_size, lambda: gen_scale(False), gen_nan_inf,
              gen_conv_kernel, gen_invalid, gen_dim_overflow, gen_messages, gen_protobuf, gen_attributes,
              gen_types, gen_cli, gen_exe_inputs, gen_exe_weights, gen_more]
for g in GENERATORS:
    g()
if ARGS.big:
    gen_scale(True)


# Where ONNX Runtime skips NaN (MaxPool and ReduceMax compare with '>', so a NaN
# loses to any number) or returns 0 for the mean of nothing, shardc follows
# numpy and the ONNX reference implementation: NaN propagates, 0/0 is NaN.
def windows_max(x, k, stride):
    n = (x.shape[-1] - k) // stride + 1
    return np.array([[x[..., i * stride:i * stride + k, j * stride:j * stride + k].max(axis=(-1, -2))
                      for j in range(n)] for i in range(n)]).transpose(2, 3, 0, 1)


with np.errstate(all="ignore"), warnings.catch_warnings():
    warnings.simplefilter("ignore")
    NUMPY_REFERENCE = {
        "naninf_maxpool": windows_max(SPECIAL.reshape(1, 1, 4, 4), 2, 1),
        "naninf_maxpool_stride2": windows_max(SPECIAL.reshape(1, 1, 4, 4), 2, 2),
        "naninf_reducemax": SPECIAL.reshape(2, 8).max(axis=1, keepdims=True),
        "reducemean_over_empty": np.zeros((3, 0), np.float32).mean(axis=1),
    }
for c in CASES:
    if c["name"] in NUMPY_REFERENCE:
        np.save(os.path.join(OUT, c["name"], "expected_y.npy"), NUMPY_REFERENCE[c["name"]].astype(np.float32))
        c["expected"] = {"y": "expected_y.npy"}
CASES = [c for c in CASES if c.get("args") is not None]
with open(os.path.join(OUT, "manifest.json"), "w") as f:
    json.dump({"classes": CLASSES, "cases": CASES}, f, indent=1)
counts = {}
for c in CASES:
    counts[c["class"]] = counts.get(c["class"], 0) + 1
print("%d cases in %s: %s" % (len(CASES), OUT, ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
