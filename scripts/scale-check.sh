#!/bin/bash
# Opt-in scale check: compiles graphs of N nodes (default 20,000) of three
# shapes (a chain of elementwise ops, N parallel nodes into one Concat, N
# graph outputs) to executables, runs them, compares with onnxruntime, and
# prints each compile's wall time and peak RSS (GNU time). Not part of the
# lit suite (test/Driver/scale.test runs 2,000 nodes).
#
# usage: scripts/scale-check.sh [N] [SHARDC]   (SHARDC default build/tools/shardc/shardc)
# env:   LIMIT (seconds per compile, default 300); SHARDC_NO_CCACHE (default
#        1 here: cold host compiles); CHECK=0 skips running the executables
#        and onnxruntime (whose session on the 20,000-output model alone
#        takes minutes).
set -u
cd "$(dirname "$0")/.."
N=${1:-20000}
SHARDC=${2:-build/tools/shardc/shardc}
LIMIT=${LIMIT:-300}
CHECK=${CHECK:-1}
export SHARDC_NO_CCACHE=${SHARDC_NO_CCACHE:-1}
PY=/usr/bin/python3
WORK=$(mktemp -d "${TMPDIR:-/tmp}/shardc-scale.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
$PY test/Driver/Inputs/make_scale_models.py "$WORK" "$N"
printf '%-8s %8s %10s %12s  %s\n' shape nodes "time (s)" "peak RSS" result
status=0
for shape in chain concat outputs; do
  /usr/bin/time -f '%e %M' -o "$WORK/$shape.time" \
    timeout "$LIMIT" "$SHARDC" "$WORK/$shape.onnx" -o "$WORK/$shape" 2> "$WORK/$shape.log"
  rc=$?
  read -r secs kb < <(tail -1 "$WORK/$shape.time")
  result="compile failed (exit $rc): $(grep -m1 -v '^Command' "$WORK/$shape.log")"
  [ $rc = 124 ] && result="timed out after ${LIMIT} s"
  [ $rc = 0 ] && [ "$CHECK" = 0 ] && result="compiled (not run)"
  if [ $rc = 0 ] && [ "$CHECK" != 0 ]; then
    if "$WORK/$shape" --input x="$WORK/x.npy" --output "$WORK/out.$shape" > /dev/null &&
       ok=$($PY test/Driver/Inputs/check.py "$WORK/$shape.onnx" "$WORK/out.$shape" npy \
              x="$WORK/x.npy" | grep -c ' ok$'); then
      result="matches onnxruntime ($ok outputs)"
    else
      result="wrong results"; rc=1
    fi
  fi
  [ $rc = 0 ] || status=1
  printf '%-8s %8s %10s %9s MB  %s\n' "$shape" "$N" "$secs" "$((kb / 1024))" "$result"
done
exit $status
