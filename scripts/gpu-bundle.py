#!/usr/bin/env python3
"""The ONNX node tests on a real GPU, as one bundle that fits the device tool's
carry limit (docs/gpu-validation.md, step 2).

    scripts/gpu-bundle.py prepare OUT [--shardc build/tools/shardc/shardc]
        [--suite debian|shared ...] [--filter REGEX] [--jobs 2]
        [--cuda-arch sm_90]
      (here) compiles every in-scope node test with --target=cuda, each into a
      shared object libshardc_model.so (scripts/shared-object-cxx.sh as the
      host compiler) rather than an executable, and links one runner: the
      executables' own main() and runtime (libshardc_main.a, libshardc_rt.a)
      with its symbols exported. The runner loads the program of the test
      whose folder LD_LIBRARY_PATH names, so 1,000 programs cost one copy of
      the runtime. Copies each test's inputs and expected outputs beside its
      program and writes OUT/manifest.json.

    scripts/gpu-bundle.py run OUT [--jobs 8] [--report FILE]
      (on the GPU machine) runs every program of the bundle on every data set
      and compares the outputs with ONNX's expected ones exactly as
      scripts/conformance.py does (rtol 1e-3, atol 1e-7; exact for integers).
      Prints pass / fail / refused-at-run-time counts and each failure.

A test the CUDA target refuses at compile time is not in the bundle (counted
as refused by `prepare`, as scripts/cuda-check.py counts them).
"""
import argparse
import collections
import concurrent.futures
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)


def compile_test(shardc, test_dir, inputs, out_dir, arch, env):
    """Compiles test_dir/model.onnx into out_dir/libshardc_model.so.
    Returns (ok, message, bound input names)."""
    import conformance
    model = os.path.join(test_dir, "model.onnx")
    lib = os.path.join(out_dir, "libshardc_model.so")
    binds, bound = [], []
    err = ""
    for _ in range(len(inputs) + 1):
        p = subprocess.run([shardc, model, "--target=cuda", "--cuda-arch=" + arch,
                            "--cpu=x86-64-v3", "-o", lib] + binds,
                           capture_output=True, text=True, timeout=600, env=env)
        if p.returncode == 0:
            return True, "", bound
        err = conformance.last_line(p.stderr, p.returncode)
        if p.returncode < 0:
            return False, "shardc crashed (signal %d): %s" % (-p.returncode, err), bound
        m = conformance.BIND_RE.search(err)
        if not m or m.group(1) not in inputs or m.group(1) in bound:
            return False, err, bound
        bound.append(m.group(1))
        k = inputs.index(m.group(1))
        binds.append("--const-input=%s=%s" % (
            m.group(1), os.path.join(test_dir, "test_data_set_0", "input_%d.pb" % k)))
    return False, err, bound


def link_runner(out):
    """OUT/bin/runner and the libraries it needs that a CUDA image may lack."""
    rt = os.path.join(ROOT, "build", "runtime")
    bindir, libdir = os.path.join(out, "bin"), os.path.join(out, "lib")
    os.makedirs(bindir, exist_ok=True)
    os.makedirs(libdir, exist_ok=True)
    stub = os.path.join(bindir, "stub.cpp")
    with open(stub, "w") as f:
        f.write('#include "shardc/cpu.h"\n'
                'extern "C" const shardc_program shardc_model_program = {};\n')
    inc = os.path.join(ROOT, "runtime", "include")
    subprocess.check_call(["c++", "-std=c++17", "-shared", "-fPIC", "-I" + inc, stub,
                           "-Wl,-soname,libshardc_model.so",
                           "-o", os.path.join(bindir, "libshardc_model.so")])
    subprocess.check_call(["c++", "-rdynamic", "-o", os.path.join(bindir, "runner"),
                           "-Wl,--whole-archive", os.path.join(rt, "libshardc_main.a"),
                           os.path.join(rt, "libshardc_rt.a"), "-Wl,--no-whole-archive",
                           "-L" + bindir, "-lshardc_model", "-ldnnl", "-fopenmp",
                           "-lpthread", "-lm", "-ldl"])
    os.remove(os.path.join(bindir, "libshardc_model.so"))
    os.remove(stub)
    # The runner's own dependencies that an image other than Debian's may not
    # hold (oneDNN 2 and its OpenCL loader; libgomp).
    ldd = subprocess.run(["ldd", os.path.join(bindir, "runner")], capture_output=True,
                         text=True).stdout
    for name in ("libdnnl.so", "libOpenCL.so", "libgomp.so"):
        m = re.search(r"(%s\S*) => (\S+)" % re.escape(name), ldd)
        if m:
            shutil.copy(m.group(2), os.path.join(libdir, m.group(1)))


