#!/usr/bin/env bash
# Builds shardc, its runtime and tests with ASan+UBSan (clang-19, into
# build-asan/, shared with the fuzzers: fuzz/asan-build.sh) and runs under
# the sanitizers:
#   - the runtime gtests (build-asan/runtime/shardc-runtime-tests),
#   - the lit tests of the importer (test/Import/ONNX: errors, hostile,
#     import), the runtime CLI (test/Runtime/cli.test), the CPU driver tests
#     (test/Driver but cuda.test) and the model tests (test/Models but the
#     mpirun one, see below).
# Executables that the sanitized shardc builds during the tests are
# sanitized too: they link build-asan's sanitized runtime, so the host
# compiler is a `c++` wrapper (clang++-19 -fsanitize=address,undefined)
# put first on PATH, where shardc's toolchain looks for `c++` ($CXX unset).
# Any sanitizer report aborts the process and fails its test.
#
#   scripts/sanitize.sh                 build and run all of the above
#   scripts/sanitize.sh REGEX           only the lit tests whose path matches
#   SHARDC_ASAN_JOBS=1 scripts/sanitize.sh   build with one job
set -euo pipefail
cd "$(dirname "$0")/.."
source fuzz/asan-build.sh

# Not the model tests whose ranks mpirun starts (dynamic-hf-tp): Open MPI's
# libraries and the components it loads leak at exit, and LeakSanitizer
# reports them in every rank; the single-rank dynamic-dims tests run the
# same generated code and runtime under the sanitizers.
filter=${1:-'Import/ONNX/|Runtime/cli|Driver/(executable|fusion-report|precision)|Models/(?!dynamic-hf-tp)'}
start=$SECONDS

asan_build shardc shardc-opt shardc-nvrtc shardc_rt shardc_main shardc-runtime-tests \
  shardc-fake-model shardc-fake-weights
built=$SECONDS
echo "sanitize.sh: build-asan up to date after $((built - start)) s"

# The host compiler of the executables shardc builds (see above).
wrap="$ASAN_DIR/sanitize-bin"
mkdir -p "$wrap"
cat >"$wrap/c++" <<'WRAP'
#!/bin/sh
exec clang++-19 -fsanitize=address,undefined -fno-sanitize-recover=all \
  -fno-omit-frame-pointer "$@"
WRAP
chmod +x "$wrap/c++"
export PATH="$PWD/$wrap:$PATH"
unset CXX

status=0
echo "sanitize.sh: runtime gtests"
"$ASAN_DIR/runtime/shardc-runtime-tests" --gtest_brief=1 || status=1
gtests=$SECONDS

echo "sanitize.sh: lit tests matching '$filter'"
/usr/bin/python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv \
  --filter "$filter" "$ASAN_DIR/test" || status=1
end=$SECONDS
echo "sanitize.sh: build $((built - start)) s, gtests $((gtests - built)) s," \
  "lit $((end - gtests)) s; $([ $status -eq 0 ] && echo clean || echo FAILED)"
exit $status
