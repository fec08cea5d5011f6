"""Helpers the bench scripts share: the repository root, the Python that
runs the peers, a command's output (or exit naming the command), a p50 out
of an executable's --benchmark line, the environment for mpirun, and the
ONNX Runtime worker that times a model in a process of its own."""
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
PY = "/usr/bin/python3"
MPI_ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMP_NUM_THREADS="1")


def run(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode:
        sys.exit("failed: %s\n%s%s" % (" ".join(cmd), p.stdout, p.stderr))
    return p.stdout + p.stderr


def p50(text):
    m = re.search(r"p50=([0-9.]+)", text)
    if not m:
        sys.exit("no p50 in:\n" + text)
    return float(m.group(1))


# ONNX Runtime in a process of its own (its spinning threads would distort
# a neighbour): python3 -c ORT_WORKER MODEL THREADS ITERATIONS WARMUP
# NAME=FILE.npy ...; prints "p50=<ms>" (intra-op THREADS, inter-op 1,
# sequential).
ORT_WORKER = r"""
import sys, time
import numpy as np
import onnxruntime as ort
model, threads, iterations, warmup = sys.argv[1:5]
so = ort.SessionOptions()
so.intra_op_num_threads = int(threads)
so.inter_op_num_threads = 1
so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
feeds = {a.split("=", 1)[0]: np.load(a.split("=", 1)[1]) for a in sys.argv[5:]}
for _ in range(int(warmup)):
    sess.run(None, feeds)
times = []
for _ in range(int(iterations)):
    t = time.perf_counter()
    sess.run(None, feeds)
    times.append((time.perf_counter() - t) * 1000)
print("p50=%.6f" % float(np.percentile(times, 50)))
"""
