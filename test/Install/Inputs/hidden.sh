#!/bin/sh
# hidden.sh BUILD SRC WORK, in a mount namespace: hides BUILD and SRC behind
# empty file systems, then compiles and runs with WORK/prefix alone.
set -eu
build=$1 src=$2 work=$3
mount -t tmpfs none "$build"
mount -t tmpfs none "$src"
[ -z "$(ls -A "$build")" ] && [ -z "$(ls -A "$src")" ] &&
  echo "build and source trees hidden"
cd "$work"
unset SHARDC_RUNTIME_LIB_DIR SHARDC_RUNTIME_INCLUDE_DIR
prefix/bin/shardc --version | head -n 1
prefix/bin/shardc tiny_gpt2.onnx --input-shape ids=1x16 -o tiny
./tiny --input ids=tiny_gpt2_ids.npy --output out > /dev/null
/usr/bin/python3 check.py compare "$work" out
PATH="$work/prefix/bin:$PATH" PYTHONPATH="$work/site" \
  /usr/bin/python3 check.py python "$work"
# A shardc copied away from its runtime says where it looked.
mkdir -p lonely/bin && cp prefix/bin/shardc lonely/bin/
if lonely/bin/shardc tiny_gpt2.onnx --input-shape ids=1x16 -o lonely/tiny \
     2> lonely.err; then
  echo "a shardc without its runtime compiled"; exit 1
fi
cat lonely.err
