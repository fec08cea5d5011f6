//===- HostTensor.cpp - tensor data: TensorProto, .npy, attributes ----------===//

#include "Importer.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <cstdio>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir;
using onnx::TensorProto;

namespace shardc::onnximport {

std::string dtypeName(int32_t dtype) {
  if (TensorProto::DataType_IsValid(dtype))
    return TensorProto::DataType_Name((TensorProto::DataType)dtype);
  return "type " + std::to_string(dtype);
}

Type toMLIRType(MLIRContext *ctx, int32_t dtype) {
  std::optional<ScalarType> st = graph::scalarTypeFromOnnx(dtype);
  return st ? graph::toMLIRType(ctx, *st) : Type();
}

int32_t onnxDtypeOf(Type t) {
  std::optional<ScalarType> st = graph::scalarTypeOf(t);
  return st ? static_cast<int32_t>(*st) : 0;
}

int64_t dtypeSize(int32_t dtype) {
  switch (dtype) {
  case TensorProto::BOOL: case TensorProto::INT8: case TensorProto::UINT8:
    return 1;
  case TensorProto::FLOAT16: case TensorProto::BFLOAT16:
  case TensorProto::INT16: case TensorProto::UINT16:
    return 2;
  case TensorProto::FLOAT: case TensorProto::INT32: case TensorProto::UINT32:
    return 4;
  case TensorProto::DOUBLE: case TensorProto::INT64: case TensorProto::UINT64:
    return 8;
  default:
    return 0;
  }
}

template <typename T>
static void appendPacked(std::string &s, T v) {
  s.append(reinterpret_cast<const char *>(&v), sizeof(T));
}

/// The number of elements held in any of the typed `*_data` fields.
static int64_t typedDataSize(const TensorProto &t) {
  return t.float_data_size() + t.double_data_size() + t.int32_data_size() +
         t.int64_data_size() + t.uint64_data_size() + t.string_data_size();
}

/// Parses a non-negative decimal integer, all of `s` and nothing else.
static bool parseSize(llvm::StringRef s, int64_t &out) {
  if (s.empty() || !llvm::all_of(s, llvm::isDigit))
    return false;
  return !s.getAsInteger(10, out) && out >= 0;
}

std::string printable(llvm::StringRef s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    } else {
      out += (char)c;
    }
  }
  return out;
}

/// An external tensor's location, offset and length (-1: to the end of its
/// file) as the model spells them.
struct ExternalRef {
  std::string location;
  int64_t offset = 0, length = -1;
};

/// Parses `t`'s external data entries, refusing what is wrong before the
/// file system is asked: offsets and lengths that are not plain decimal
/// numbers, no location, and a location whose spelling leaves the model's
/// folder (absolute, `~`, `..`).
static std::optional<std::string> parseExternalRef(const TensorProto &t,
                                                   ExternalRef &ref) {
  bool hasLocation = false;
  for (const auto &kv : t.external_data()) {
    if (kv.key() == "location") {
      ref.location = kv.value();
      hasLocation = true;
    } else if (kv.key() == "offset") {
      if (!parseSize(kv.value(), ref.offset))
        return "has external data offset '" + printable(kv.value()) +
               "', not a non-negative decimal integer";
    } else if (kv.key() == "length") {
      if (!parseSize(kv.value(), ref.length))
        return "has external data length '" + printable(kv.value()) +
               "', not a non-negative decimal integer";
    }
  }
  const std::string &location = ref.location;
  std::string shown = "external data '" + printable(location) + "'";
  if (!hasLocation || location.empty())
    return "is stored externally but has no location";
  if (location.find('\0') != std::string::npos)
    return "has " + shown + " with a NUL byte in its location";
  if (llvm::sys::path::is_absolute(location) || location[0] == '/' ||
      location[0] == '~')
    return "has " + shown +
           ": absolute paths are refused (locations are relative to the "
           "model's folder)";
  llvm::SmallString<256> lexical(location);
  llvm::sys::path::remove_dots(lexical, /*remove_dot_dot=*/true);
  if (*llvm::sys::path::begin(lexical) == "..")
    return "has " + shown + ", a path that leaves the model's folder";
  return std::nullopt;
}

