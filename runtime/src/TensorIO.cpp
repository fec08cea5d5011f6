//===- TensorIO.cpp - .npy and ONNX TensorProto .pb files -----------------===//
//
// .npy: "\x93NUMPY", major, minor, header length (u16 for 1.x, u32 for 2.x
// and 3.x), a Python dict literal {'descr', 'fortran_order', 'shape'}, data.
// .pb: onnx.TensorProto on the protobuf wire format, decoded field by field.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/TensorIO.h"

#include "shardc/format.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace shardc::format::dtypes;
using shardc::format::dtypeName;
using shardc::format::dtypeSize;
using shardc::format::kMaxTensorBytes;

namespace shardc::io {

uint64_t Tensor::numElements() const {
  uint64_t n = 1;
  for (int64_t d : dims)
    n *= static_cast<uint64_t>(d);
  return n;
}

namespace {

/// Element count of `dims` for `dtype`, checking sign and overflow.
bool checkedBytes(const std::vector<int64_t> &dims, int32_t dtype,
                  uint64_t &bytes, std::string &error) {
  uint64_t count = 1;
  for (int64_t d : dims) {
    if (d < 0) {
      error = "negative dimension " + std::to_string(d);
      return false;
    }
    if (d != 0 && count > kMaxTensorBytes / static_cast<uint64_t>(d)) {
      error = "tensor is too large";
      return false;
    }
    count *= static_cast<uint64_t>(d);
  }
  if (count > kMaxTensorBytes / dtypeSize(dtype)) {
    error = "tensor is too large";
    return false;
  }
  bytes = count * dtypeSize(dtype);
  return true;
}

/// `s` with control characters replaced, for quoting file contents.
std::string printable(std::string s) {
  if (s.size() > 64)
    s = s.substr(0, 64) + "...";
  for (char &c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      c = '?';
  return s;
}

std::string shapeStr(const std::vector<int64_t> &dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

constexpr char kNpyMagic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

struct NpyCode {
  const char *code;
  int32_t dtype;
};
constexpr NpyCode kNpyCodes[] = {{"f2", kF16}, {"f4", kF32}, {"f8", kF64},
                                 {"i1", kI8},  {"i2", kI16}, {"i4", kI32},
                                 {"i8", kI64}, {"u1", kU8},  {"u2", kU16},
                                 {"u4", kU32}, {"u8", kU64}, {"b1", kBool}};

/// The header's dict literal, e.g.
/// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class NpyHeaderParser {
public:
  NpyHeaderParser(const std::string &text) : s(text) {}

  bool parse(std::string &descr, bool &fortran, std::vector<int64_t> &shape,
             std::string &error) {
    bool haveDescr = false, haveOrder = false, haveShape = false;
    ws();
    if (!eat('{'))
      return fail("expected '{'", error);
    for (;;) {
      ws();
      if (eat('}'))
        break;
      std::string key;
      if (!str(key))
        return fail("expected a quoted key", error);
      ws();
      if (!eat(':'))
        return fail("expected ':' after '" + printable(key) + "'", error);
      ws();
      if (key == "descr") {
        if (peek() == '[')
          return fail("structured dtypes are not supported", error);
        if (!str(descr))
          return fail("'descr' is not a string", error);
        haveDescr = true;
      } else if (key == "fortran_order") {
        if (word("True"))
          fortran = true;
        else if (word("False"))
          fortran = false;
        else
          return fail("'fortran_order' is not True or False", error);
        haveOrder = true;
      } else if (key == "shape") {
        if (!tuple(shape))
          return fail("'shape' is not a tuple of non-negative integers", error);
        haveShape = true;
      } else {
        return fail("unexpected key '" + printable(key) + "'", error);
      }
      ws();
      if (eat(','))
        continue;
      ws();
      if (eat('}'))
        break;
      return fail("expected ',' or '}'", error);
    }
    if (!haveDescr || !haveOrder || !haveShape)
      return fail("missing 'descr', 'fortran_order' or 'shape'", error);
    return true;
  }

private:
  const std::string &s;
  size_t i = 0;

  static bool fail(const std::string &msg, std::string &error) {
    error = "bad .npy header: " + msg;
    return false;
  }
  char peek() const { return i < s.size() ? s[i] : '\0'; }
  bool eat(char c) {
    if (peek() != c)
      return false;
    ++i;
    return true;
  }
  void ws() {
    while (i < s.size() &&
           (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
      ++i;
  }
  bool word(const char *w) {
    size_t n = std::strlen(w);
    if (s.compare(i, n, w) != 0)
      return false;
    i += n;
    return true;
  }
  bool str(std::string &out) {
    char q = peek();
    if (q != '\'' && q != '"')
      return false;
    size_t close = s.find(q, i + 1);
    if (close == std::string::npos)
      return false;
    out = s.substr(i + 1, close - i - 1);
    i = close + 1;
    return true;
  }
  bool tuple(std::vector<int64_t> &out) {
    out.clear();
    if (!eat('('))
      return false;
    for (;;) {
      ws();
      if (eat(')'))
        return true;
      if (peek() < '0' || peek() > '9')
        return false;
      uint64_t v = 0;
      while (peek() >= '0' && peek() <= '9') {
        v = v * 10 + static_cast<uint64_t>(s[i++] - '0');
        if (v > kMaxTensorBytes)
          return false;
      }
      eat('L'); // Python 2 long literals
      out.push_back(static_cast<int64_t>(v));
      if (out.size() > 64)
        return false;
      ws();
      if (eat(','))
        continue;
      ws();
      if (eat(')'))
        return true;
      return false;
    }
  }
};

bool parseDescr(const std::string &descr, int32_t &dtype, std::string &error) {
  std::string code = descr;
  char order = '\0';
  if (!code.empty() && std::strchr("<>|=", code[0])) {
    order = code[0];
    code = code.substr(1);
  }
  for (const NpyCode &c : kNpyCodes) {
    if (code != c.code)
      continue;
    if (order == '>' && dtypeSize(c.dtype) > 1) {
      error =
          "big-endian .npy data ('" + printable(descr) + "') is not supported";
      return false;
    }
    dtype = c.dtype;
    return true;
  }
  error = "unsupported .npy dtype '" + printable(descr) + "'";
  return false;
}

//===----------------------------------------------------------------------===//
// Protobuf wire format
//===----------------------------------------------------------------------===//

class Wire {
public:
  Wire(const uint8_t *p, size_t n) : p(p), n(n) {}
  bool done() const { return pos >= n; }
  size_t offset() const { return pos; }

  bool varint(uint64_t &v) {
    v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos >= n)
        return false;
      uint8_t b = p[pos++];
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80))
        return true;
    }
    return false;
  }
  bool fixed32(uint32_t &v) {
    if (n - pos < 4)
      return false;
    std::memcpy(&v, p + pos, 4);
    pos += 4;
    return true;
  }
  bool fixed64(uint64_t &v) {
    if (n - pos < 8)
      return false;
    std::memcpy(&v, p + pos, 8);
    pos += 8;
    return true;
  }
  bool bytes(const uint8_t *&data, size_t &len) {
    uint64_t l;
    if (!varint(l) || l > n - pos)
      return false;
    data = p + pos;
    len = static_cast<size_t>(l);
    pos += len;
    return true;
  }
  bool skip(uint32_t wireType) {
    uint64_t v;
    uint32_t v32;
    const uint8_t *d;
    size_t len;
    switch (wireType) {
    case 0:
      return varint(v);
    case 1:
      return fixed64(v);
    case 2:
      return bytes(d, len);
    case 5:
      return fixed32(v32);
    default:
      return false; // groups are not used by onnx.proto
    }
  }

private:
  const uint8_t *p;
  size_t n, pos = 0;
};

/// A repeated scalar field, in its packed (wire type 2) or unpacked form.
/// Varint fields (kind 0), fixed32 (5) or fixed64 (1) elements.
template <typename T>
bool readRepeated(Wire &w, uint32_t wireType, uint32_t kind,
                  std::vector<T> &out) {
  auto one = [&](Wire &src) {
    if (kind == 0) {
      uint64_t v;
      if (!src.varint(v))
        return false;
      out.push_back(static_cast<T>(v));
    } else if (kind == 5) {
      uint32_t v;
      if (!src.fixed32(v))
        return false;
      T t;
      static_assert(sizeof(T) >= 4, "fixed32 into a narrow type");
      std::memcpy(&t, &v, 4);
      out.push_back(t);
    } else {
      uint64_t v;
      if (!src.fixed64(v))
        return false;
      T t;
      std::memcpy(&t, &v, sizeof(T) < 8 ? sizeof(T) : 8);
      out.push_back(t);
    }
    return true;
  };
  if (wireType == 2) {
    const uint8_t *d;
    size_t len;
    if (!w.bytes(d, len))
      return false;
    Wire inner(d, len);
    while (!inner.done())
      if (!one(inner))
        return false;
    return true;
  }
  if (wireType != kind)
    return false;
  return one(w);
}

template <typename T, typename U>
void narrowInto(const std::vector<U> &src, std::vector<uint8_t> &dst) {
  dst.resize(src.size() * sizeof(T));
  for (size_t i = 0; i < src.size(); ++i) {
    T v = static_cast<T>(src[i]);
    std::memcpy(dst.data() + i * sizeof(T), &v, sizeof(T));
  }
}

void putVarint(std::vector<uint8_t> &out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<uint8_t>(v));
}

