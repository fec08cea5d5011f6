//===- TensorIOTest.cpp - .npy and TensorProto .pb files ------------------===//
#include "runtime/src/TensorIO.h"
#include "shardc/format.h"

#include <gtest/gtest.h>

#include <random>

using namespace shardc::io;

namespace {

Tensor randomTensor(int32_t dtype, std::vector<int64_t> dims,
                    std::mt19937_64 &rng) {
  Tensor t;
  t.name = "t/" + std::to_string(dtype);
  t.dtype = dtype;
  t.dims = std::move(dims);
  t.data.resize(t.numElements() * shardc::format::dtypeSize(dtype));
  for (uint8_t &b : t.data)
    b = static_cast<uint8_t>(rng());
  if (dtype == 9) // bool: 0 or 1
    for (uint8_t &b : t.data)
      b &= 1;
  return t;
}

void expectSame(const Tensor &a, const Tensor &b) {
  EXPECT_EQ(a.dtype, b.dtype);
  EXPECT_EQ(a.dims, b.dims);
  EXPECT_EQ(a.data, b.data);
}

void expectOneLine(const std::string &error) {
  EXPECT_FALSE(error.empty());
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
}

const int32_t kNpyDtypes[] = {1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13};

TEST(TensorIO, NpyRoundTrip) {
  std::mt19937_64 rng(1);
  for (int32_t dtype : kNpyDtypes)
    for (auto dims : std::vector<std::vector<int64_t>>{
             {}, {5}, {2, 3}, {1, 3, 4, 5}, {0, 7}}) {
      Tensor t = randomTensor(dtype, dims, rng), back;
      std::vector<uint8_t> bytes;
      std::string error;
      ASSERT_TRUE(encodeNpy(t, bytes, error)) << error;
      // The header ends at a multiple of 64 with '\n'.
      size_t dataStart = bytes.size() - t.data.size();
      EXPECT_EQ(dataStart % 64, 0u);
      EXPECT_EQ(bytes[dataStart - 1], '\n');
      ASSERT_TRUE(parseNpy(bytes.data(), bytes.size(), back, error)) << error;
      expectSame(t, back);
    }
}

TEST(TensorIO, NpyHeaderForms) {
  auto make = [](int major, const std::string &dict, size_t dataBytes) {
    std::vector<uint8_t> b = {
        0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
    size_t n = dict.size();
    b.push_back(n & 0xff);
    b.push_back((n >> 8) & 0xff);
    if (major > 1) {
      b.push_back((n >> 16) & 0xff);
      b.push_back((n >> 24) & 0xff);
    }
    b.insert(b.end(), dict.begin(), dict.end());
    b.resize(b.size() + dataBytes, 1);
    return b;
  };
  Tensor t;
  std::string error;
  auto v3 = make(3,
                 "{\"descr\": \"<i8\", \"shape\": (2,), "
                 "\"fortran_order\": False}\n",
                 16);
  ASSERT_TRUE(parseNpy(v3.data(), v3.size(), t, error)) << error;
  EXPECT_EQ(t.dtype, 7);
  EXPECT_EQ(t.dims, std::vector<int64_t>({2}));
  auto v2 = make(2, "{'descr': '|u1', 'fortran_order': False, 'shape': ()}", 1);
  ASSERT_TRUE(parseNpy(v2.data(), v2.size(), t, error)) << error;
  EXPECT_TRUE(t.dims.empty());
  // Fortran order is fine when only one dim is not 1.
  auto f1 = make(1,
                 "{'descr': '<f4', 'fortran_order': True, "
                 "'shape': (1, 4, 1), }",
                 16);
  ASSERT_TRUE(parseNpy(f1.data(), f1.size(), t, error)) << error;

  struct Bad {
    std::string dict;
    size_t data;
    const char *expect;
  } bad[] = {
      {"{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", 24,
       "fortran_order"},
      {"{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8,
       "big-endian"},
      {"{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", 16,
       "unsupported .npy dtype"},
      {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", 8,
       "structured"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 23,
       "truncated"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 25,
       "needs 24"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", 0,
       "shape"},
      {"{'descr': '<f4', 'fortran_order': False}", 0, "missing"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,3", 0, "shape"},
      {"{'descr': '<f4' 'fortran_order': False, 'shape': (2,), }", 8,
       "expected ','"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': "
       "(99999999999999999999999,), }",
       0, "shape"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': "
       "(4294967296, 4294967296, 4294967296), }",
       0, "too large"},
  };
  for (const Bad &b : bad) {
    auto bytes = make(1, b.dict, b.data);
    EXPECT_FALSE(parseNpy(bytes.data(), bytes.size(), t, error)) << b.dict;
    EXPECT_NE(error.find(b.expect), std::string::npos) << error;
    expectOneLine(error);
  }
  auto v4 = make(4, "{}", 0);
  EXPECT_FALSE(parseNpy(v4.data(), v4.size(), t, error));
  EXPECT_NE(error.find("version 4"), std::string::npos) << error;
}

TEST(TensorIO, NpyEveryTruncation) {
  std::mt19937_64 rng(2);
  Tensor t = randomTensor(1, {3, 5}, rng), out;
  std::vector<uint8_t> bytes;
  std::string error;
  ASSERT_TRUE(encodeNpy(t, bytes, error));
  for (size_t len = 0; len < bytes.size(); ++len) {
    EXPECT_FALSE(parseNpy(bytes.data(), len, out, error)) << len;
    expectOneLine(error);
  }
  // Byte flips in the header: rejected or parsed, never a crash.
  for (size_t i = 0; i < bytes.size() - t.data.size(); ++i) {
    std::vector<uint8_t> bad = bytes;
    bad[i] ^= 0x20;
    if (!parseNpy(bad.data(), bad.size(), out, error))
      expectOneLine(error);
  }
}

TEST(TensorIO, NpyBfloat16IsNotEncodable) {
  Tensor t;
  t.dtype = 16;
  t.dims = {1};
  t.data = {0, 0};
  std::vector<uint8_t> bytes;
  std::string error;
  EXPECT_FALSE(encodeNpy(t, bytes, error));
  EXPECT_EQ(error, "bfloat16 cannot be stored in .npy");
}

TEST(TensorIO, PbRoundTrip) {
  std::mt19937_64 rng(3);
  for (int32_t dtype : {1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 16})
    for (auto dims :
         std::vector<std::vector<int64_t>>{{}, {5}, {2, 3}, {0}, {2, 1, 3}}) {
      Tensor t = randomTensor(dtype, dims, rng), back;
      std::vector<uint8_t> bytes;
      std::string error;
      ASSERT_TRUE(encodePb(t, bytes, error)) << error;
      ASSERT_TRUE(parsePb(bytes.data(), bytes.size(), back, error)) << error;
      expectSame(t, back);
      EXPECT_EQ(back.name, t.name);
    }
}

/// Protobuf encoding helpers for hand-built TensorProtos.
struct Pb {
  std::vector<uint8_t> b;
  Pb &varint(uint64_t v) {
    while (v >= 0x80) {
      b.push_back(static_cast<uint8_t>(v | 0x80));
      v >>= 7;
    }
    b.push_back(static_cast<uint8_t>(v));
    return *this;
  }
  Pb &key(uint32_t field, uint32_t wire) { return varint(field << 3 | wire); }
  Pb &fixed32(uint32_t v) {
    for (int i = 0; i < 4; ++i)
      b.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  Pb &fixed64(uint64_t v) {
    for (int i = 0; i < 8; ++i)
      b.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  Pb &bytes(uint32_t field, const std::vector<uint8_t> &data) {
    key(field, 2).varint(data.size());
    b.insert(b.end(), data.begin(), data.end());
    return *this;
  }
};

std::vector<uint8_t> packedVarints(std::vector<int64_t> v) {
  Pb p;
  for (int64_t x : v)
    p.varint(static_cast<uint64_t>(x));
  return p.b;
}

template <typename T> std::vector<T> values(const Tensor &t) {
  std::vector<T> v(t.data.size() / sizeof(T));
  std::memcpy(v.data(), t.data.data(), t.data.size());
  return v;
}

TEST(TensorIO, PbTypedFields) {
  Tensor t;
  std::string error;
  // float_data packed, dims unpacked.
  {
    Pb p;
    p.key(1, 0).varint(2).key(1, 0).varint(2).key(2, 0).varint(1);
    Pb data;
    for (float f : {1.0f, -2.5f, 3.0f, 0.25f}) {
      uint32_t u;
      std::memcpy(&u, &f, 4);
      data.fixed32(u);
    }
    p.bytes(4, data.b);
    ASSERT_TRUE(parsePb(p.b.data(), p.b.size(), t, error)) << error;
    EXPECT_EQ(values<float>(t), std::vector<float>({1.0f, -2.5f, 3.0f, 0.25f}));
  }
  // float_data unpacked, dims packed, name, an unknown field (doc_string).
  {
    Pb p;
    p.bytes(1, packedVarints({3})).key(2, 0).varint(1);
    p.bytes(8, {'a', 'b'}).bytes(12, {'d', 'o', 'c'});
    for (float f : {1.0f, 2.0f, 3.0f}) {
      uint32_t u;
      std::memcpy(&u, &f, 4);
      p.key(4, 5).fixed32(u);
    }
    ASSERT_TRUE(parsePb(p.b.data(), p.b.size(), t, error)) << error;
    EXPECT_EQ(t.name, "ab");
    EXPECT_EQ(values<float>(t), std::vector<float>({1.0f, 2.0f, 3.0f}));
  }
  // int32_data carries int8 (negative as a sign-extended varint), bool,
  // fp16 bits; int64_data packed and unpacked.
  {
    Pb p;
    p.key(1, 0).varint(3).key(2, 0).varint(3);
    p.bytes(5, packedVarints({-1, 127, -128}));
    ASSERT_TRUE(parsePb(p.b.data(), p.b.size(), t, error)) << error;
    EXPECT_EQ(values<int8_t>(t), std::vector<int8_t>({-1, 127, -128}));
  }
  {
    Pb p;
    p.key(1, 0).varint(2).key(2, 0).varint(10);
    p.key(5, 0).varint(0x3c00).key(5, 0).varint(0xc000);
    ASSERT_TRUE(parsePb(p.b.data(), p.b.size(), t, error)) << error;
    EXPECT_EQ(values<uint16_t>(t), std::vector<uint16_t>({0x3c00, 0xc000}));
  }
  {
    Pb p;
    p.key(1, 0).varint(3).key(2, 0).varint(7);
    p.key(7, 0).varint(static_cast<uint64_t>(int64_t(-5)));
    p.bytes(7, packedVarints({int64_t(1) << 40, 7}));
    ASSERT_TRUE(parsePb(p.b.data(), p.b.size(), t, error)) << error;
    EXPECT_EQ(values<int64_t>(t),
              std::vector<int64_t>({-5, int64_t(1) << 40, 7}));
  }
  // double_data, uint64_data for uint32.
  {
    Pb p;
    p.key(1, 0).varint(2).key(2, 0).varint(11);
    double d0 = 0.5, d1 = -1e300;
    uint64_t u0, u1;
    std::memcpy(&u0, &d0, 8);
    std::memcpy(&u1, &d1, 8);
    p.key(10, 1).fixed64(u0);
    p.bytes(10, Pb().fixed64(u1).b);
    ASSERT_TRUE(parsePb(p.b.data(), p.b.size(), t, error)) << error;
    EXPECT_EQ(values<double>(t), std::vector<double>({0.5, -1e300}));
  }
  {
    Pb p;
    p.key(1, 0).varint(2).key(2, 0).varint(12);
    p.bytes(11, packedVarints({4000000000ll, 1}));
    ASSERT_TRUE(parsePb(p.b.data(), p.b.size(), t, error)) << error;
    EXPECT_EQ(values<uint32_t>(t), std::vector<uint32_t>({4000000000u, 1}));
  }
  // A scalar with no data_type-specific field and zero elements.
  {
    Pb p;
    p.key(1, 0).varint(0).key(2, 0).varint(1);
    ASSERT_TRUE(parsePb(p.b.data(), p.b.size(), t, error)) << error;
    EXPECT_TRUE(t.data.empty());
  }
}

TEST(TensorIO, PbErrors) {
  Tensor t;
  std::string error;
  struct Bad {
    std::vector<uint8_t> bytes;
    const char *expect;
  };
  std::vector<Bad> bad;
  bad.push_back({Pb().key(1, 0).varint(2).b, "no data_type"});
  bad.push_back({Pb().key(2, 0).varint(8).bytes(6, {'a'}).b, "string"});
  bad.push_back(
      {Pb().key(2, 0).varint(1).key(14, 0).varint(1).b, "external data"});
  bad.push_back(
      {Pb().key(2, 0).varint(1).bytes(13, {1, 2}).b, "external data"});
  bad.push_back({Pb().key(2, 0).varint(14).b, "data_type 14"});
  bad.push_back(
      {Pb().key(1, 0).varint(2).key(2, 0).varint(1).bytes(9, {1, 2, 3, 4}).b,
       "raw_data is 4 bytes"});
  bad.push_back(
      {Pb().key(1, 0).varint(2).key(2, 0).varint(7).key(7, 0).varint(1).b,
       "int64_data has 1 values"});
  bad.push_back({Pb().key(1, 0)
                     .varint(static_cast<uint64_t>(int64_t(-2)))
                     .key(2, 0)
                     .varint(1)
                     .b,
                 "negative"});
  bad.push_back(
      {Pb().key(2, 0).varint(1).key(9, 2).varint(100).b, "truncated field 9"});
  bad.push_back({Pb().key(2, 0).varint(1).key(4, 0).varint(1).b,
                 "field 4"});                   // float_data as a varint
  bad.push_back({Pb().key(2, 3).b, "field 2"}); // group wire type
  bad.push_back({{0xff, 0xff, 0xff}, "truncated field key"});
  bad.push_back({Pb().key(1, 0)
                     .varint(1u << 31)
                     .key(1, 0)
                     .varint(1u << 31)
                     .key(1, 0)
                     .varint(1u << 31)
                     .key(2, 0)
                     .varint(1)
                     .b,
                 "too large"});
  for (const Bad &b : bad) {
    EXPECT_FALSE(parsePb(b.bytes.data(), b.bytes.size(), t, error)) << b.expect;
    EXPECT_NE(error.find(b.expect), std::string::npos) << error;
    expectOneLine(error);
  }
}

TEST(TensorIO, PbEveryTruncationAndFlip) {
  std::mt19937_64 rng(4);
  Tensor t = randomTensor(1, {2, 3}, rng), out;
  std::vector<uint8_t> bytes;
  std::string error;
  ASSERT_TRUE(encodePb(t, bytes, error));
  for (size_t len = 0; len < bytes.size(); ++len) {
    EXPECT_FALSE(parsePb(bytes.data(), len, out, error)) << len;
    expectOneLine(error);
  }
  for (size_t i = 0; i < bytes.size(); ++i)
    for (uint8_t mask : {0x01, 0x40, 0x80}) {
      std::vector<uint8_t> bad = bytes;
      bad[i] ^= mask;
      if (!parsePb(bad.data(), bad.size(), out, error))
        expectOneLine(error);
    }
  for (int round = 0; round < 2000; ++round) {
    std::vector<uint8_t> junk(rng() % 64);
    for (uint8_t &b : junk)
      b = static_cast<uint8_t>(rng());
    if (!parsePb(junk.data(), junk.size(), out, error))
      expectOneLine(error);
  }
}

TEST(TensorIO, Files) {
  std::string dir = ::testing::TempDir();
  std::mt19937_64 rng(5);
  Tensor t = randomTensor(7, {4}, rng), back;
  std::string error;
  ASSERT_TRUE(writeNpy(dir + "/io_test.npy", t, error)) << error;
  ASSERT_TRUE(readTensor(dir + "/io_test.npy", back, error)) << error;
  expectSame(t, back);
  ASSERT_TRUE(writePb(dir + "/io_test.pb", t, error)) << error;
  ASSERT_TRUE(readTensor(dir + "/io_test.pb", back, error)) << error;
  expectSame(t, back);
  EXPECT_FALSE(readTensor(dir + "/no_such_file.npy", back, error));
  EXPECT_NE(error.find("No such file"), std::string::npos) << error;
  EXPECT_FALSE(readTensor(dir, back, error));
  EXPECT_NE(error.find("is a directory"), std::string::npos) << error;
  // A .pb given a .npy name is read as .npy and fails clearly.
  ASSERT_TRUE(writePb(dir + "/io_wrong.npy", t, error)) << error;
  EXPECT_FALSE(readTensor(dir + "/io_wrong.npy", back, error));
  EXPECT_NE(error.find("not a .npy file"), std::string::npos) << error;
}

} // namespace
