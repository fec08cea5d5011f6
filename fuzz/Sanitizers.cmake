# ASan+UBSan and libFuzzer options, included by the top-level CMakeLists
# before any target is defined so that every target gets the flags.
#
#   -DSHARDC_SANITIZE=ON  everything (compiler, runtime, tests) with
#                         -fsanitize=address,undefined; any finding aborts.
#   -DSHARDC_FUZZ=ON      also the libFuzzer targets in fuzz/ (implies
#                         SHARDC_SANITIZE). Clang only (Debian's clang-19).
#
# scripts/sanitize.sh and scripts/fuzz.sh configure build-asan/ with both.
option(SHARDC_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(SHARDC_FUZZ "Build the libFuzzer targets in fuzz/ (clang only; implies SHARDC_SANITIZE)" OFF)

if(SHARDC_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "SHARDC_FUZZ needs clang (libFuzzer); configure with "
      "-DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19")
  endif()
  set(SHARDC_SANITIZE ON CACHE BOOL "" FORCE)
endif()

if(SHARDC_SANITIZE)
  # -fno-sanitize-recover: a UBSan finding aborts like an ASan one, so that a
  # test (or libFuzzer) sees it. -gline-tables-only: symbolized stacks.
  # vptr is left out silently where LLVM's -fno-rtti applies.
  set(SHARDC_SANITIZER_FLAGS -fsanitize=address,undefined
      -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_compile_options(${SHARDC_SANITIZER_FLAGS})
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    add_compile_options(-gline-tables-only)
  else()
    add_compile_options(-g1)
  endif()
  add_link_options(-fsanitize=address,undefined)
endif()