void putBytes(std::vector<uint8_t> &out, uint32_t field, const void *data,
              size_t len) {
  putVarint(out, (field << 3) | 2);
  putVarint(out, len);
  const uint8_t *p = static_cast<const uint8_t *>(data);
  out.insert(out.end(), p, p + len);
}

std::string lower(std::string s) {
  for (char &c : s)
    if (c >= 'A' && c <= 'Z')
      c = static_cast<char>(c - 'A' + 'a');
  return s;
}

} // namespace

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

bool parseNpy(const void *data, size_t size, Tensor &out, std::string &error) {
  const uint8_t *p = static_cast<const uint8_t *>(data);
  if (!p)
    size = 0;
  if (size < 10 || std::memcmp(p, kNpyMagic, 6) != 0) {
    error = size < 6 ? "not a .npy file (too short)"
                     : "not a .npy file (bad magic)";
    return false;
  }
  unsigned major = p[6];
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = p[8] | (size_t(p[9]) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12) {
      error = "truncated .npy header";
      return false;
    }
    headerLen = p[8] | (size_t(p[9]) << 8) | (size_t(p[10]) << 16) |
                (size_t(p[11]) << 24);
    headerStart = 12;
  } else {
    error = ".npy format version " + std::to_string(major) +
            " is not supported (1, 2 or 3)";
    return false;
  }
  if (headerLen > size - headerStart) {
    error = "truncated .npy header (" + std::to_string(headerLen) +
            " bytes announced, " + std::to_string(size - headerStart) +
            " present)";
    return false;
  }
  std::string header(reinterpret_cast<const char *>(p + headerStart),
                     headerLen);
  std::string descr;
  bool fortran = false;
  Tensor t;
  if (!NpyHeaderParser(header).parse(descr, fortran, t.dims, error) ||
      !parseDescr(descr, t.dtype, error))
    return false;
  if (fortran) {
    int nonTrivial = 0;
    for (int64_t d : t.dims)
      nonTrivial += d > 1;
    if (nonTrivial > 1) {
      error = "fortran_order .npy arrays are not supported (save with "
              "numpy.ascontiguousarray)";
      return false;
    }
  }
  uint64_t bytes;
  if (!checkedBytes(t.dims, t.dtype, bytes, error)) {
    error = "bad .npy shape: " + error;
    return false;
  }
  size_t dataStart = headerStart + headerLen;
  if (size - dataStart != bytes) {
    error = ".npy data is " + std::to_string(size - dataStart) + " bytes, " +
            std::string(dtypeName(t.dtype)) + " " + shapeStr(t.dims) +
            " needs " + std::to_string(bytes) +
            (size - dataStart < bytes ? " (truncated file)" : "");
    return false;
  }
  t.data.assign(p + dataStart, p + size);
  out = std::move(t);
  return true;
}