def prepare(a):
    import conformance
    out = os.path.abspath(a.out)
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    link_runner(out)
    env = dict(os.environ, CXX=os.path.join(HERE, "shared-object-cxx.sh"),
               SHARDC_NO_CCACHE="1")
    jobs = []
    for suite in a.suite:
        root = conformance.SUITES[suite]
        for t in sorted(os.listdir(root)):
            d = os.path.join(root, t)
            if os.path.exists(os.path.join(d, "model.onnx")) and \
                    (not a.filter or re.search(a.filter, t)):
                jobs.append((suite, t, d))

    def one(job):
        suite, t, d = job
        try:
            ops, in_scope, inputs, outputs, bf16 = conformance.describe(d)
        except Exception as e:  # noqa: BLE001 (a model onnx cannot read)
            return job, "out of scope", str(e), None
        if not in_scope:
            return job, "out of scope", "", None
        key = suite + "__" + t
        tdir = os.path.join(out, "tests", key)
        os.makedirs(tdir)
        ok, msg, bound = compile_test(a.shardc, d, inputs, tdir, a.cuda_arch, env)
        if not ok:
            shutil.rmtree(tdir)
            return job, "refused", msg, None
        sets = []
        for ds in sorted(glob.glob(os.path.join(d, "test_data_set_*"))):
            name = os.path.basename(ds)
            os.makedirs(os.path.join(tdir, name))
            args, expected = [], []
            for k, inp in enumerate(inputs):
                src = os.path.join(ds, "input_%d.pb" % k)
                if inp in bound or not os.path.exists(src):
                    continue
                if inp in bf16:
                    src = conformance.retag_bf16(src, tdir)
                dst = os.path.join(name, "input_%d.pb" % k)
                shutil.copy(src, os.path.join(tdir, dst))
                args.append([inp, dst])
            for k, outp in enumerate(outputs):
                src = os.path.join(ds, "output_%d.pb" % k)
                if os.path.exists(src):
                    dst = os.path.join(name, "output_%d.pb" % k)
                    shutil.copy(src, os.path.join(tdir, dst))
                    expected.append([outp, dst])
            sets.append({"name": name, "inputs": args, "outputs": expected})
        for f in glob.glob(os.path.join(tdir, "bf16_*")):
            os.remove(f)
        return job, "compiled", "", {"test": key, "sets": sets}

    t0 = time.time()
    counts = collections.Counter()
    manifest, refusals = [], collections.Counter()
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for i, (job, outcome, msg, entry) in enumerate(pool.map(one, jobs)):
            counts[outcome] += 1
            if entry:
                manifest.append(entry)
            if outcome == "refused":
                refusals[re.sub(r"^.*?\.onnx: ", "", msg)[:90]] += 1
            if (i + 1) % 100 == 0:
                print("%d/%d tests, %.0f s" % (i + 1, len(jobs), time.time() - t0),
                      flush=True)
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=0)
    print("compiled %d, refused by the CUDA target %d, out of scope %d (%.0f s)" % (
        counts["compiled"], counts["refused"], counts["out of scope"], time.time() - t0))
    for why, n in refusals.most_common(12):
        print("  %4d  %s" % (n, why))


