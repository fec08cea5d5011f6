#!/usr/bin/env python3
"""Generates the CUDA program of every ONNX node test (and of any extra models
given) and compiles all of them with NVRTC for sm_80 and sm_90. Needs no GPU.

    scripts/cuda-check.py [--shardc build/tools/shardc/shardc]
        [--nvrtc build/tools/shardc-nvrtc/shardc-nvrtc] [--jobs 2]
        [--model FILE.onnx[:--input-shape=...]] ... [--ratchet FILE]
        [--update-ratchet] [--filter REGEX] [--refusals]

For each test: `shardc model.onnx --target=cuda --emit=cuda`, binding
shape-deciding inputs with --const-input as scripts/conformance.py does. A test
the CPU target compiles but the CUDA target refuses is counted as refused (an op
with no CUDA kernel yet); the reasons are tallied. Then shardc-nvrtc compiles
every generated program, many per NVRTC invocation, exactly as the driver would.
Any NVRTC error fails the check: it is always a shardc bug.

With --ratchet FILE the script exits non-zero when a suite emits CUDA for fewer
tests than FILE records ({"suite": count}).
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import conformance  # noqa: E402  (suites, model description, input binding)


def emit(shardc, model, out, extra, inputs, test_dir):
    """Returns (ok, message)."""
    binds, bound = [], set()
    for _ in range(len(inputs) + 1):
        p = subprocess.run([shardc, model, "--target=cuda", "--emit=cuda", "-o", out]
                           + extra + binds, capture_output=True, text=True, timeout=300)
        if p.returncode == 0:
            return True, ""
        err = conformance.last_line(p.stderr, p.returncode)
        if p.returncode < 0:
            return False, "shardc crashed (signal %d): %s" % (-p.returncode, err)
        m = conformance.BIND_RE.search(err)
        if not test_dir or not m or m.group(1) not in inputs or m.group(1) in bound:
            return False, err
        bound.add(m.group(1))
        k = inputs.index(m.group(1))
        binds.append("--const-input=%s=%s" % (
            m.group(1), os.path.join(test_dir, "test_data_set_0", "input_%d.pb" % k)))
    return False, err


def reason(msg):
    """The refusal without its file and node: what to tally."""
    text = re.sub(r"^(shardc: error: )?\S+?\.onnx: ", "", msg)
    text = re.sub(r"^node '[^']*'( \([^)]*\))?: ", "", text)
    return re.sub(r"\d+", "N", text)[:120]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    build = os.path.join(HERE, "..", "build", "tools")
    ap.add_argument("--shardc", default=os.path.join(build, "shardc", "shardc"))
    ap.add_argument("--nvrtc", default=os.path.join(build, "shardc-nvrtc", "shardc-nvrtc"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--model", action="append", default=[],
                    help="an extra model: FILE.onnx, optionally :FLAG:FLAG (driver flags)")
    ap.add_argument("--no-suites", action="store_true", help="only the --model files")
    ap.add_argument("--ratchet")
    ap.add_argument("--update-ratchet", action="store_true")
    ap.add_argument("--filter")
    ap.add_argument("--refusals", action="store_true", help="print every refused test")
    args = ap.parse_args()
    shardc = os.path.abspath(args.shardc)
    work = tempfile.mkdtemp(prefix="shardc-cuda-check-")
    start = time.time()

    jobs = []  # (suite, name, model, extra flags, inputs, test dir)
    if not args.no_suites:
        for suite, root in conformance.SUITES.items():
            if not os.path.isdir(root):
                continue
            for t in sorted(os.listdir(root)):
                d = os.path.join(root, t)
                if not os.path.exists(os.path.join(d, "model.onnx")):
                    continue
                if args.filter and not re.search(args.filter, t):
                    continue
                jobs.append((suite, t, os.path.join(d, "model.onnx"), [], d))
    for spec in args.model:
        path, *flags = spec.split(":")
        jobs.append(("models", os.path.basename(path), path, flags, None))

    def one(job):
        suite, name, model, flags, d = job
        inputs = []
        if d:
            try:
                _, in_scope, inputs, _, _ = conformance.describe(d)
            except Exception as e:
                return job, None, "onnx cannot read it: %s" % e
        out = os.path.join(work, "%s-%s.cu" % (suite, name))
        ok, msg = emit(shardc, model, out, flags, inputs, d)
        return job, (out if ok else None), msg

    emitted = collections.defaultdict(list)
    refused = collections.defaultdict(list)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for job, out, msg in pool.map(one, jobs):
            if out:
                emitted[job[0]].append(out)
            else:
                refused[job[0]].append((job[1], msg))

    failed = False
    for suite in sorted(set(emitted) | set(refused)):
        print("%s: %d models: CUDA emitted for %d, refused %d" % (
            suite, len(emitted[suite]) + len(refused[suite]), len(emitted[suite]),
            len(refused[suite])))
        tally = collections.Counter(reason(m) for _, m in refused[suite])
        for why, n in tally.most_common(8):
            print("  refused %4d: %s" % (n, why))
        if args.refusals:
            for name, m in refused[suite]:
                print("  REFUSED %s: %s" % (name, m))
        if suite == "models" and refused[suite]:
            for name, m in refused[suite]:
                print("MODEL REFUSED: %s: %s" % (name, m))
            failed = True

    files = [f for s in sorted(emitted) for f in emitted[s]]
    if files:
        p = subprocess.run([args.nvrtc] + files, capture_output=True, text=True)
        sys.stdout.write(p.stdout)
        if p.returncode != 0:
            sys.stdout.write("NVRTC FAILED\n" + p.stderr)
            failed = True
    print("cuda-check: %.0f s" % (time.time() - start))

    if args.ratchet:
        recorded = {}
        if os.path.exists(args.ratchet):
            with open(args.ratchet) as f:
                recorded = json.load(f)
        for suite in sorted(emitted):
            n, want = len(emitted[suite]), recorded.get(suite, 0)
            if n < want:
                print("RATCHET: %s emits CUDA for %d tests, fewer than the recorded %d"
                      % (suite, n, want))
                failed = True
            else:
                print("ratchet: %s emits CUDA for %d (recorded minimum %d)" % (suite, n, want))
            if args.update_ratchet and n > want:
                recorded[suite] = n
        if args.update_ratchet:
            with open(args.ratchet, "w") as f:
                json.dump(recorded, f, indent=2, sort_keys=True)
                f.write("\n")
    shutil.rmtree(work, ignore_errors=True)
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
