#!/usr/bin/env python3
"""Compiles and runs every ONNX backend node test with shardc and compares the
outputs with the test's expected ones; reports pass / fail / unsupported per op.

    scripts/conformance.py [--shardc build/tools/shardc/shardc] [DIR ...]
        [--jobs 2] [--markdown docs/conformance.md] [--ratchet FILE]
        [--update-ratchet] [--failures] [--filter REGEX] [--via-onnx]

For each test: `shardc model.onnx -o model`, then `./model --input NAME=input_K.pb
... --output DIR --output-format pb` for every test_data_set_N, then a comparison
like ONNX's own backend runner: numpy.testing.assert_allclose with rtol 1e-3 and
atol 1e-7 for floating-point outputs (NaN equals NaN), exact equality otherwise.

Outcomes:
  pass         every data set matches
  fail         compiled but the outputs differ, the run failed, or the host
               compiler rejected the generated code (always a shardc bug)
  unsupported  shardc refused the model with an error (an op, type or opset it
               does not take)

A test is *in scope* when its opset is 7 to 22, it is not a training test, every
op is in the graph-dialect list (SUPPORTED_OPS) and every tensor has an element
type the dialect has. Graph inputs that decide a shape (a Reshape target, Slice
bounds, TopK's K) are bound to the test's data with --const-input, as a user
would, when shardc asks for them.

With --via-onnx each model goes through `shardc model.onnx --emit=onnx` instead
and ONNX Runtime runs the model shardc wrote: the same expected outputs check
the exporter (lib/Target/ONNX) op by op.

With --ratchet FILE the script exits non-zero if a suite passes fewer tests than
FILE records ({"suite": count}); --update-ratchet raises the recorded counts.
"""
import argparse
import collections
import concurrent.futures
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import numpy_helper

SUPPORTED_OPS = set("""
Add Sub Mul Div Pow Max Min Sqrt Reciprocal Exp Log Erf Tanh Sigmoid Relu LeakyRelu Clip
HardSigmoid HardSwish Neg Abs
Where Equal Less Greater Not And Or Cast
MatMul Gemm Softmax LogSoftmax LayerNormalization BatchNormalization
ReduceMean ReduceSum ReduceMax ReduceL2 ReduceMin ReduceProd ReduceSumSquare ReduceL1
ReduceLogSum ReduceLogSumExp
Reshape Transpose Concat Split Slice Gather Expand Squeeze Unsqueeze Flatten
Identity Trilu Range ConstantOfShape
Conv ConvTranspose MaxPool AveragePool GlobalAveragePool GlobalMaxPool Resize Pad
TopK ArgMax ArgMin CumSum Einsum
GatherElements ScatterElements Scatter ScatterND
QuantizeLinear DequantizeLinear MatMulInteger QLinearMatMul ConvInteger QLinearConv
Shape Size Constant
""".split())

HERE = os.path.dirname(os.path.abspath(__file__))
SUITES = {
    "debian": "/usr/share/libonnx-testdata/data/node",
    "shared": os.path.join(HERE, "..", "..", "shared", "onnx-node-tests", "node"),
}
if not os.path.isdir(SUITES["shared"]):
    SUITES["shared"] = "/work/shared/onnx-node-tests/node"
SUITE_TITLES = {"debian": "Debian libonnx-testdata (ONNX 1.12)",
                "shared": "shared/onnx-node-tests (ONNX 1.23)"}
BIND_RE = re.compile(r"--const-input (\S+)=FILE")
SUPPORTED_TYPES = {1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 16}
RTOL, ATOL = 1e-3, 1e-7


def describe(test_dir):
    model = onnx.load(os.path.join(test_dir, "model.onnx"), load_external_data=False)
    opset = None
    for imp in model.opset_import:
        if imp.domain in ("", "ai.onnx"):
            opset = imp.version
    ops = sorted({n.op_type for n in model.graph.node})
    domains = {n.domain for n in model.graph.node} - {"", "ai.onnx"}
    inits = {i.name for i in model.graph.initializer}
    inputs = [i.name for i in model.graph.input if i.name not in inits]
    bf16 = {i.name for i in model.graph.input
            if i.type.WhichOneof("value") == "tensor_type" and i.type.tensor_type.elem_type == 16}
    outputs = [o.name for o in model.graph.output]
    types_ok = True
    for v in list(model.graph.input) + list(model.graph.output):
        t = v.type
        if t.WhichOneof("value") != "tensor_type" or t.tensor_type.elem_type not in SUPPORTED_TYPES:
            types_ok = False
    for n in model.graph.node:
        for a in n.attribute:
            if n.op_type == "Cast" and a.name == "to" and a.i not in SUPPORTED_TYPES:
                types_ok = False
    name = os.path.basename(test_dir)
    training = "training" in name or any("training" in d for d in domains)
    in_scope = (opset is not None and 7 <= opset <= 22 and not training and types_ok
                and not domains and set(ops) <= SUPPORTED_OPS)
    return ops, in_scope, inputs, outputs, bf16


