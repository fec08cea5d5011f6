//===- FakeWeights.cpp - writes the weights file of the fake model --------===//
//
//   shardc-fake-weights OUT [--corrupt]
// --corrupt flips one byte of the section data.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/TensorIO.h"
#include "runtime/test/FakeProgram.h"

#include <cstdio>
#include <cstring>

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3 ||
      (argc == 3 && std::strcmp(argv[2], "--corrupt"))) {
    std::fprintf(stderr, "usage: shardc-fake-weights OUT [--corrupt]\n");
    return 1;
  }
  std::vector<uint8_t> file = shardc::testing::fakeWeightsFile();
  if (argc == 3)
    file[file.size() - 3] ^= 0x40;
  std::string error;
  if (!shardc::io::writeFile(argv[1], file, error)) {
    std::fprintf(stderr, "shardc-fake-weights: error: %s\n", error.c_str());
    return 1;
  }
  return 0;
}