def run(a):
    import conformance
    out = os.path.abspath(a.out)
    with open(os.path.join(out, "manifest.json")) as f:
        manifest = json.load(f)
    runner = os.path.join(out, "bin", "runner")
    libdir = os.path.join(out, "lib")
    work = tempfile.mkdtemp(prefix="shardc-gpu-bundle-")

    def one(entry):
        tdir = os.path.join(out, "tests", entry["test"])
        env = dict(os.environ, LD_LIBRARY_PATH=tdir + ":" + libdir + ":" +
                   os.environ.get("LD_LIBRARY_PATH", ""))
        for ds in entry["sets"]:
            odir = os.path.join(work, entry["test"], ds["name"])
            cmd = [runner, "--weights", os.path.join(tdir, "libshardc_model.so.weights"),
                   "--output", odir, "--output-format", "pb"]
            for name, path in ds["inputs"]:
                cmd += ["--input", "%s=%s" % (name, os.path.join(tdir, path))]
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
            except subprocess.TimeoutExpired:
                return entry["test"], "fail", "timed out"
            if p.returncode != 0:
                if p.returncode < 0:
                    return entry["test"], "fail", "crashed (signal %d)" % -p.returncode
                return entry["test"], "fail", "run: " + conformance.last_line(
                    p.stderr, p.returncode)
            if "running the CPU code" in p.stderr:
                return entry["test"], "fail", "ran on the CPU: " + p.stderr.strip()
            got = {}
            for f in glob.glob(os.path.join(odir, "*.pb")):
                t = conformance.load_pb(f)
                got[t.name] = t
            for name, path in ds["outputs"]:
                if name not in got:
                    return entry["test"], "fail", "output '%s' was not written" % name
                why = conformance.compare(conformance.load_pb(os.path.join(tdir, path)),
                                          got[name])
                if why:
                    return entry["test"], "fail", "%s: output '%s': %s" % (
                        ds["name"], name, why)
        return entry["test"], "pass", ""

    t0 = time.time()
    results = {}
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        # Failures as they come, so a run cut short still tells what it saw.
        for test, outcome, msg in pool.map(one, manifest):
            results[test] = (outcome, msg)
            if outcome != "pass":
                print("FAIL %s: %s" % (test, msg[:300]), flush=True)
            if len(results) % 100 == 0:
                print("%d/%d programs, %d pass, %.0f s" % (
                    len(results), len(manifest),
                    sum(o == "pass" for o, _ in results.values()), time.time() - t0),
                    flush=True)
    shutil.rmtree(work, ignore_errors=True)
    counts = collections.Counter(o for o, _ in results.values())
    lines = ["GPU node tests: %d programs, %d pass, %d fail (%.0f s)" % (
        len(results), counts["pass"], counts["fail"], time.time() - t0)]
    for suite in sorted({t.split("__")[0] for t in results}):
        c = collections.Counter(o for t, (o, _) in results.items()
                                if t.startswith(suite + "__"))
        lines.append("  %s: %d of %d pass" % (suite, c["pass"], sum(c.values())))
    for test, (outcome, msg) in sorted(results.items()):
        if outcome != "pass":
            lines.append("FAIL %s: %s" % (test, msg[:300]))
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if a.report:
        with open(a.report, "w") as f:
            f.write(text)
    return 0 if counts["fail"] == 0 else 1