def to_float_array(t, bf16_bits=False):
    """A TensorProto as a numpy array; bfloat16 (or its uint16 bits, as ONNX
    1.12's data stores it, with bf16_bits) becomes float32."""
    if t.data_type == 16 or (t.data_type == 4 and bf16_bits):
        bits = np.frombuffer(t.raw_data, dtype="<u2") if t.raw_data else \
            np.array(t.int32_data, dtype=np.uint32).astype(np.uint16)
        return (bits.astype(np.uint32) << 16).view(np.float32).reshape(tuple(t.dims))
    return numpy_helper.to_array(t)


def load_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t


def compare(expected, got):
    """'' if `got` (TensorProto) matches `expected` (TensorProto), else why."""
    # Debian's data stores bfloat16 outputs as their uint16 bits.
    want = to_float_array(expected, bf16_bits=got.data_type == 16)
    have = to_float_array(got)
    if tuple(want.shape) != tuple(have.shape):
        return "shape %s, expected %s" % (list(have.shape), list(want.shape))
    if want.dtype.kind in "fc":
        try:
            np.testing.assert_allclose(have.astype(np.float64), want.astype(np.float64),
                                       rtol=RTOL, atol=ATOL)
        except AssertionError:
            diff = np.abs(have.astype(np.float64) - want.astype(np.float64))
            diff = np.where(np.isnan(diff), np.inf, diff)
            return "max abs error %.3g (max |expected| %.3g)" % (
                float(np.max(diff)), float(np.max(np.abs(want))) if want.size else 0.0)
        return ""
    if not np.array_equal(have.astype(want.dtype), want):
        return "values differ in %d of %d elements" % (
            int(np.sum(have.astype(want.dtype) != want)), want.size)
    return ""


def last_line(text, rc):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1] if lines else "exit %d" % rc


def retag_bf16(path, work):
    """ONNX 1.12's data stores bfloat16 inputs as UINT16 tensors of the bits;
    returns a copy tagged BFLOAT16 (the bits are the same)."""
    t = load_pb(path)
    if t.data_type != 4:
        return path
    t.data_type = 16
    out = os.path.join(work, "bf16_" + os.path.basename(os.path.dirname(path)) + "_" +
                       os.path.basename(path))
    with open(out, "wb") as f:
        f.write(t.SerializeToString())
    return out


def run_exported(exported, ds, inputs, bound):
    """The outputs of ONNX Runtime on the model shardc exported (--via-onnx),
    by name, as TensorProtos."""
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    sess = ort.InferenceSession(exported, so, providers=["CPUExecutionProvider"])
    feeds = {}
    for k, name in enumerate(inputs):
        path = os.path.join(ds, "input_%d.pb" % k)
        if name not in bound and os.path.exists(path):
            feeds[name] = numpy_helper.to_array(load_pb(path))
    names = [o.name for o in sess.get_outputs()]
    return {n: numpy_helper.from_array(np.asarray(v), n)
            for n, v in zip(names, sess.run(None, feeds))}


