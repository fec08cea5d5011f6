#!/bin/bash
# The GPU validation of docs/gpu-validation.md in one call of the device tool:
#   bash scripts/gpu-validate.sh build/gpu/validate.tar.xz [STAGE ...]
# (the bundle made here as docs/gpu-validation.md says). Runs the stages
# given (default: gtests nodes models dlopen memcheck nccl), each with a time
# limit, after the machine's facts: the runtime's GPU gtests, the node-test
# bundle, the model tests, a log of the libraries the runtime dlopen'ed, the
# model tests under compute-sanitizer memcheck, the NCCL programs, the
# programs of test/Target/Cuda's attention.test and lm-head.test
# (`programs`, carry build/gpu/att) at fp32, fp16 and bf16 against the
# CPU; `bench`
# adds the cuBLASLt throughput and bench/bench_gpu.py run build/gpu/bench.
# Logs go to $OUT (the device tool brings them back).
set -u
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT"
B=/tmp/gpu-bundle
rm -rf $B && mkdir -p $B && tar -xJf "$1" -C $B || exit 1
shift
STAGES=${*:-gtests nodes models dlopen memcheck nccl}
REPO=$PWD
want() { [[ " $STAGES " == *" $1 "* ]]; }
log() { echo "== $* ($(date +%T))"; }

log facts
date -u
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
lscpu | grep -m1 "Model name"
which mpirun || echo "no mpirun"
# CUDA libraries: the image's toolkit and PyTorch's wheels.
WHEELS=$(python3 -c 'import nvidia, os; print(os.path.dirname(nvidia.__path__[0]) + "/nvidia")' 2>/dev/null)
LIBS=/usr/local/cuda/lib64
for d in cublas cudnn nccl cu13; do
  for l in "$WHEELS"/$d/lib; do [ -d "$l" ] && LIBS=$LIBS:$l; done
done
export LD_LIBRARY_PATH=$LIBS:$B/lib:${LD_LIBRARY_PATH:-}
NCCL=$(ls "$WHEELS"/nccl/lib/libnccl.so.2 "$WHEELS"/cu13/lib/libnccl.so.2 2>/dev/null | head -1)
export SHARDC_LIBNCCL=${NCCL:-libnccl.so.2}
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
echo "SHARDC_LIBNCCL=$SHARDC_LIBNCCL"
ls /usr/local/cuda/lib64 | grep -E "cublasLt|cudnn|nccl" | head
ls "$WHEELS"/*/lib 2>/dev/null | grep -E "^/|cublasLt|cudnn.so|nccl" | head -20

if want gtests; then
log "runtime GPU gtests (expected: 5 CudaGpu pass, 3 NcclGpu pass, Nccl.WithoutGpu skipped)"
timeout 90 $B/rt/shardc-runtime-tests --gtest_filter='CudaGpu*:NcclGpu*:Nccl.*:CudaLibraries*' \
  2>&1 | tee $OUT/gtests.txt | grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[==|Failure|error" | head -60

fi
if want bench; then
log "cuBLASLt plans' throughput"
timeout 120 $B/rt/shardc-runtime-tests --gtest_also_run_disabled_tests \
  --gtest_filter='*MatmulThroughput' 2>&1 | grep -E "^matmul|FAIL|rror"
log "bench/bench_gpu.py run build/gpu/bench"
timeout 240 python3 $REPO/bench/bench_gpu.py run $REPO/build/gpu/bench --markdown $OUT/bench.md 2>&1 \
  | grep -v Warning | tail -30
fi
if want models; then
log "model tests (expected: 14 of 14 pass)"
timeout 90 python3 $REPO/scripts/gpu-bundle.py run-models $B 2>&1 | tee $OUT/models.txt

fi
if want dlopen; then
log "dlopen log of one model run"
d=$B/models/gpt2_17_fp16
LD_DEBUG=files LD_LIBRARY_PATH=$d:$LD_LIBRARY_PATH $B/bin/runner --weights $d/libshardc_model.so.weights \
  --input ids=$d/input_0.npy 2>&1 | grep -E "dynamically loaded|file=lib(cuda|cublas|cudnn|nccl)" \
  | sed 's/^ *[0-9]*: *//' | sort -u | head -30

fi
if want memcheck; then
log "compute-sanitizer memcheck of the model tests (expected: 0 errors in each of 7)"
CS=$(which compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
timeout 120 python3 $REPO/scripts/gpu-bundle.py run-models $B \
  --filter 'gpt2_17|cnn_17_fp32|mixtral_fp32|llama|mobilenet_bf16' \
  --wrap "$CS --tool memcheck --leak-check full --error-exitcode 9" 2>&1 | tee $OUT/memcheck.txt

fi
if want nccl; then
log "NCCL programs"
cd $B/nccl
./one --input ids=tiny_gpt2_ids.npy --output one.out; echo "one: exit $?"
./cpu --input ids=tiny_gpt2_ids.npy --output cpu.out >/dev/null; echo "cpu: exit $?"
python3 $REPO/scripts/compare-npy.py one.out/logits.npy cpu.out/logits.npy --rtol 1e-4
SHARDC_CUDA_GRAPHS=0 ./one --input ids=tiny_gpt2_ids.npy --output one.nograph >/dev/null
python3 $REPO/scripts/compare-npy.py one.nograph/logits.npy cpu.out/logits.npy --rtol 1e-4
./one --input ids=tiny_gpt2_ids.npy --benchmark --iterations 200 2>&1 | tail -2
if which mpirun >/dev/null; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 -x SHARDC_NCCL_TIMEOUT=30 \
    -x LD_LIBRARY_PATH -x SHARDC_LIBNCCL ./tp2 --input ids=tiny_gpt2_ids.npy; echo "tp2: exit $?"
fi
fi
if want programs; then
log "programs against the CPU (expected: attention_mix's 8 outputs and lm_head's logits at fp32, fp16, bf16 within 1e-4 (5e-3 for attention_mix's fp16 half_*), 5e-3, 4e-2)"
if [ -d $REPO/build/gpu/att ]; then
  for d in $REPO/build/gpu/att/*/; do
    cd $d
    for p in cuda32:1e-4 cuda16:5e-3 cudabf:4e-2; do
      exe=${p%%:*}; tol=${p##*:}
      ./$exe $(cat args) --output out_$exe >/dev/null; echo "$(basename $d) $exe: exit $?"
      for f in ref/*.npy; do
        n=$(basename $f .npy); t=$tol
        # half_*: fp16 in the model itself, within 5e-3 whatever the precision
        [[ $n == half_* && $exe == cuda32 ]] && t=5e-3
        echo -n "  $n: "
        python3 $REPO/scripts/compare-npy.py out_$exe/$n.npy $f --rtol $t
      done
    done
    CS=$(which compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
    $CS --tool memcheck --error-exitcode 9 ./cuda16 $(cat args) --output out_cs >/dev/null \
      2>$OUT/memcheck-$(basename $d).txt
    echo "$(basename $d) cuda16 under memcheck: exit $?"
  done
  cd $REPO
else
  echo "no build/gpu/att (scripts/gpu-prepare.sh makes it)"
fi
fi
if want nodes; then
log "node tests (expected: every compiled program passes, as on the CPU)"
timeout ${NODES_TIMEOUT:-180} python3 $REPO/scripts/gpu-bundle.py run $B --jobs ${NODES_JOBS:-12} \
  --report $OUT/nodes.txt 2>&1 | tee $OUT/nodes-log.txt | tail -60
fi
log done