# name, model (relative to MODELS_DIR or test/Models/Inputs), shardc flags,
# inputs (name=npy), output, reference npy, tolerance relative to the
# output's scale (compare-npy.py's rule; the CPU tests' tolerances).
MODELS = [
    ("gpt2_17_fp32", "gpt2_opset17.onnx", ["--input-shape", "ids=2x16"],
     [("ids", "gpt2_opset17.input.npy")], "logits", "gpt2_opset17.torch.npy", 1e-4),
    ("gpt2_14_fp32", "gpt2_opset14.onnx", ["--input-shape", "ids=2x16"],
     [("ids", "gpt2_opset14.input.npy")], "logits", "gpt2_opset14.torch.npy", 1e-4),
    ("gpt2_17_fp16", "gpt2_opset17.onnx", ["--input-shape", "ids=2x16", "--precision=fp16"],
     [("ids", "gpt2_opset17.input.npy")], "logits", "gpt2_opset17.torch.npy", 5e-3),
    ("gpt2_17_bf16", "gpt2_opset17.onnx", ["--input-shape", "ids=2x16", "--precision=bf16"],
     [("ids", "gpt2_opset17.input.npy")], "logits", "gpt2_opset17.torch.npy", 4e-2),
    ("cnn_17_fp32", "cnn_opset17.onnx", ["--input-shape", "image=2x3x32x32"],
     [("image", "cnn_opset17.input.npy")], "scores", "cnn_opset17.torch.npy", 1e-4),
    ("cnn_14_fp16", "cnn_opset14.onnx", ["--input-shape", "image=2x3x32x32", "--precision=fp16"],
     [("image", "cnn_opset14.input.npy")], "scores", "cnn_opset14.torch.npy", 5e-3),
    ("cnn_17_bf16", "cnn_opset17.onnx", ["--input-shape", "image=2x3x32x32", "--precision=bf16"],
     [("image", "cnn_opset17.input.npy")], "scores", "cnn_opset17.torch.npy", 4e-2),
    ("mobilenet_fp32", "mobilenet_v3_small_opset17.onnx", ["--input-shape", "image=1x3x224x224"],
     [("image", "mobilenet_v3_small_opset17.input.npy")], "scores",
     "mobilenet_v3_small_opset17.torch.npy", 1e-4),
    # Not fp16: this random-weight mobilenet's scores are about 2e-9, below
    # fp16's smallest subnormal (6e-8), so any fp16 run outputs zeros.
    ("mobilenet_bf16", "mobilenet_v3_small_opset17.onnx",
     ["--input-shape", "image=1x3x224x224", "--precision=bf16"],
     [("image", "mobilenet_v3_small_opset17.input.npy")], "scores",
     "mobilenet_v3_small_opset17.torch.npy", 4e-2),
    ("mixtral_fp32", "moe/mixtral.onnx", ["--input-shape", "ids=2x8"],
     [("ids", "moe/mixtral.ids.npy")], "logits", "moe/mixtral.torch.npy", 1e-4),
    ("mixtral_bf16", "moe/mixtral.onnx", ["--input-shape", "ids=2x8", "--precision=bf16"],
     [("ids", "moe/mixtral.ids.npy")], "logits", "moe/mixtral.torch.npy", 4e-2),
    ("qwen2_moe_fp32", "moe/qwen2_moe.onnx", ["--input-shape", "ids=2x8"],
     [("ids", "moe/qwen2_moe.ids.npy")], "logits", "moe/qwen2_moe.torch.npy", 1e-4),
    ("olmoe_fp16", "moe/olmoe.onnx", ["--input-shape", "ids=2x8", "--precision=fp16"],
     [("ids", "moe/olmoe.ids.npy")], "logits", "moe/olmoe.torch.npy", 5e-3),
    ("llama_mask_fp32", "llama_mask/llama_mask.onnx", [],
     [("ids", "llama_mask/ids.npy"), ("mask", "llama_mask/mask.npy")], "logits",
     "llama_mask/torch.npy", 1e-4),
]


def prepare_models(a):
    out = os.path.abspath(a.out)
    inputs_dir = os.path.join(ROOT, "test", "Models", "Inputs")
    if not os.path.exists(os.path.join(out, "bin", "runner")):
        link_runner(out)
    shutil.rmtree(os.path.join(out, "models"), ignore_errors=True)
    exported = os.path.join(out, "exported")
    os.makedirs(exported, exist_ok=True)
    for name, opset in (("gpt2", 17), ("gpt2", 14), ("cnn", 17), ("cnn", 14),
                        ("mobilenet_v3_small", 17)):
        subprocess.check_call([sys.executable, os.path.join(inputs_dir, "torch_reference.py"),
                               name, str(opset), exported], stdout=subprocess.DEVNULL)
    env = dict(os.environ, CXX=os.path.join(HERE, "shared-object-cxx.sh"),
               SHARDC_NO_CCACHE="1")
    manifest = []
    for name, model, flags, inputs, output, ref, rtol in MODELS:
        if a.filter and not re.search(a.filter, name):
            continue
        src = lambda f: (os.path.join(exported, f) if os.path.exists(os.path.join(exported, f))
                         else os.path.join(inputs_dir, f))
        d = os.path.join(out, "models", name)
        os.makedirs(d)
        subprocess.check_call([a.shardc, src(model), "--target=cuda", "--cuda-arch=" + a.cuda_arch,
                               "--cpu=x86-64-v3", "-o", os.path.join(d, "libshardc_model.so")]
                              + flags, env=env)
        args = []
        for k, (inp, f) in enumerate(inputs):
            shutil.copy(src(f), os.path.join(d, "input_%d.npy" % k))
            args.append([inp, "input_%d.npy" % k])
        shutil.copy(src(ref), os.path.join(d, "reference.npy"))
        manifest.append({"name": name, "inputs": args, "output": output, "rtol": rtol,
                         "flags": " ".join(flags)})
        print("compiled %s" % name, flush=True)
    shutil.rmtree(exported)
    with open(os.path.join(out, "models.json"), "w") as f:
        json.dump(manifest, f, indent=0)


