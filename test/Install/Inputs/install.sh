#!/bin/sh
# install.sh BUILD SRC: installs shardc from BUILD into a temporary prefix
# outside both trees, pip-installs the Python package beside it, then runs
# hidden.sh in a mount namespace of its own where BUILD and SRC are empty.
set -eu
build=$1 src=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/shardc-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
echo "installed: $(cd "$work/prefix" && find bin lib include -type f | sort | tr '\n' ' ')"
cp "$src/examples/tiny_gpt2.onnx" "$src/examples/tiny_gpt2_ids.npy" \
   "$src/test/Install/Inputs/hidden.sh" "$src/test/Install/Inputs/check.py" "$work/"
cp -r "$src/python" "$work/python-src"
/usr/bin/python3 -m pip install -q --no-deps --no-build-isolation --no-index \
  --target "$work/site" "$work/python-src" > "$work/pip.log" 2>&1 ||
  { cat "$work/pip.log"; exit 1; }
# ONNX Runtime's logits, while the source tree is still there.
/usr/bin/python3 "$work/check.py" reference "$work"
unshare -m sh "$work/hidden.sh" "$build" "$src" "$work"
