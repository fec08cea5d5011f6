#!/usr/bin/env bash
# Installs every Debian package that shardc's build and tests need.
# Idempotent and non-interactive: packages already present are skipped.
set -euo pipefail

PKGS=(
  # toolchain
  cmake ninja-build ccache g++ git
  # LLVM / MLIR 19 (FileCheck and lit come with llvm-19-tools)
  llvm-19-dev libmlir-19-dev mlir-19-tools llvm-19-tools
  # ONNX protobuf schema and parser
  libonnx-dev libprotobuf-dev protobuf-compiler
  # CPU runtime libraries: oneDNN, Open MPI
  libdnnl-dev openmpi-bin libopenmpi-dev
  # tests: model export and reference data
  python3-onnx python3-numpy python3-torch python3-torchvision libonnx-testdata
)

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PKGS[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
