#!/bin/bash
# Everything a lent GPU session carries, built here in one command
# (docs/gpu-validation.md, "Procedure"):
#   scripts/gpu-prepare.sh   # build/gpu/validate.tar.xz, build/gpu/bench, build/gpu/att
# then, with the device tool (carry the three; about 56 MB with the working tree):
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
# The attention kernels of test/Target/Cuda/attention.test at fp32, fp16
# and bf16, with random inputs and the CPU executable's outputs (stage
# `attention`; carry build/gpu/att).
A=build/gpu/att
rm -rf $A && mkdir -p $A/in
$PY test/Target/Cuda/Inputs/make_attention_models.py $A
$PY - $A <<'PYEOF'
import sys, onnx, numpy as np
d = sys.argv[1]
rng = np.random.default_rng(7)
args = []
for i in onnx.load(d + "/attention_mix.onnx").graph.input:
    dims = [x.dim_value for x in i.type.tensor_type.shape.dim]
    np.save("%s/in/%s.npy" % (d, i.name), rng.standard_normal(dims).astype(np.float32))
    args.append("--input %s=in/%s.npy" % (i.name, i.name))
open(d + "/args", "w").write(" ".join(args))
PYEOF
$S $A/attention_mix.onnx -o $A/cpu
for p in cuda32: cuda16:--precision=fp16 cudabf:--precision=bf16; do
  $S $A/attention_mix.onnx --target=cuda --cuda-arch=sm_90 ${p#*:} -o $A/${p%%:*}
done
(cd $A && ./cpu $(cat args) --output ref >/dev/null)
rm -rf build/gpu/bench
$PY bench/bench_gpu.py prepare build/gpu/bench --layers 1 --vocab 2048 --cuda-arch sm_90
du -sh build/gpu/validate.tar.xz build/gpu/bench $A
