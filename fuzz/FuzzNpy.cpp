//===- FuzzNpy.cpp - libFuzzer target: the .npy reader --------------------===//
//
// bytes -> shardc::io::parseNpy. A parsed tensor has exactly its shape's
// bytes, encodes with encodeNpy and parses back to the same tensor; a file
// with the bytes reads the same through readTensor (what the executable's
// --input does). A refused file gives a one-line error.
//
//===----------------------------------------------------------------------===//
#include "FuzzUtil.h"

#include "runtime/src/TensorIO.h"
#include "shardc/format.h"

using namespace shardc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  io::Tensor t;
  std::string error;
  bool ok = io::parseNpy(data, size, t, error);
  FUZZ_CHECK(ok || fuzz::oneLine(error), "parseNpy error '%s'", error.c_str());

  // The executable's path: readTensor picks .npy by its magic.
  if (size >= 6 && std::memcmp(data, "\x93NUMPY", 6) == 0) {
    const std::string path = fuzz::privateDir() + "/t.npy";
    fuzz::writeBytes(path, data, size);
    io::Tensor f;
    std::string ferror;
    bool fok = io::readTensor(path, f, ferror);
    FUZZ_CHECK(fok == ok, "readTensor and parseNpy disagree: '%s'",
               ferror.c_str());
    FUZZ_CHECK(fok || fuzz::oneLine(ferror), "readTensor error '%s'",
               ferror.c_str());
    FUZZ_CHECK(!fok || (f.dims == t.dims && f.dtype == t.dtype &&
                        f.data == t.data),
               "readTensor read another tensor");
  }
  if (!ok)
    return 0;

  FUZZ_CHECK(t.data.size() == t.numElements() * format::dtypeSize(t.dtype),
             "parsed %zu bytes for %s", t.data.size(),
             format::formatSig(t.dtype, t.dims.data(), t.dims.size()).c_str());
  std::vector<uint8_t> encoded;
  FUZZ_CHECK(io::encodeNpy(t, encoded, error), "encodeNpy: %s", error.c_str());
  io::Tensor back;
  FUZZ_CHECK(io::parseNpy(encoded.data(), encoded.size(), back, error),
             "parseNpy of encodeNpy: %s", error.c_str());
  FUZZ_CHECK(back.dims == t.dims && back.dtype == t.dtype &&
                 back.data == t.data,
             "the .npy round trip changed the tensor");
  return 0;
}