bool encodeNpy(const Tensor &t, std::vector<uint8_t> &out, std::string &error) {
  const char *code = nullptr;
  for (const NpyCode &c : kNpyCodes)
    if (c.dtype == t.dtype)
      code = c.code;
  if (!code) {
    error = std::string(dtypeName(t.dtype)) + " cannot be stored in .npy";
    return false;
  }
  uint64_t bytes;
  if (!checkedBytes(t.dims, t.dtype, bytes, error))
    return false;
  if (bytes != t.data.size()) {
    error = "tensor data is " + std::to_string(t.data.size()) +
            " bytes, its shape needs " + std::to_string(bytes);
    return false;
  }
  std::string header = "{'descr': '";
  header += dtypeSize(t.dtype) == 1 ? '|' : '<';
  header += code;
  header += "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < t.dims.size(); ++i)
    header += (i ? ", " : "") + std::to_string(t.dims[i]);
  if (t.dims.size() == 1)
    header += ',';
  header += "), }";
  size_t prefix = 10;
  if ((header.size() + 1 + prefix + 63) / 64 * 64 - prefix > 65535)
    prefix = 12;
  size_t total = (header.size() + 1 + prefix + 63) / 64 * 64;
  header.append(total - prefix - header.size() - 1, ' ');
  header += '\n';
  out.assign(kNpyMagic, kNpyMagic + 6);
  out.push_back(prefix == 10 ? 1 : 2);
  out.push_back(0);
  for (size_t i = 0; i < prefix - 8; ++i)
    out.push_back(static_cast<uint8_t>(header.size() >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), t.data.begin(), t.data.end());
  return true;
}

