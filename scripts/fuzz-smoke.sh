#!/usr/bin/env bash
# The fuzzing smoke test for CI: builds the libFuzzer targets (build-asan/,
# clang-19, ASan+UBSan) and runs each one SECONDS (default 30) on its
# committed corpus (fuzz/corpus/). Fails, printing the crash, if any target
# crashes, leaks, times out or runs out of memory (scripts/fuzz.sh).
#
#   scripts/fuzz-smoke.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-${SHARDC_FUZZ_SMOKE_SECONDS:-30}}
start=$SECONDS
scripts/fuzz.sh --build
built=$SECONDS
status=0
scripts/fuzz.sh all "$secs" || status=1
echo "fuzz-smoke.sh: build $((built - start)) s, fuzzing $((SECONDS - built)) s" \
  "($secs s per target); $([ $status -eq 0 ] && echo no crash || echo CRASHED)"
exit $status
