#!/usr/bin/env bash
# Configures and builds shardc (Release, Ninja, ccache) into build/.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
  cmake -G Ninja -S . -B build -DCMAKE_BUILD_TYPE=Release
fi
ninja -C build -j "$(nproc)" shardc shardc-opt shardc-nvrtc shardc_rt shardc_main
