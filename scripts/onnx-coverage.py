#!/usr/bin/env python3
"""Imports every ONNX backend node test with `shardc --emit=graph` and reports,
per op, how many tests imported and how many failed.

    scripts/onnx-coverage.py --shardc build/tools/shardc/shardc \
        [DIR ...] [--markdown docs/conformance.md] [--check] [--jobs 2]

A test is *in scope* when its opset is 7 to 22, it is not a training test, and
every op it uses is in the graph-dialect list (SUPPORTED_OPS). With --check the
script exits non-zero if any in-scope test fails to import.

Graph inputs that determine a shape (a Reshape target, Slice bounds, TopK's K,
...) must be compile-time constants. When shardc asks for one, the script binds
it to the test's own input data with --const-input and retries, as a user would.
"""
import argparse
import collections
import concurrent.futures
import os
import re
import subprocess
import sys

import onnx

SUPPORTED_OPS = set("""
Add Sub Mul Div Pow Sqrt Reciprocal Exp Log Erf Tanh Sigmoid Relu LeakyRelu Clip
HardSigmoid HardSwish Neg Abs
Where Equal Less Greater Not And Or Cast
MatMul Gemm Softmax LogSoftmax LayerNormalization BatchNormalization
ReduceMean ReduceSum ReduceMax
Reshape Transpose Concat Split Slice Gather Expand Squeeze Unsqueeze Flatten
Identity Trilu Range ConstantOfShape
Conv ConvTranspose MaxPool AveragePool GlobalAveragePool Resize Pad
TopK ArgMax CumSum Einsum
QuantizeLinear DequantizeLinear MatMulInteger QLinearMatMul
Shape Size Constant
""".split())

DEFAULT_DIRS = [
    "/usr/share/libonnx-testdata/data/node",
    os.path.join(os.path.dirname(__file__), "..", "..", "shared", "onnx-node-tests", "node"),
]
BIND_RE = re.compile(r"--const-input (\S+)=FILE")
RESULT_RE = re.compile(r'tensor<([^>]*)> \{graph\.name = "([^"]*)"\}')
MLIR_TO_ONNX = {"f32": 1, "ui8": 2, "i8": 3, "ui16": 4, "i16": 5, "i32": 6, "i64": 7, "i1": 9,
                "f16": 10, "f64": 11, "ui32": 12, "ui64": 13, "bf16": 16}


def check_outputs(ir, test_dir, outputs):
    """Compares the result types of @main with the expected outputs' shapes and
    element types (test_data_set_0/output_N.pb). Returns an error or ''."""
    header = ir[ir.index("func.func @main"):]
    header = header[:header.index("{\n")]
    sig = header[header.index(") -> ") + 4:] if ") -> " in header else ""
    got = {name: spec for spec, name in RESULT_RE.findall(sig)}
    for k, name in enumerate(outputs):
        path = os.path.join(test_dir, "test_data_set_0", "output_%d.pb" % k)
        if not os.path.exists(path):
            continue
        t = onnx.TensorProto()
        with open(path, "rb") as f:
            t.ParseFromString(f.read())
        if name not in got:
            return "output '%s' missing from the imported function" % name
        parts = got[name].split("x")
        dims, elt = [int(d) for d in parts[:-1]], parts[-1]
        want = t.data_type
        if want == 4 and elt == "bf16":
            want = 16  # ONNX 1.12's test data stores bfloat16 outputs as UINT16 bits
        if dims != list(t.dims) or MLIR_TO_ONNX.get(elt) != want:
            return "output '%s' is tensor<%s>, expected dims %s of type %d" % (
                name, got[name], list(t.dims), t.data_type)
    return ""


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
    outputs = [o.name for o in model.graph.output]
    name = os.path.basename(test_dir)
    # Tensors of element types the graph dialect has no type for (string,
    # fp8, int4, complex), and non-tensor values (sequence, optional, map).
    supported_types = {1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 16}
    types_ok = True
    for v in list(model.graph.input) + list(model.graph.output):
        t = v.type
        if t.WhichOneof("value") != "tensor_type" or t.tensor_type.elem_type not in supported_types:
            types_ok = False
    for n in model.graph.node:
        for a in n.attribute:
            if n.op_type == "Cast" and a.name == "to" and a.i not in supported_types:
                types_ok = False
    training = "training" in name or any("training" in d for d in domains)
    in_scope = (opset is not None and 7 <= opset <= 22 and not training and types_ok
                and not domains and set(ops) <= SUPPORTED_OPS)
    return ops, opset, (inputs, outputs), in_scope, training