def run_test(shardc, test_dir, inputs, outputs, work, bf16_inputs=(), via_onnx=False):
    """Returns (outcome, message, compile_seconds). With via_onnx the model
    shardc writes with --emit=onnx runs on ONNX Runtime instead of shardc's
    executable."""
    model = os.path.join(test_dir, "model.onnx")
    exe = os.path.join(work, "model.onnx" if via_onnx else "model")
    emit = ["--emit=onnx"] if via_onnx else []
    binds, bound = [], set()
    t0 = time.time()
    for _ in range(len(inputs) + 1):
        p = subprocess.run([shardc, model, "-o", exe] + emit + binds, capture_output=True,
                           text=True, timeout=300)
        if p.returncode == 0:
            break
        err = last_line(p.stderr, p.returncode)
        if p.returncode < 0:
            return "fail", "shardc crashed (signal %d): %s" % (-p.returncode, err), 0
        if "failed (" in p.stderr and "c++" in p.stderr:
            return "fail", "host compiler: " + err, 0
        m = BIND_RE.search(err)
        if not m or m.group(1) not in inputs or m.group(1) in bound:
            return "unsupported", err, 0
        bound.add(m.group(1))
        k = inputs.index(m.group(1))
        binds.append("--const-input=%s=%s" % (
            m.group(1), os.path.join(test_dir, "test_data_set_0", "input_%d.pb" % k)))
    else:
        return "unsupported", err, 0
    compile_s = time.time() - t0
    sets = sorted(glob.glob(os.path.join(test_dir, "test_data_set_*")))
    for ds in sets:
        if via_onnx:
            try:
                got = run_exported(exe, ds, inputs, bound)
            except Exception as e:  # ONNX Runtime refused or failed the model
                return "fail", "onnxruntime: %s" % str(e).strip().splitlines()[0][:300], compile_s
        else:
            out_dir = os.path.join(work, "out_" + os.path.basename(ds))
            cmd = [exe, "--output", out_dir, "--output-format", "pb"]
            for k, name in enumerate(inputs):
                path = os.path.join(ds, "input_%d.pb" % k)
                if name not in bound and os.path.exists(path):
                    if name in bf16_inputs:
                        path = retag_bf16(path, work)
                    cmd += ["--input", "%s=%s" % (name, path)]
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
            if p.returncode != 0:
                if p.returncode < 0:
                    return "fail", "executable crashed (signal %d)" % -p.returncode, compile_s
                return "fail", "run: " + last_line(p.stderr, p.returncode), compile_s
            got = {}
            for f in glob.glob(os.path.join(out_dir, "*.pb")):
                t = load_pb(f)
                got[t.name] = t
        for k, name in enumerate(outputs):
            path = os.path.join(ds, "output_%d.pb" % k)
            if not os.path.exists(path):
                continue
            if name not in got:
                return "fail", "output '%s' was not written" % name, compile_s
            why = compare(load_pb(path), got[name])
            if why:
                return "fail", "%s: output '%s': %s" % (os.path.basename(ds), name, why), compile_s
    return "pass", "", compile_s


def run_suite(shardc, root, jobs, pattern, via_onnx=False):
    tests = sorted(t for t in os.listdir(root)
                   if os.path.exists(os.path.join(root, t, "model.onnx")) and
                   (not pattern or re.search(pattern, t)))
    results = {}
    work_root = tempfile.mkdtemp(prefix="shardc-conformance-")

    def one(t):
        d = os.path.join(root, t)
        try:
            ops, in_scope, inputs, outputs, bf16 = describe(d)
        except Exception as e:  # a model the onnx package cannot read
            return t, ["?"], False, "unsupported", "onnx cannot read it: %s" % e, 0
        work = os.path.join(work_root, t)
        os.makedirs(work)
        try:
            outcome, msg, cs = run_test(shardc, d, inputs, outputs, work, bf16, via_onnx)
        except subprocess.TimeoutExpired:
            outcome, msg, cs = "fail", "timed out", 0
        except Exception as e:  # unreadable output, and the like
            outcome, msg, cs = "fail", "%s: %s" % (type(e).__name__, e), 0
        shutil.rmtree(work, ignore_errors=True)
        return t, ops, in_scope, outcome, msg, cs

    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for t, ops, in_scope, outcome, msg, cs in pool.map(one, tests):
            results[t] = (ops, in_scope, outcome, msg, cs)
    shutil.rmtree(work_root, ignore_errors=True)
    return results


def summarize(results):
    totals = collections.Counter()
    per_op = collections.defaultdict(collections.Counter)
    for t, (ops, in_scope, outcome, msg, cs) in results.items():
        totals[outcome] += 1
        if in_scope:
            totals["in_scope"] += 1
            totals["in_scope_" + outcome] += 1
        for op in ops:
            per_op[op][outcome] += 1
            if in_scope:
                per_op[op]["in_scope"] += 1
                per_op[op]["in_scope_pass"] += outcome == "pass"
    return totals, per_op


