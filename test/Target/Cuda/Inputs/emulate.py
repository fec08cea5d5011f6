"""Runs a model's CUDA program on the host emulation of CUDA (emulate/) and
compares every output with the CPU executable's.

    emulate.py SHARDC MODEL WORKDIR SRC_ROOT [SHARDC_FLAG ...]

No GPU is needed: the generated kernels (--emit=cuda) are compiled as host
C++ against emulate/shardc_cuda.cuh, the host side (--emit=cpp) as is, and
emulate/main.cpp runs the program's CUDA entry with sc_cu_launch going to
the emulation. Inputs are random (seeded): floats normal, those whose name
ends in "_special" in steps of 0.5 (ties) with NaN and infinities; integers
uniform. Outputs named "approx_*" (softmax, layer norm: fp32 statistics on
CUDA, double on the CPU) must agree within 1e-5 of the output's scale and
have NaN in the same places, those named "half_*" (fp16 results of kernels
that sum in another order on CUDA) within 4e-3; all others bit for bit.
Prints one line per output and exits non-zero on a mismatch.
"""
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import onnx

shardc, model, work, src = sys.argv[1:5]
flags = sys.argv[5:]  # extra shardc flags for the CUDA program
here = os.path.dirname(os.path.abspath(__file__))
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        sys.exit("emulate: %s failed:\n%s" % (" ".join(cmd), p.stderr[-4000:]))


run([shardc, model, "--target=cpu", "-o", work + "/cpu"])
run([shardc, model, "--target=cuda", "--emit=cuda", "-o", work + "/kernels.cu"] + flags)
run([shardc, model, "--target=cuda", "--emit=cpp", "-o", work + "/host.cpp"] + flags)

# One trampoline per kernel, in the program's kernel table order: it unpacks
# sc_cu_launch's argument array into the kernel's parameters.
kernels = open(work + "/kernels.cu").read()
host = open(work + "/host.cpp").read()
table = re.search(r"cuda_kernels\[\] = \{(.*?)\};", host, re.S)
names = re.findall(r'"(\w+)"', table.group(1)) if table else []
sigs = dict(re.findall(
    r'extern "C" __global__ void __launch_bounds__\(\d+\) (\w+)\((.*?)\) \{', kernels))
lines = ['#include "shardc_cuda.cuh"']
for n in names:
    params = [p.strip() for p in sigs[n].split(",")]
    lines.append('extern "C" void %s(%s);' % (n, ", ".join(params)))
    args = ", ".join("(%s)*(void **)a[%d]" % (p.split("__restrict__")[0].strip(), i)
                     for i, p in enumerate(params))
    lines.append("static void t_%s(void **a) { %s(%s); }" % (n, n, args))
lines.append("static void (*const tramps[])(void **) = {%s};" %
             ", ".join("t_" + n for n in names))
lines.append("void emu_run(unsigned k, unsigned grid, unsigned block, void **args) {\n"
             "  emu_launch(grid < 3 ? grid : 3, block, [&] { tramps[k](args); });\n}")
open(work + "/tramps.cpp", "w").write("\n".join(lines) + "\n")
run([os.environ.get("CXX", "c++"), "-std=c++20", "-O1", "-ffp-contract=off", "-w",
     "-I" + os.path.join(here, "emulate"),
     "-I" + os.path.join(src, "lib", "Target", "Cuda", "prelude"),
     "-I" + os.path.join(src, "runtime", "include"),
     "-x", "c++", work + "/kernels.cu", work + "/host.cpp", work + "/tramps.cpp",
     os.path.join(here, "emulate", "main.cpp"), "-o", work + "/emulated", "-lpthread"])

NP = {1: np.float32, 2: np.uint8, 3: np.int8, 5: np.int16, 6: np.int32, 7: np.int64,
      10: np.float16, 11: np.float64}
m = onnx.load(model)
inits = {i.name for i in m.graph.initializer}
rng = np.random.default_rng(7)
io = work + "/io"
os.makedirs(io)
cpu_args = []
for i in m.graph.input:
    if i.name in inits:
        continue
    t = i.type.tensor_type
    dims = [d.dim_value for d in t.shape.dim]
    dt = NP[t.elem_type]
    if np.issubdtype(dt, np.floating):
        a = rng.standard_normal(dims)
        if i.name.endswith("_special"):
            a = np.round(a * 2) / 2
            u = rng.random(dims)
            a[u < 0.04] = np.nan
            a[(u >= 0.04) & (u < 0.06)] = np.inf
            a[(u >= 0.06) & (u < 0.08)] = -np.inf
    else:
        info = np.iinfo(dt)
        a = rng.integers(max(info.min, -1000), min(info.max, 1000), dims, endpoint=True)
    a = a.astype(dt)
    np.save("%s/%s.npy" % (io, i.name), a)
    a.tofile("%s/in_%s.bin" % (io, i.name))
    cpu_args += ["--input", "%s=%s/%s.npy" % (i.name, io, i.name)]
run([work + "/cpu"] + cpu_args + ["--output", io + "/cpu"])
run([work + "/emulated", work + "/cpu.weights", io])

bad = False
for o in m.graph.output:
    want = np.load("%s/cpu/%s.npy" % (io, o.name))
    got = np.fromfile("%s/out_%s.bin" % (io, o.name), dtype=want.dtype).reshape(want.shape)
    if np.array_equal(want, got, equal_nan=want.dtype.kind == "f"):
        print("%s: exact" % o.name)
        continue
    tol = {"approx_": "1e-5", "half_": "4e-3"}.get(o.name.split("_")[0] + "_")
    if tol:
        w, g = want.astype(np.float64), got.astype(np.float64)
        same = np.isnan(w) == np.isnan(g)
        ok = bool(np.all(same))
        if ok:
            f = ~np.isnan(w)
            scale = max(float(np.max(np.abs(w[f]))) if f.any() else 0.0, 1e-30)
            ok = bool(np.all(np.abs(w[f] - g[f]) <= float(tol) * scale))
        if ok:
            print("%s: within %s" % (o.name, tol))
            continue
    bad = True
    print("%s: MISMATCH in %d of %d elements" % (
        o.name, int(np.sum(~((want == got) | (want != want) & (got != got)))), want.size))
sys.exit(1 if bad else 0)