//===----------------------------------------------------------------------===//
// TensorProto
//===----------------------------------------------------------------------===//

bool parsePb(const void *data, size_t size, Tensor &out, std::string &error) {
  const uint8_t *p = static_cast<const uint8_t *>(data);
  Wire w(p, p ? size : 0);
  Tensor t;
  bool haveType = false;
  const uint8_t *raw = nullptr;
  size_t rawLen = 0;
  bool haveRaw = false;
  std::vector<int64_t> int32s, int64s;
  std::vector<uint64_t> uint64s;
  std::vector<float> floats;
  std::vector<double> doubles;
  auto bad = [&](const std::string &what) {
    error = "not a valid TensorProto (" + what + " at byte " +
            std::to_string(w.offset()) + ")";
    return false;
  };

  while (!w.done()) {
    uint64_t key;
    if (!w.varint(key))
      return bad("truncated field key");
    uint32_t field = static_cast<uint32_t>(key >> 3),
             wireType = static_cast<uint32_t>(key & 7);
    std::string fieldName = "field " + std::to_string(field);
    bool ok = true;
    switch (field) {
    case 1: // dims
      ok = readRepeated(w, wireType, 0, t.dims);
      break;
    case 2: { // data_type
      uint64_t v = 0;
      ok = wireType == 0 && w.varint(v);
      t.dtype = static_cast<int32_t>(v);
      haveType = true;
      break;
    }
    case 3:
      error = "segmented TensorProto is not supported";
      return false;
    case 4: // float_data
      ok = readRepeated(w, wireType, 5, floats);
      break;
    case 5: // int32_data
      ok = readRepeated(w, wireType, 0, int32s);
      break;
    case 6:
      error = "string tensors are not supported";
      return false;
    case 7: // int64_data
      ok = readRepeated(w, wireType, 0, int64s);
      break;
    case 8: { // name
      const uint8_t *d;
      size_t len;
      ok = wireType == 2 && w.bytes(d, len);
      if (ok)
        t.name.assign(reinterpret_cast<const char *>(d), len);
      break;
    }
    case 9: // raw_data
      ok = wireType == 2 && w.bytes(raw, rawLen);
      haveRaw = true;
      break;
    case 10: // double_data
      ok = readRepeated(w, wireType, 1, doubles);
      break;
    case 11: // uint64_data
      ok = readRepeated(w, wireType, 0, uint64s);
      break;
    case 13:
      error = "TensorProto with external data is not supported (save the "
              "tensor with its data inline)";
      return false;
    case 14: { // data_location
      uint64_t v = 0;
      ok = wireType == 0 && w.varint(v);
      if (ok && v == 1) {
        error = "TensorProto with external data is not supported (save the "
                "tensor with its data inline)";
        return false;
      }
      break;
    }
    default:
      ok = w.skip(wireType);
      break;
    }
    if (!ok)
      return bad("bad or truncated " + fieldName);
  }

  if (!haveType) {
    error = "not a valid TensorProto (no data_type)";
    return false;
  }
  if (t.dtype == 8) { // TensorProto.STRING
    error = "string tensors are not supported";
    return false;
  }
  if (dtypeSize(t.dtype) == 0) {
    error = "TensorProto data_type " + std::to_string(t.dtype) +
            " is not supported";
    return false;
  }
  if (t.dims.size() > 64) {
    error = "TensorProto has rank " + std::to_string(t.dims.size());
    return false;
  }
  uint64_t bytes;
  if (!checkedBytes(t.dims, t.dtype, bytes, error)) {
    error = "bad TensorProto dims " + shapeStr(t.dims) + ": " + error;
    return false;
  }
  const uint64_t count = bytes / dtypeSize(t.dtype);
  std::string sig = std::string(dtypeName(t.dtype)) + " " + shapeStr(t.dims);
  if (haveRaw) {
    if (rawLen != bytes) {
      error = "TensorProto raw_data is " + std::to_string(rawLen) + " bytes, " +
              sig + " needs " + std::to_string(bytes);
      return false;
    }
    t.data.assign(raw, raw + rawLen);
    out = std::move(t);
    return true;
  }

  const char *fieldName = nullptr;
  size_t have = 0;
  switch (t.dtype) {
  case kF32:
    fieldName = "float_data", have = floats.size();
    break;
  case kF64:
    fieldName = "double_data", have = doubles.size();
    break;
  case kI64:
    fieldName = "int64_data", have = int64s.size();
    break;
  case kU32:
  case kU64:
    fieldName = "uint64_data", have = uint64s.size();
    break;
  default:
    fieldName = "int32_data", have = int32s.size();
    break;
  }
  if (have != count) {
    error = "TensorProto " + std::string(fieldName) + " has " +
            std::to_string(have) + " values, " + sig + " needs " +
            std::to_string(count);
    return false;
  }
  switch (t.dtype) {
  case kF32:
    narrowInto<float>(floats, t.data);
    break;
  case kF64:
    narrowInto<double>(doubles, t.data);
    break;
  case kI64:
    narrowInto<int64_t>(int64s, t.data);
    break;
  case kU32:
    narrowInto<uint32_t>(uint64s, t.data);
    break;
  case kU64:
    narrowInto<uint64_t>(uint64s, t.data);
    break;
  case kI32:
    narrowInto<int32_t>(int32s, t.data);
    break;
  case kI16:
  case kU16:
  case kF16:
  case kBF16:
    narrowInto<uint16_t>(int32s, t.data);
    break;
  default: // int8, uint8, bool
    narrowInto<uint8_t>(int32s, t.data);
    break;
  }
  out = std::move(t);
  return true;
}

