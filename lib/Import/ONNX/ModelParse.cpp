//===- ModelParse.cpp - a model file parsed without copying its weights ---===//
//
// protobuf's generated parser copies every `bytes` field: for a model whose
// weights sit in the file (a PyTorch export under 2 GB), parsing copies all
// of them into fresh heap, which costs as much as the rest of the compile.
// Here the file's outer layers (ModelProto, its GraphProto, each
// initializer's TensorProto) are walked with protobuf's own wire-format
// reader; everything but the large initializers' raw_data is handed to the
// generated parser, and each large initializer becomes an external-data
// reference to its bytes inside the model file itself. From there on the
// importer treats them like any external data: mapped once (the mapping
// the walk read), viewed by the weight blobs, checked by the same rules.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <climits>

using namespace shardc::onnximport;
using google::protobuf::io::CodedInputStream;
using WireFormatLite = google::protobuf::internal::WireFormatLite;

namespace {

// Field numbers of onnx.proto.
constexpr uint32_t kModelGraph = 7;
constexpr uint32_t kGraphInitializer = 5;
constexpr uint32_t kTensorRawData = 9;

/// One field of an encoded message.
struct Field {
  uint32_t number = 0;
  /// The whole field, tag included.
  const char *begin = nullptr, *end = nullptr;
  /// A length-delimited field's value (null otherwise).
  const char *payload = nullptr;
  size_t payloadSize = 0;
};

/// Calls `fn` on each field of the message encoded in [data, data + size),
/// in order. False if the bytes are not a well-formed message or `fn`
/// returns false.
template <typename Fn>
bool forEachField(const char *data, size_t size, Fn fn) {
  if (size > INT_MAX)
    return false;
  CodedInputStream in(reinterpret_cast<const uint8_t *>(data), (int)size);
  while (true) {
    int at = in.CurrentPosition();
    uint32_t tag = in.ReadTag();
    if (!tag)
      break;
    Field f;
    f.number = WireFormatLite::GetTagFieldNumber(tag);
    f.begin = data + at;
    if (WireFormatLite::GetTagWireType(tag) ==
        WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      uint32_t length;
      if (!in.ReadVarint32(&length))
        return false;
      size_t pos = in.CurrentPosition();
      if (length > size - pos || !in.Skip((int)length))
        return false;
      f.payload = data + pos;
      f.payloadSize = length;
    } else if (!WireFormatLite::SkipField(&in, tag)) {
      return false;
    }
    f.end = data + in.CurrentPosition();
    if (!fn(f))
      return false;
  }
  // A zero tag ends the walk at the end of the bytes, or at a malformed one.
  return in.CurrentPosition() == (int)size;
}

bool hasTypedData(const onnx::TensorProto &t) {
  return t.float_data_size() || t.int32_data_size() || t.string_data_size() ||
         t.int64_data_size() || t.double_data_size() || t.uint64_data_size();
}

/// An initializer as walked: its fields but raw_data, and raw_data's bytes.
struct WalkedTensor {
  std::string rest;
  const char *raw = nullptr;
  size_t rawSize = 0;
  bool hasRaw = false;
};

} // namespace

bool shardc::onnximport::parseModelInPlace(
    const char *data, size_t size, const std::string &selfName,
    size_t minBytes, onnx::ModelProto &model,
    llvm::DenseSet<const onnx::TensorProto *> &viewed) {
  std::string modelRest, graphRest;
  const char *graphData = nullptr;
  size_t graphSize = 0;
  int graphs = 0;
  if (!forEachField(data, size, [&](const Field &f) {
        if (f.number == kModelGraph && f.payload) {
          graphData = f.payload;
          graphSize = f.payloadSize;
          ++graphs;
        } else {
          modelRest.append(f.begin, f.end);
        }
        return true;
      }))
    return false;
  // Two graph fields merge in protobuf's semantics: leave that to it.
  if (graphs > 1 || !model.ParseFromString(modelRest))
    return false;
  if (!graphs)
    return true;

  std::vector<WalkedTensor> initializers;
  if (!forEachField(graphData, graphSize, [&](const Field &f) {
        if (f.number != kGraphInitializer || !f.payload) {
          graphRest.append(f.begin, f.end);
          return true;
        }
        WalkedTensor t;
        if (!forEachField(f.payload, f.payloadSize, [&](const Field &g) {
              if (g.number == kTensorRawData && g.payload) {
                t.raw = g.payload; // the last one wins, as in protobuf
                t.rawSize = g.payloadSize;
                t.hasRaw = true;
              } else {
                t.rest.append(g.begin, g.end);
              }
              return true;
            }))
          return false;
        initializers.push_back(std::move(t));
        return true;
      }))
    return false;
  onnx::GraphProto *graph = model.mutable_graph();
  if (!graph->ParseFromString(graphRest))
    return false;
  for (WalkedTensor &w : initializers) {
    onnx::TensorProto *t = graph->add_initializer();
    if (!t->ParseFromString(w.rest))
      return false;
    if (!w.hasRaw)
      continue;
    // A tensor that also claims external or typed data keeps its raw_data,
    // so that the importer's checks refuse it as they would have.
    if (w.rawSize < minBytes ||
        t->data_location() == onnx::TensorProto::EXTERNAL ||
        t->external_data_size() || hasTypedData(*t)) {
      t->set_raw_data(w.raw, w.rawSize);
      continue;
    }
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    auto entry = [&](const char *key, const std::string &value) {
      onnx::StringStringEntryProto *e = t->add_external_data();
      e->set_key(key);
      e->set_value(value);
    };
    entry("location", selfName);
    entry("offset", std::to_string(w.raw - data));
    entry("length", std::to_string(w.rawSize));
    viewed.insert(t);
  }
  return true;
}
