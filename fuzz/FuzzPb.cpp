//===- FuzzPb.cpp - libFuzzer target: the TensorProto .pb reader ----------===//
//
// bytes -> shardc::io::parsePb (the runtime's hand-written protobuf wire
// reader). A parsed tensor has exactly its shape's bytes, encodes with
// encodePb and parses back to the same tensor (name included). A refused
// input gives a one-line error.
//
//===----------------------------------------------------------------------===//
#include "FuzzUtil.h"

#include "runtime/src/TensorIO.h"
#include "shardc/format.h"

using namespace shardc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  io::Tensor t;
  std::string error;
  if (!io::parsePb(data, size, t, error)) {
    FUZZ_CHECK(fuzz::oneLine(error), "parsePb error '%s'", error.c_str());
    return 0;
  }
  FUZZ_CHECK(t.data.size() == t.numElements() * format::dtypeSize(t.dtype),
             "parsed %zu bytes for %s", t.data.size(),
             format::formatSig(t.dtype, t.dims.data(), t.dims.size()).c_str());
  std::vector<uint8_t> encoded;
  FUZZ_CHECK(io::encodePb(t, encoded, error), "encodePb: %s", error.c_str());
  io::Tensor back;
  FUZZ_CHECK(io::parsePb(encoded.data(), encoded.size(), back, error),
             "parsePb of encodePb: %s", error.c_str());
  FUZZ_CHECK(back.name == t.name && back.dims == t.dims &&
                 back.dtype == t.dtype && back.data == t.data,
             "the .pb round trip changed the tensor");
  return 0;
}
