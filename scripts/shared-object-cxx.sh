#!/bin/bash
# A CXX for shardc that builds the generated program as a shared object
# (libshardc_model.so) instead of an executable: compiles get -fPIC, and the
# link keeps only the objects, made into a shared library whose undefined
# runtime symbols resolve against the runner that loads it
# (scripts/gpu-bundle.py). Used as: CXX=scripts/shared-object-cxx.sh shardc ...
for a in "$@"; do
  if [ "$a" = -c ]; then exec "${SHARDC_REAL_CXX:-c++}" -fPIC "$@"; fi
done
objs=(); out=
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out=$2; shift ;;
    *.o) objs+=("$1") ;;
  esac
  shift
done
exec "${SHARDC_REAL_CXX:-c++}" -shared -Wl,-soname,libshardc_model.so -o "$out" "${objs[@]}"
