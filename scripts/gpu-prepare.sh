#!/bin/bash
# Everything a lent GPU session carries, built here in one command
# (docs/gpu-validation.md, "Procedure"):
#   scripts/gpu-prepare.sh            # build/gpu/validate.tar.xz and build/gpu/bench
# then, with the device tool (carry both; about 51 MB with the working tree):
#   bash scripts/gpu-validate.sh build/gpu/validate.tar.xz [STAGE ...]
# Takes about 5 minutes on 2 cores (the node-test bundle is most of it).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=/usr/bin/python3
S=build/tools/shardc/shardc
OUT=build/gpu/nodes
flock /tmp/shardc-build.lock ninja -C build
$PY scripts/gpu-bundle.py prepare $OUT
$PY scripts/gpu-bundle.py prepare-models $OUT
mkdir -p $OUT/rt $OUT/nccl
cp build/runtime/shardc-runtime-tests $OUT/rt/
M="examples/tiny_gpt2.onnx --input-shape ids=1x16 --cuda-arch=sm_90"
$S $M --tp=2 --target=cuda -o $OUT/nccl/tp2
$S $M --target=cuda -o $OUT/nccl/one
$S examples/tiny_gpt2.onnx --input-shape ids=1x16 -o $OUT/nccl/cpu
cp examples/tiny_gpt2_ids.npy $OUT/nccl/
rm -rf $OUT/models/*/out
tar -C $OUT -cf - . | xz -T2 -6 > build/gpu/validate.tar.xz
rm -rf build/gpu/bench
$PY bench/bench_gpu.py prepare build/gpu/bench --layers 1 --vocab 2048 --cuda-arch sm_90
du -sh build/gpu/validate.tar.xz build/gpu/bench
