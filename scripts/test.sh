#!/usr/bin/env bash
# The whole test suite on a fresh machine: install, build, run lit.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
ninja -C build check-shardc
