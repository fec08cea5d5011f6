"""Builds and runs emulate/moe_kernels.cpp: moe.cuh's kernels on the host
emulation of CUDA against the CPU runtime's (libshardc_rt.a, found beside
the shardc binary's build tree), with the generated kernels of
PLACE_KERNELS (shardc-translate --kern-to-cuda of Inputs/moe_place.mlir).

    emulate_moe_kernels.py SHARDC WORKDIR SRC_ROOT PLACE_KERNELS
"""
import os
import shutil
import subprocess
import sys

shardc, work, src, place = sys.argv[1:5]
here = os.path.dirname(os.path.abspath(__file__))
runtime = os.path.join(os.path.dirname(os.path.abspath(shardc)), "..", "..", "runtime")
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
exe = os.path.join(work, "moe_kernels")
build = subprocess.run(
    [os.environ.get("CXX", "c++"), "-std=c++20", "-O1", "-ffp-contract=off", "-w",
     "-I" + os.path.join(here, "emulate"),
     '-DSC_PLACE_KERNELS="%s"' % os.path.abspath(place),
     "-I" + os.path.join(src, "lib", "Target", "Cuda", "prelude"),
     "-I" + os.path.join(src, "runtime", "include"),
     os.path.join(here, "emulate", "moe_kernels.cpp"),
     os.path.join(runtime, "libshardc_rt.a"), "-ldnnl", "-fopenmp", "-lpthread", "-lm",
     "-o", exe], capture_output=True, text=True)
if build.returncode:
    sys.exit("emulate_moe_kernels: build failed:\n" + build.stderr[-4000:])
sys.exit(subprocess.run([exe]).returncode)
