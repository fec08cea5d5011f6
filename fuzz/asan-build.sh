# Sourced by scripts/fuzz.sh, scripts/fuzz-smoke.sh and scripts/sanitize.sh:
# configures build-asan/ (clang-19, ASan+UBSan, libFuzzer targets) and builds
# the given ninja targets there.
#
#   SHARDC_ASAN_DIR   the build folder (default build-asan)
#   SHARDC_ASAN_JOBS  ninja -j (default: nproc)
# The sanitizer runtime's options used by every script:
#   ASAN_OPTIONS, UBSAN_OPTIONS (kept if set), ASAN_SYMBOLIZER_PATH.

ASAN_DIR=${SHARDC_ASAN_DIR:-build-asan}
export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-/usr/lib/llvm-19/bin/llvm-symbolizer}
export UBSAN_SYMBOLIZER_PATH=$ASAN_SYMBOLIZER_PATH
# allow_user_poisoning=0: LLVM's BumpPtrAllocator, inlined into our
# instrumented code, poisons each new slab of an MLIR StorageUniquer
# allocator (an attribute built by a dialect's generated code starts it),
# and libMLIR, which is not instrumented, then allocates attributes in that
# slab without unpoisoning them: reading such an attribute (a dist.shard's
# dictionary, under the threaded verifier) is a false use-after-poison.
# Heap, stack and global errors are still caught; only this manual
# poisoning is off.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:allow_user_poisoning=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

asan_configure() {
  if ! command -v clang++-19 >/dev/null; then
    echo "$0: clang++-19 is missing (scripts/install-deps.sh installs it)" >&2
    exit 2
  fi
  if [ ! -f "$ASAN_DIR/build.ninja" ]; then
    mkdir -p "$ASAN_DIR"
    local log
    log=$(mktemp)
    cmake -G Ninja -S . -B "$ASAN_DIR" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
      -DSHARDC_FUZZ=ON >"$log" 2>&1 || { cat "$log" >&2; rm -f "$log"; exit 2; }
    rm -f "$log"
  fi
  # Nothing in it belongs in git (.gitignore lists build/ only).
  [ -f "$ASAN_DIR/.gitignore" ] || echo '*' >"$ASAN_DIR/.gitignore"
}

asan_build() {
  asan_configure
  nice -n 10 ninja -C "$ASAN_DIR" -j "${SHARDC_ASAN_JOBS:-$(nproc)}" "$@"
}
