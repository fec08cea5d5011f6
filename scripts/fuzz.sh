#!/usr/bin/env bash
# Builds (if needed) and runs one libFuzzer target on its corpus.
#
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer flags...]
#   scripts/fuzz.sh all SECONDS             each target SECONDS in turn
#   scripts/fuzz.sh --keep-going TARGET SECONDS
#                                           libFuzzer -fork=1: a crash is
#                                           saved and fuzzing goes on
#   scripts/fuzz.sh --build                 only build the fuzzers
#   scripts/fuzz.sh --make-corpus           regenerate fuzz/corpus/ (below)
#   scripts/fuzz.sh --update-corpus         add to fuzz/corpus/ what the runs
#                                           found (build-asan/fuzz-work/) and
#                                           adds coverage
#
# TARGET: onnx, plan, weights, npy, pb (fuzz/CMakeLists.txt says what each
# one drives). The fuzzers live in build-asan/fuzz/ (clang-19, ASan+UBSan;
# fuzz/asan-build.sh). A run reads the committed seeds in fuzz/corpus/TARGET
# and keeps what it finds in build-asan/fuzz-work/TARGET (not committed).
# A crash, leak, timeout (10 s) or out-of-memory (2 GiB) stops the run: its
# input lands in build-asan/fuzz-crashes/TARGET/ and the script prints the
# sanitizer's summary, the stack top and the command that reproduces it, and
# exits 1. Each run appends one line to build-asan/fuzz-stats.tsv.
#
# --make-corpus runs fuzz/make_seeds.py (test models, node tests, compiled
# plans and weights, .npy/.pb files) and keeps, per target, the inputs that
# add coverage (libFuzzer -merge=1) together with the present corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
source fuzz/asan-build.sh
TARGETS=(onnx plan weights npy pb)

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
}

build_fuzzers() {
  asan_build shardc-fuzz-onnx shardc-fuzz-plan shardc-fuzz-weights \
    shardc-fuzz-npy shardc-fuzz-pb
}

# Where the harnesses write their files (fuzz/FuzzUtil.h): /dev/shm if usable.
fuzz_tmp_base() {
  if [ -w /dev/shm ]; then echo /dev/shm; else echo "${TMPDIR:-/tmp}"; fi
}

# merge_corpus TARGET DIR...: fuzz/corpus/TARGET becomes the inputs of itself
# and DIRs that add coverage (libFuzzer -merge=1).
merge_corpus() {
  local t=$1 tmp
  shift
  tmp=$(mktemp -d)
  local new="fuzz/corpus/$t"
  mkdir -p "$new" && cp -a "$new/." "$tmp/" && rm -rf "$new" && mkdir -p "$new"
  local shm
  shm=$(mktemp -d "$(fuzz_tmp_base)/shardc-fuzz-run-XXXXXX")
  SHARDC_FUZZ_TMPDIR=$shm "$ASAN_DIR/fuzz/shardc-fuzz-$t" -merge=1 \
    -rss_limit_mb=2048 -timeout=10 "$new" "$tmp" "$@" >"$tmp.log" 2>&1 ||
    { tail -30 "$tmp.log" >&2; echo "fuzz.sh: merge of $t failed" >&2; }
  rm -rf "$tmp" "$tmp.log" "$shm"
  echo "fuzz.sh: corpus $t: $(ls "$new" | wc -l) inputs, $(du -sb "$new" | cut -f1) bytes"
}

make_corpus() {
  build_fuzzers
  local raw
  raw=$(mktemp -d)
  /usr/bin/python3 fuzz/make_seeds.py "$raw" \
    --shardc "${SHARDC_SEED_COMPILER:-build/tools/shardc/shardc}"
  for t in "${TARGETS[@]}"; do
    mkdir -p "$raw/$t"
    merge_corpus "$t" "$raw/$t"
  done
  rm -rf "$raw"
}

update_corpus() {
  build_fuzzers
  for t in "${TARGETS[@]}"; do
    mkdir -p "$ASAN_DIR/fuzz-work/$t"
    merge_corpus "$t" "$ASAN_DIR/fuzz-work/$t"
  done
}

