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
# Programs checked against the CPU executable at fp32, fp16 and bf16
# (stage `programs`; carry build/gpu/att), with random inputs: the
# attention kernels of test/Target/Cuda/attention.test and the padded LM
# head of lm-head.test, one folder each.
A=build/gpu/att
rm -rf $A
for m in attention_mix:make_attention_models.py lm_head:make_lm_head.py; do
  d=$A/${m%%:*}
  mkdir -p $d/in
  $PY test/Target/Cuda/Inputs/${m#*:} $d
  $PY - $d/${m%%:*}.onnx <<'PYEOF'
import os, sys, onnx, numpy as np
path = sys.argv[1]
d = os.path.dirname(path)
rng = np.random.default_rng(7)
args = []
for i in onnx.load(path).graph.input:
    dims = [x.dim_value for x in i.type.tensor_type.shape.dim]
    if i.type.tensor_type.elem_type == onnx.TensorProto.INT64:
        a = rng.integers(0, 1000, dims).astype(np.int64)
    else:
        a = rng.standard_normal(dims).astype(np.float32)
    np.save("%s/in/%s.npy" % (d, i.name), a)
    args.append("--input %s=in/%s.npy" % (i.name, i.name))
open(d + "/args", "w").write(" ".join(args))
PYEOF
  $S $d/${m%%:*}.onnx -o $d/cpu
  for p in cuda32: cuda16:--precision=fp16 cudabf:--precision=bf16; do
    $S $d/${m%%:*}.onnx --target=cuda --cuda-arch=sm_90 ${p#*:} -o $d/${p%%:*}
  done
  (cd $d && ./cpu $(cat args) --output ref >/dev/null)
done
rm -rf build/gpu/bench
$PY bench/bench_gpu.py prepare build/gpu/bench --layers 1 --vocab 2048 --cuda-arch sm_90
du -sh build/gpu/validate.tar.xz build/gpu/bench $A