def run_one(shardc, test_dir, io):
    inputs, outputs = io
    model = os.path.join(test_dir, "model.onnx")
    binds = []
    for _ in range(len(inputs) + 1):
        cmd = [shardc, model, "--emit=graph", "--no-canonicalize"] + binds
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if p.returncode == 0:
            err = check_outputs(p.stdout, test_dir, outputs)
            return not err, err
        err = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "exit %d" % p.returncode
        if p.returncode < 0:
            return False, "crashed with signal %d: %s" % (-p.returncode, err)
        m = BIND_RE.search(err)
        if not m or m.group(1) not in inputs:
            return False, err
        k = inputs.index(m.group(1))
        binds.append("--const-input=%s=%s" % (
            m.group(1), os.path.join(test_dir, "test_data_set_0", "input_%d.pb" % k)))
    return False, err


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="*")
    ap.add_argument("--shardc", default="build/tools/shardc/shardc")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--markdown", help="write the per-op table to this file")
    ap.add_argument("--check", action="store_true", help="fail if an in-scope test does not import")
    ap.add_argument("--failures", action="store_true", help="print every failure")
    args = ap.parse_args()
    dirs = [d for d in (args.dirs or DEFAULT_DIRS) if os.path.isdir(d)]
    if not dirs:
        sys.exit("onnx-coverage: no test directory found")

    report = []
    bad_in_scope = []
    for root in dirs:
        tests = sorted(t for t in os.listdir(root) if os.path.exists(os.path.join(root, t, "model.onnx")))
        per_op = collections.defaultdict(lambda: [0, 0, 0, 0])  # imported, failed, in-scope ok, in-scope total
        totals = collections.Counter()
        failures = []
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futs = {}
            for t in tests:
                d = os.path.join(root, t)
                try:
                    ops, opset, inputs, in_scope, training = describe(d)
                except Exception as e:  # a model the onnx package cannot read
                    ops, opset, inputs, in_scope, training = ["?"], None, ([], []), False, False
                futs[pool.submit(run_one, args.shardc, d, inputs)] = (t, ops, in_scope, training)
            for f in concurrent.futures.as_completed(futs):
                t, ops, in_scope, training = futs[f]
                ok, err = f.result()
                totals["tests"] += 1
                totals["imported"] += ok
                totals["training"] += training
                if in_scope:
                    totals["in_scope"] += 1
                    totals["in_scope_ok"] += ok
                    if not ok:
                        bad_in_scope.append((root, t, err))
                if not ok:
                    failures.append((t, err))
                for op in ops:
                    c = per_op[op]
                    c[0 if ok else 1] += 1
                    if in_scope:
                        c[3] += 1
                        c[2] += ok
        report.append((root, totals, per_op, sorted(failures)))
        print("%s: %d tests, %d imported; in scope %d/%d imported" % (
            root, totals["tests"], totals["imported"], totals["in_scope_ok"], totals["in_scope"]))
        if args.failures:
            for t, err in sorted(failures):
                print("  FAIL %s: %s" % (t, err))

    if args.markdown:
        write_markdown(args.markdown, report)
    if bad_in_scope:
        for root, t, err in bad_in_scope:
            print("in-scope failure: %s/%s: %s" % (root, t, err), file=sys.stderr)
    if args.check and bad_in_scope:
        sys.exit(1)


def write_markdown(path, report):
    lines = ["# ONNX conformance: import", "",
             "Generated by `scripts/onnx-coverage.py --markdown docs/conformance.md` "
             "(the command in the README's test target runs it with `--check`).", "",
             "A test is **in scope** when its opset is 7 to 22, it is not a training test, "
             "all its ops are in the graph-dialect list and all its tensors have element types the dialect has "
             "(not string, fp8, int4 or complex; no sequences or optionals). Out-of-scope tests are still run; "
             "their failures are expected (unsupported ops, opsets above 22, string/fp8/int4 data).",
             "An import counts only if every output's shape and element type equal those of the "
             "test's expected output (`test_data_set_0/output_N.pb`).", ""]
    for root, totals, per_op, failures in report:
        name = "Debian libonnx-testdata (ONNX 1.12)" if "libonnx-testdata" in root else \
            "shared/onnx-node-tests (ONNX 1.23)"
        lines += ["## %s" % name, "",
                  "- tests: %d, imported: %d" % (totals["tests"], totals["imported"]),
                  "- in scope: %d, imported: %d" % (totals["in_scope"], totals["in_scope_ok"]), "",
                  "| op | imported | failed | in scope: imported / total |", "|---|---:|---:|---:|"]
        for op in sorted(per_op, key=lambda o: (o not in SUPPORTED_OPS, o)):
            c = per_op[op]
            if op in SUPPORTED_OPS:
                lines.append("| %s | %d | %d | %d / %d |" % (op, c[0], c[1], c[2], c[3]))
        others = sorted(op for op in per_op if op not in SUPPORTED_OPS)
        lines += ["", "Ops outside the list (%d), which fail unless folded at compile time: %s" % (
            len(others), ", ".join(others)), ""]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