bool encodePb(const Tensor &t, std::vector<uint8_t> &out, std::string &error) {
  if (dtypeSize(t.dtype) == 0) {
    error = "cannot store data_type " + std::to_string(t.dtype);
    return false;
  }
  uint64_t bytes;
  if (!checkedBytes(t.dims, t.dtype, bytes, error))
    return false;
  if (bytes != t.data.size()) {
    error = "tensor data is " + std::to_string(t.data.size()) +
            " bytes, its shape needs " + std::to_string(bytes);
    return false;
  }
  out.clear();
  for (int64_t d : t.dims) {
    putVarint(out, (1 << 3) | 0);
    putVarint(out, static_cast<uint64_t>(d));
  }
  putVarint(out, (2 << 3) | 0);
  putVarint(out, static_cast<uint64_t>(t.dtype));
  if (!t.name.empty())
    putBytes(out, 8, t.name.data(), t.name.size());
  putBytes(out, 9, t.data.data(), t.data.size());
  return true;
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

bool readFile(const std::string &path, std::vector<uint8_t> &out,
              std::string &error) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused
  // below as not a regular file).
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    error = "cannot read '" + path + "': " + std::strerror(errno);
    ::close(fd);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    error = "cannot read '" + path + "': " +
            (S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
    ::close(fd);
    return false;
  }
  out.resize(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::read(fd, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      error = "cannot read '" + path + "': " +
              (n < 0 ? std::strerror(errno) : "file shrank while reading");
      ::close(fd);
      return false;
    }
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  return true;
}

bool writeFile(const std::string &path, const std::vector<uint8_t> &bytes,
               std::string &error) {
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  errno = 0;
  bool ok = bytes.empty() ||
            std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  int savedErrno = errno;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) {
    error = "cannot write '" + path +
            "': " + std::strerror(savedErrno ? savedErrno : errno);
    return false;
  }
  return true;
}

bool readTensor(const std::string &path, Tensor &out, std::string &error) {
  std::vector<uint8_t> bytes;
  if (!readFile(path, bytes, error))
    return false;
  bool npy =
      (bytes.size() >= 6 && std::memcmp(bytes.data(), kNpyMagic, 6) == 0) ||
      (path.size() >= 4 && lower(path.substr(path.size() - 4)) == ".npy");
  bool ok = npy ? parseNpy(bytes.data(), bytes.size(), out, error)
                : parsePb(bytes.data(), bytes.size(), out, error);
  if (!ok)
    error = path + ": " + error;
  return ok;
}

bool writeNpy(const std::string &path, const Tensor &t, std::string &error) {
  std::vector<uint8_t> bytes;
  if (!encodeNpy(t, bytes, error)) {
    error = path + ": " + error;
    return false;
  }
  return writeFile(path, bytes, error);
}

bool writePb(const std::string &path, const Tensor &t, std::string &error) {
  std::vector<uint8_t> bytes;
  if (!encodePb(t, bytes, error)) {
    error = path + ": " + error;
    return false;
  }
  return writeFile(path, bytes, error);
}

} // namespace shardc::io
