"""Helpers the bench scripts share: the repository root, the Python that
runs the peers, a command's output (or exit naming the command), a p50 out
of an executable's --benchmark line, and the environment for mpirun."""
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