/// Reads a tensor's external data. Like ONNX Runtime, the location must name
/// a regular file inside the model's folder once every symlink is resolved:
/// absolute paths, `..` escapes, symlinks out of the folder, directories and
/// devices are refused, and so are offsets and lengths that are not plain
/// decimal numbers or that reach past the end of the file.
static std::optional<std::string>
readExternal(const TensorProto &t, const std::string &baseDir,
             std::string &storage, llvm::ArrayRef<char> &bytes,
             ExternalFiles *files, std::shared_ptr<const void> *owner) {
  namespace fs = llvm::sys::fs;
  if (baseDir.empty())
    return std::string("is stored externally, which only initializers and "
                       "Constant nodes of a model file may be");
  ExternalRef ref;
  if (auto err = parseExternalRef(t, ref))
    return err;
  const std::string &location = ref.location;
  int64_t offset = ref.offset, length = ref.length;
  std::string shown = "external data '" + printable(location) + "'";
  llvm::SmallString<256> dirReal, fileReal;
  if (fs::real_path(baseDir, dirReal))
    return "has " + shown + ": the model's folder cannot be resolved";
  llvm::SmallString<256> joined(dirReal);
  llvm::sys::path::append(joined, location);
  if (std::error_code ec = fs::real_path(joined, fileReal))
    return "has " + shown + " that cannot be opened (" + ec.message() + ")";
  if (fileReal == dirReal)
    return "has " + shown + " that names the model's folder, not a file";
  llvm::StringRef inside(fileReal);
  if (!inside.starts_with(dirReal.str().str() + "/"))
    return "has " + shown + " that resolves to '" + printable(fileReal) +
           "', outside the model's folder '" + printable(dirReal) + "'";
  fs::file_status st;
  if (fs::status(fileReal, st))
    return "has " + shown + " that cannot be opened";
  if (st.type() != fs::file_type::regular_file)
    return "has " + shown + " that is not a regular file";
  int64_t fileSize = (int64_t)st.getSize();
  if (offset > fileSize)
    return "has external data offset " + std::to_string(offset) +
           " beyond the end of '" + printable(location) + "' (" +
           std::to_string(fileSize) + " bytes)";
  if (length < 0)
    length = fileSize - offset;
  if (length > fileSize - offset)
    return "has external data [" + std::to_string(offset) + ", +" +
           std::to_string(length) + ") beyond the end of '" +
           printable(location) + "' (" + std::to_string(fileSize) +
           " bytes)";
  if (files) {
    std::string error;
    std::shared_ptr<const ExternalFiles::Mapping> m =
        files->map(std::string(fileReal), error);
    if (!m)
      return "has " + shown + " that cannot be mapped (" + error + ")";
    // The file may have changed since it was checked.
    if ((uint64_t)offset + (uint64_t)length > m->size)
      return "has " + shown + " that could not be read in full";
    bytes = llvm::ArrayRef<char>(m->data + offset, length);
    if (owner)
      *owner = m;
    return std::nullopt;
  }
  int fd = ::open(fileReal.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return "has " + shown + " that cannot be opened";
  storage.resize(length);
  int64_t done = 0;
  while (done < length) {
    ssize_t n = ::pread(fd, storage.data() + done, length - done,
                        offset + done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    done += n;
  }
  ::close(fd);
  if (done != length)
    return "has " + shown + " that could not be read in full";
  bytes = llvm::ArrayRef<char>(storage.data(), storage.size());
  return std::nullopt;
}

ExternalFiles::Mapping::~Mapping() {
  if (data)
    ::munmap(const_cast<char *>(data), size);
}

std::shared_ptr<const ExternalFiles::Mapping>
ExternalFiles::map(const std::string &realPath, std::string &error) {
  auto it = files.find(realPath);
  if (it != files.end())
    return it->second;
  auto m = std::make_shared<Mapping>();
  int fd = ::open(realPath.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    error = std::strerror(errno);
    return nullptr;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    error = "not a regular file";
    ::close(fd);
    return nullptr;
  }
  m->size = st.st_size;
  if (m->size) {
    void *p = ::mmap(nullptr, m->size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      error = std::strerror(errno);
      ::close(fd);
      return nullptr;
    }
    m->data = static_cast<const char *>(p);
  }
  ::close(fd);
  files[realPath] = m;
  return m;
}

/// `t`'s element size and element count, or why its type or dims are
/// refused.
static std::optional<std::string> declaredSize(const TensorProto &t,
                                               int64_t &esize, int64_t &n) {
  esize = dtypeSize(t.data_type());
  if (esize == 0)
    return "element type " + dtypeName(t.data_type()) + " is not supported";
  n = 1;
  for (int64_t d : t.dims()) {
    if (d < 0 || d > kMaxDim)
      return "has an absurd dim " + std::to_string(d);
    n *= d;
    if (n > kMaxDim)
      return "has more than 2^40 elements";
  }
  return std::nullopt;
}

std::optional<std::string> tensorBytes(const TensorProto &t,
                                       const std::string &baseDir,
                                       std::string &storage,
                                       llvm::ArrayRef<char> &bytes,
                                       ExternalFiles *files,
                                       std::shared_ptr<const void> *owner) {
  int64_t esize, n;
  if (auto err = declaredSize(t, esize, n))
    return err;
  if (t.data_location() == TensorProto::EXTERNAL) {
    if (t.has_raw_data() || typedDataSize(t))
      return "is stored externally but also holds data in the model";
    if (auto err = readExternal(t, baseDir, storage, bytes, files, owner))
      return *err;
  } else if (t.has_raw_data()) {
    if (typedDataSize(t))
      return "has both raw_data and typed data (ONNX allows one)";
    bytes = llvm::ArrayRef<char>(t.raw_data().data(), t.raw_data().size());
  } else {
    storage.clear();
    switch (t.data_type()) {
    case TensorProto::FLOAT:
      for (float v : t.float_data()) appendPacked(storage, v);
      break;
    case TensorProto::DOUBLE:
      for (double v : t.double_data()) appendPacked(storage, v);
      break;
    case TensorProto::INT64:
      for (int64_t v : t.int64_data()) appendPacked(storage, v);
      break;
    case TensorProto::UINT32:
      for (uint64_t v : t.uint64_data()) appendPacked(storage, (uint32_t)v);
      break;
    case TensorProto::UINT64:
      for (uint64_t v : t.uint64_data()) appendPacked(storage, v);
      break;
    case TensorProto::INT32:
      for (int32_t v : t.int32_data()) appendPacked(storage, v);
      break;
    case TensorProto::INT16: case TensorProto::UINT16:
    case TensorProto::FLOAT16: case TensorProto::BFLOAT16:
      for (int32_t v : t.int32_data()) appendPacked(storage, (uint16_t)v);
      break;
    default: // INT8, UINT8, BOOL
      for (int32_t v : t.int32_data()) appendPacked(storage, (uint8_t)v);
      break;
    }
    bytes = llvm::ArrayRef<char>(storage.data(), storage.size());
  }
  if ((int64_t)bytes.size() != n * esize)
    return "has " + std::to_string(bytes.size()) + " bytes of data, expected " +
           std::to_string(n * esize) + " for its shape";
  return std::nullopt;
}

std::optional<std::string> checkAbsentExternal(const TensorProto &t) {
  int64_t esize, n;
  if (auto err = declaredSize(t, esize, n))
    return err;
  if (t.has_raw_data() || typedDataSize(t))
    return "is stored externally but also holds data in the model";
  ExternalRef ref;
  if (auto err = parseExternalRef(t, ref))
    return err;
  if (ref.length >= 0 && ref.length != n * esize)
    return "has external data of " + std::to_string(ref.length) +
           " bytes, expected " + std::to_string(n * esize) + " for its shape";
  return std::nullopt;
}

static double halfToDouble(uint16_t bits, bool bf16) {
  if (bf16) {
    uint32_t w = uint32_t(bits) << 16;
    float f;
    std::memcpy(&f, &w, 4);
    return f;
  }
  llvm::APFloat f(llvm::APFloat::IEEEhalf(), llvm::APInt(16, bits));
  return f.convertToFloat();
}

// Decodes packed little-endian elements of `dtype` into `out`.
static void unpack(llvm::ArrayRef<char> bytes, HostTensor &out) {
  int64_t n = out.numel();
  out.resize(n);
  const char *p = bytes.data();
  for (int64_t i = 0; i < n; ++i) {
    switch (static_cast<int32_t>(out.dtype)) {
#define CASE(DT, T, SETTER)                                                    \
  case TensorProto::DT: {                                                      \
    T v;                                                                       \
    std::memcpy(&v, p + i * sizeof(T), sizeof(T));                             \
    SETTER;                                                                    \
    break;                                                                     \
  }
      CASE(FLOAT, float, out.floats[i] = v)
      CASE(DOUBLE, double, out.floats[i] = v)
      CASE(FLOAT16, uint16_t, out.floats[i] = halfToDouble(v, false))
      CASE(BFLOAT16, uint16_t, out.floats[i] = halfToDouble(v, true))
      CASE(BOOL, uint8_t, out.ints[i] = v != 0)
      CASE(INT8, int8_t, out.ints[i] = v)
      CASE(UINT8, uint8_t, out.ints[i] = v)
      CASE(INT16, int16_t, out.ints[i] = v)
      CASE(UINT16, uint16_t, out.ints[i] = v)
      CASE(INT32, int32_t, out.ints[i] = v)
      CASE(UINT32, uint32_t, out.ints[i] = v)
      CASE(INT64, int64_t, out.ints[i] = v)
      CASE(UINT64, uint64_t, out.ints[i] = (int64_t)v)
#undef CASE
    default:
      break;
    }
  }
}

std::optional<std::string> decodeTensor(const TensorProto &t,
                                        const std::string &baseDir,
                                        HostTensor &out) {
  std::string storage;
  llvm::ArrayRef<char> bytes;
  if (auto err = tensorBytes(t, baseDir, storage, bytes))
    return err;
  // tensorBytes refused the types without a ScalarType (dtypeSize 0).
  out.dtype = *graph::scalarTypeFromOnnx(t.data_type());
  out.dims.assign(t.dims().begin(), t.dims().end());
  unpack(bytes, out);
  return std::nullopt;
}

// Reads a NumPy .npy file (format versions 1 to 3, C order).
static std::optional<std::string> readNpy(const std::string &data,
                                          HostTensor &out) {
  if (data.size() < 10 || data.compare(0, 6, "\x93NUMPY") != 0)
    return std::string("not a .npy file (bad magic)");
  int major = (unsigned char)data[6];
  size_t headerLen, start;
  if (major == 1) {
    headerLen = (unsigned char)data[8] | ((unsigned char)data[9] << 8);
    start = 10;
  } else {
    if (data.size() < 12)
      return std::string("truncated .npy header");
    headerLen = 0;
    for (int i = 0; i < 4; ++i)
      headerLen |= size_t((unsigned char)data[8 + i]) << (8 * i);
    start = 12;
  }
  if (start + headerLen > data.size())
    return std::string("truncated .npy header");
  std::string header = data.substr(start, headerLen);
  auto field = [&](const std::string &key) -> std::string {
    size_t k = header.find("'" + key + "'");
    if (k == std::string::npos)
      return "";
    size_t colon = header.find(':', k);
    return header.substr(colon + 1);
  };
  std::string descr = field("descr");
  size_t q1 = descr.find('\''), q2 = descr.find('\'', q1 + 1);
  if (q1 == std::string::npos || q2 == std::string::npos)
    return std::string("malformed .npy header");
  descr = descr.substr(q1 + 1, q2 - q1 - 1);
  if (field("fortran_order").find("True") < field("fortran_order").find(','))
    return std::string("Fortran-order .npy arrays are not supported");
  static const std::pair<const char *, int32_t> kinds[] = {
      {"f4", TensorProto::FLOAT},  {"f8", TensorProto::DOUBLE},
      {"f2", TensorProto::FLOAT16}, {"i1", TensorProto::INT8},
      {"u1", TensorProto::UINT8},  {"b1", TensorProto::BOOL},
      {"i2", TensorProto::INT16},  {"u2", TensorProto::UINT16},
      {"i4", TensorProto::INT32},  {"u4", TensorProto::UINT32},
      {"i8", TensorProto::INT64},  {"u8", TensorProto::UINT64}};
  if (descr.size() != 3 || descr[0] == '>')
    return "unsupported .npy dtype '" + descr + "'";
  std::optional<ScalarType> dtype;
  for (auto &[name, dt] : kinds)
    if (descr.substr(1) == name)
      dtype = graph::scalarTypeFromOnnx(dt);
  if (!dtype)
    return "unsupported .npy dtype '" + descr + "'";
  out.dtype = *dtype;
  std::string shape = field("shape");
  size_t open = shape.find('('), close = shape.find(')');
  if (open == std::string::npos || close == std::string::npos)
    return std::string("malformed .npy shape");
  std::stringstream ss(shape.substr(open + 1, close - open - 1));
  out.dims.clear();
  for (std::string tok; std::getline(ss, tok, ',');) {
    if (tok.find_first_not_of(" ") == std::string::npos)
      continue;
    int64_t d;
    if (!parseSize(llvm::StringRef(tok).trim(), d) || d > kMaxDim)
      return "malformed .npy shape entry '" + printable(tok) + "'";
    out.dims.push_back(d);
    if (out.numel() > kMaxDim)
      return std::string(".npy shape has more than 2^40 elements");
  }
  size_t offset = start + headerLen;
  int64_t expect = out.numel() * dtypeSize(static_cast<int32_t>(out.dtype));
  if ((int64_t)(data.size() - offset) != expect)
    return "has " + std::to_string(data.size() - offset) +
           " bytes of data, expected " + std::to_string(expect);
  unpack(llvm::ArrayRef<char>(data.data() + offset, expect), out);
  return std::nullopt;
}

std::optional<std::string> readTensorFile(const std::string &path,
                                          HostTensor &out) {
  llvm::sys::fs::file_status st;
  if (std::error_code ec = llvm::sys::fs::status(path, st))
    return "cannot open file (" + ec.message() + ")";
  if (st.type() != llvm::sys::fs::file_type::regular_file)
    return std::string("is not a regular file");
  if (st.getSize() > (uint64_t(1) << 32))
    return "is " + std::to_string(st.getSize()) +
           " bytes, more than the 4 GiB a compile-time constant may have";
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::string("cannot open file");
  std::stringstream buf;
  buf << in.rdbuf();
  std::string data = buf.str();
  if (llvm::StringRef(path).ends_with(".npy"))
    return readNpy(data, out);
  TensorProto t;
  if (!t.ParseFromString(data))
    return std::string("not a valid TensorProto (.pb) file");
  return decodeTensor(t, "", out);
}

} // namespace shardc::onnximport
