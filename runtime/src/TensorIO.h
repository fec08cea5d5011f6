//===- TensorIO.h - .npy and ONNX TensorProto .pb files ---------*- C++ -*-===//
//
// Reads and writes the two tensor file formats the executable accepts:
// NumPy .npy (format versions 1, 2 and 3; C order; little-endian) and ONNX
// TensorProto .pb, parsed by hand from the protobuf wire format so that the
// runtime needs no protobuf library. Every length is checked against the
// buffer: a damaged file is an error, never a crash.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_TENSORIO_H
#define SHARDC_RUNTIME_TENSORIO_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace shardc::io {

/// A dense row-major tensor; dtype is an ONNX TensorProto.DataType code.
struct Tensor {
  std::string name;
  int32_t dtype = 0;
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;

  uint64_t numElements() const;
};

/// Parses a .npy image. `error` is one line.
bool parseNpy(const void *data, size_t size, Tensor &out, std::string &error);
/// Encodes a .npy image (version 1.0, or 2.0 for a huge header). Fails for
/// dtypes NumPy cannot describe (bfloat16).
bool encodeNpy(const Tensor &t, std::vector<uint8_t> &out, std::string &error);

/// Parses a serialized onnx.TensorProto.
bool parsePb(const void *data, size_t size, Tensor &out, std::string &error);
/// Encodes a TensorProto with dims, data_type, name and raw_data.
bool encodePb(const Tensor &t, std::vector<uint8_t> &out, std::string &error);

bool readFile(const std::string &path, std::vector<uint8_t> &out,
              std::string &error);
bool writeFile(const std::string &path, const std::vector<uint8_t> &bytes,
               std::string &error);

/// Reads a tensor file: .npy by its magic, anything else as a TensorProto.
/// Errors start with the path.
bool readTensor(const std::string &path, Tensor &out, std::string &error);
bool writeNpy(const std::string &path, const Tensor &t, std::string &error);
bool writePb(const std::string &path, const Tensor &t, std::string &error);

} // namespace shardc::io

#endif // SHARDC_RUNTIME_TENSORIO_H