def run_models(a):
    import numpy as np
    out = os.path.abspath(a.out)
    with open(os.path.join(out, "models.json")) as f:
        manifest = json.load(f)
    runner = os.path.join(out, "bin", "runner")
    if a.filter:
        manifest = [m for m in manifest if re.search(a.filter, m["name"])]
    fails = 0
    for m in manifest:
        d = os.path.join(out, "models", m["name"])
        env = dict(os.environ, LD_LIBRARY_PATH=d + ":" + os.path.join(out, "lib") + ":" +
                   os.environ.get("LD_LIBRARY_PATH", ""))
        cmd = list(a.wrap) + [runner, "--weights", os.path.join(d, "libshardc_model.so.weights"),
                              "--output", os.path.join(d, "out")]
        for name, f in m["inputs"]:
            cmd += ["--input", "%s=%s" % (name, os.path.join(d, f))]
        t0 = time.time()
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
        secs = time.time() - t0
        tail = (p.stdout + p.stderr).strip().splitlines()
        if p.returncode != 0:
            fails += 1
            print("FAIL %-16s exit %d: %s" % (m["name"], p.returncode, " | ".join(tail[-6:])))
            continue
        if a.wrap and not any("ERROR SUMMARY: 0 errors" in l for l in tail):
            fails += 1
            print("FAIL %-16s sanitizer: %s" % (m["name"], " | ".join(tail[-6:])))
            continue
        got = np.load(os.path.join(d, "out", m["output"] + ".npy"))
        ref = np.load(os.path.join(d, "reference.npy"))
        if got.shape != ref.shape:
            fails += 1
            print("FAIL %-16s shape %s, expected %s" % (m["name"], got.shape, ref.shape))
            continue
        scale = float(np.max(np.abs(ref))) or 1.0
        err = float(np.max(np.abs(got.astype(np.float64) - ref))) / scale
        ok = err <= m["rtol"] and np.isfinite(got).all()
        fails += not ok
        print("%s %-16s max_rel_err=%.3g (limit %.0e, %.1f s)%s" % (
            "PASS" if ok else "FAIL", m["name"], err, m["rtol"], secs,
            "" if np.isfinite(got).all() else " NON-FINITE"), flush=True)
    print("models: %d of %d pass" % (len(manifest) - fails, len(manifest)))
    return 1 if fails else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("out")
    p.add_argument("--shardc", default=os.path.join(ROOT, "build", "tools", "shardc", "shardc"))
    p.add_argument("--suite", action="append", choices=["debian", "shared"])
    p.add_argument("--filter")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--cuda-arch", default="sm_90")
    r = sub.add_parser("run")
    r.add_argument("out")
    r.add_argument("--jobs", type=int, default=8)
    r.add_argument("--report")
    pm = sub.add_parser("prepare-models")
    pm.add_argument("out")
    pm.add_argument("--shardc", default=os.path.join(ROOT, "build", "tools", "shardc", "shardc"))
    pm.add_argument("--filter")
    pm.add_argument("--cuda-arch", default="sm_90")
    rm = sub.add_parser("run-models")
    rm.add_argument("out")
    rm.add_argument("--filter")
    rm.add_argument("--wrap", type=shlex.split, default=[],
                    help="a command to run each program under "
                    "('compute-sanitizer --tool memcheck')")
    a = ap.parse_args()
    if a.cmd == "prepare-models":
        prepare_models(a)
        return 0
    if a.cmd == "run-models":
        return run_models(a)
    if a.cmd == "prepare":
        a.suite = a.suite or ["debian", "shared"]
        prepare(a)
        return 0
    return run(a)


if __name__ == "__main__":
    sys.exit(main())