def write_markdown(path, report, seconds):
    lines = ["# ONNX conformance", "",
             "Generated by `scripts/conformance.py --markdown docs/conformance.md` "
             "(%.0f s on this machine's 2 cores). Each test is compiled with `shardc`, "
             "run through the executable on every `test_data_set_N`, and its outputs compared with "
             "the expected ones at rtol %g, atol %g (floating point; NaN equals NaN) or exactly "
             "(integers, booleans), as ONNX's own backend runner does." % (seconds, RTOL, ATOL), "",
             "- **pass**: every data set matches.",
             "- **fail**: compiled, but a run failed or an output differs (a shardc bug).",
             "- **unsupported**: shardc refused the model with an error (an op, type or opset "
             "it does not take).", "",
             "A test is **in scope** when its opset is 7 to 22, it is not a training test, all its "
             "ops are in the graph-dialect list and all its tensors have element types the dialect "
             "has (not string, fp8, int4 or complex; no sequences or optionals).", ""]
    for suite, results in report:
        totals, per_op = summarize(results)
        n = totals["in_scope"]
        lines += ["## %s" % SUITE_TITLES.get(suite, suite), "",
                  "- tests: %d; pass %d, fail %d, unsupported %d" % (
                      len(results), totals["pass"], totals["fail"], totals["unsupported"]),
                  "- in scope: %d; pass %d (%.1f%%), fail %d, unsupported %d" % (
                      n, totals["in_scope_pass"], 100.0 * totals["in_scope_pass"] / max(n, 1),
                      totals["in_scope_fail"], totals["in_scope_unsupported"]), "",
                  "| op | pass | fail | unsupported | in scope: pass / total |",
                  "|---|---:|---:|---:|---:|"]
        for op in sorted(per_op):
            if op in SUPPORTED_OPS:
                c = per_op[op]
                lines.append("| %s | %d | %d | %d | %d / %d |" % (
                    op, c["pass"], c["fail"], c["unsupported"], c["in_scope_pass"], c["in_scope"]))
        others = sorted(op for op in per_op if op not in SUPPORTED_OPS)
        lines += ["", "Ops outside the list (%d; their tests pass only where the op folds at "
                  "compile time): %s" % (len(others), ", ".join(others)), ""]
        bad = sorted((t, r[3]) for t, r in results.items() if r[1] and r[2] != "pass")
        if bad:
            lines += ["In-scope tests that do not pass:", ""]
            lines += ["- `%s`: %s" % (t, m.replace("|", "\\|")) for t, m in bad]
            lines.append("")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="*", help="suite directories (default: both suites)")
    ap.add_argument("--shardc", default=os.path.join(HERE, "..", "build", "tools", "shardc", "shardc"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--markdown", help="write the per-op report to this file")
    ap.add_argument("--ratchet", help="JSON file of minimum pass counts per suite")
    ap.add_argument("--update-ratchet", action="store_true")
    ap.add_argument("--failures", action="store_true", help="print every in-scope failure")
    ap.add_argument("--filter", help="only tests whose name matches this regex")
    ap.add_argument("--via-onnx", action="store_true",
                    help="export each model with shardc --emit=onnx and run the export on "
                         "ONNX Runtime (checks the exporter against the expected outputs)")
    args = ap.parse_args()
    shardc = os.path.abspath(args.shardc)
    if args.dirs:
        suites = [(os.path.basename(os.path.dirname(os.path.abspath(d))) or d, d) for d in args.dirs]
        suites = [("debian" if "libonnx-testdata" in d else "shared" if "onnx-node-tests" in d else n, d)
                  for n, d in suites]
    else:
        suites = [(k, v) for k, v in SUITES.items() if os.path.isdir(v)]
    if not suites:
        sys.exit("conformance: no test directory found")
    start = time.time()
    report = []
    compile_times = []
    for suite, root in suites:
        results = run_suite(shardc, root, args.jobs, args.filter, args.via_onnx)
        report.append((suite, results))
        totals, _ = summarize(results)
        compile_times += [r[4] for r in results.values() if r[4] > 0]
        n = totals["in_scope"]
        print("%s: %d tests: pass %d, fail %d, unsupported %d; in scope: %d/%d pass (%.1f%%)" % (
            suite, len(results), totals["pass"], totals["fail"], totals["unsupported"],
            totals["in_scope_pass"], n, 100.0 * totals["in_scope_pass"] / max(n, 1)))
        if args.failures:
            for t, r in sorted(results.items()):
                if r[1] and r[2] != "pass":
                    print("  %s %s: %s" % (r[2].upper(), t, r[3]))
    seconds = time.time() - start
    if compile_times:
        compile_times.sort()
        print("compile time per test: median %.2f s, p90 %.2f s; total %.0f s" % (
            compile_times[len(compile_times) // 2], compile_times[int(len(compile_times) * 0.9)],
            seconds))
    if args.markdown:
        write_markdown(args.markdown, report, seconds)
    if args.ratchet:
        recorded = {}
        if os.path.exists(args.ratchet):
            with open(args.ratchet) as f:
                recorded = json.load(f)
        failed = False
        for suite, results in report:
            passed = summarize(results)[0]["pass"]
            want = recorded.get(suite, 0)
            if passed < want:
                print("RATCHET: %s passes %d tests, fewer than the recorded %d" % (suite, passed, want))
                failed = True
            else:
                print("ratchet: %s passes %d (recorded minimum %d)" % (suite, passed, want))
            if args.update_ratchet and passed > want:
                recorded[suite] = passed
        if args.update_ratchet:
            with open(args.ratchet, "w") as f:
                json.dump(recorded, f, indent=2, sort_keys=True)
                f.write("\n")
        if failed:
            sys.exit(1)


if __name__ == "__main__":
    main()
