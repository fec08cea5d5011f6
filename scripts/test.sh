#!/usr/bin/env bash
# The whole test suite on a fresh machine: install, build, run lit; then the
# sanitized tests (ASan+UBSan, build-asan/) and a 30-second fuzzing smoke per
# libFuzzer target on the committed corpus (docs/reliability.md).
# SHARDC_SKIP_SANITIZERS=1 skips the last two (a quicker local run).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
ninja -C build check-shardc
if [ "${SHARDC_SKIP_SANITIZERS:-0}" != 1 ]; then
  scripts/sanitize.sh
  scripts/fuzz-smoke.sh
fi