run_target() {
  local t=$1 secs=$2
  shift 2
  local bin="$ASAN_DIR/fuzz/shardc-fuzz-$t"
  local work="$ASAN_DIR/fuzz-work/$t" crashes="$ASAN_DIR/fuzz-crashes/$t"
  local log="$ASAN_DIR/fuzz-logs/$t.log"
  mkdir -p "$work" "$crashes" "$(dirname "$log")" "fuzz/corpus/$t"
  local before
  before=$(ls "$crashes")
  echo "fuzz.sh: $t for ${secs} s (log $log)"
  local rc=0 shm
  # The harnesses' private folders go in a folder of this run, removed
  # after it: libFuzzer often leaves by _Exit or abort, skipping atexit.
  shm=$(mktemp -d "$(fuzz_tmp_base)/shardc-fuzz-run-XXXXXX")
  SHARDC_FUZZ_TMPDIR=$shm "$bin" -max_total_time="$secs" -print_final_stats=1 \
    -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$crashes/" $keep_going \
    "$@" "$work" "fuzz/corpus/$t" >"$log" 2>&1 || rc=$?
  rm -rf "$shm"
  local runs rate
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  if [ -n "$keep_going" ]; then # -fork: "#RUNS: cov: ... exec/s: N ..."
    runs=$(sed -n 's/^#\([0-9]*\): cov:.*/\1/p' "$log" | tail -1)
    rate=$(( ${runs:-0} / (secs > 0 ? secs : 1) ))
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" "$secs" \
    "${runs:-0}" "${rate:-0}" "$rc" >>"$ASAN_DIR/fuzz-stats.tsv"
  local found
  found=$(comm -13 <(echo "$before") <(ls "$crashes"))
  if [ "$rc" -ne 0 ] || [ -n "$found" ]; then
    echo "fuzz.sh: CRASH in $t (exit $rc) after ${runs:-?} runs;" \
      "$(echo "$found" | grep -c .) new input(s) in $crashes/" >&2
    [ -n "$found" ] || tail -20 "$log" | sed 's/^/  /' >&2
    for f in $found; do
      echo "  input:     $crashes/$f ($(stat -c %s "$crashes/$f") bytes)" >&2
      # Its report, reproduced: what went wrong and the first frames.
      "$bin" -rss_limit_mb=2048 -timeout=10 "$crashes/$f" 2>&1 |
        grep -E '^(==[0-9]+==ERROR|SUMMARY|FUZZ_CHECK|.*runtime error:|==[0-9]+== ERROR: libFuzzer)| +#[0-5] ' |
        head -9 | cut -c1-200 | sed 's/^/    /' >&2 || true
      echo "  reproduce: $bin $crashes/$f" >&2
      echo "  minimize:  $bin -minimize_crash=1 -max_total_time=60" \
        "-exact_artifact_path=min.input $crashes/$f" >&2
    done
    echo "  full log:  $log" >&2
    return 1
  fi
  local corp
  corp=$(grep -oE 'corp: [0-9]+(/[0-9a-zA-Z]+)?' "$log" | tail -1 | cut -d' ' -f2)
  echo "fuzz.sh: $t: ${runs:-0} runs, ${rate:-0} exec/s, corpus ${corp:-?}, no crash"
}

keep_going=
if [ "${1:-}" = --keep-going ]; then
  keep_going="-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1"
  shift
fi
[ $# -ge 1 ] || usage
case $1 in
--build) build_fuzzers; exit 0 ;;
--make-corpus) make_corpus; exit 0 ;;
--update-corpus) update_corpus; exit 0 ;;
-h | --help) usage ;;
esac
[ $# -ge 2 ] || usage
target=$1 secs=$2
shift 2
[[ $secs =~ ^[0-9]+$ ]] || usage
if [ "$target" = all ]; then
  list=("${TARGETS[@]}")
else
  [[ " ${TARGETS[*]} " == *" $target "* ]] || { echo "fuzz.sh: unknown target '$target' (${TARGETS[*]})" >&2; exit 2; }
  list=("$target")
fi
buildlog=$(mktemp)
build_fuzzers >"$buildlog" 2>&1 || { cat "$buildlog" >&2; rm -f "$buildlog"; exit 2; }
rm -f "$buildlog"
status=0
for t in "${list[@]}"; do
  run_target "$t" "$secs" "$@" || status=1
done
exit $status
