//===- Schema.cpp - node arity checked against ONNX's own op schemas -------===//
//
// The op schemas come from libonnx (OpSchemaRegistry), so the number of
// inputs and outputs a node may have is ONNX's word, not a table of ours.
// Debian's libonnx knows opsets up to its release's; for newer opsets the
// newest schema it has still gives the required inputs (ops gain optional
// inputs over time, they do not lose required ones), but not the maximum.
//
// Compiled with exceptions on: libonnx's headers are written for them.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "onnx/defs/schema.h"
#include "llvm/ADT/StringExtras.h"

namespace shardc::onnximport {

static std::string plural(int n, const char *what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

std::optional<std::string> checkArity(const onnx::NodeProto &node,
                                      int64_t opset) {
  using onnx::OpSchema;
  const auto &ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance()
                           .Map();
  auto range = ranges.find(onnx::ONNX_DOMAIN);
  int known = range == ranges.end() ? 0 : range->second.second;
  const OpSchema *schema = onnx::OpSchemaRegistry::Schema(
      node.op_type(), (int)std::min<int64_t>(opset, known), onnx::ONNX_DOMAIN);
  if (!schema) {
    // An op that exists in a later opset than the model's is not an op of
    // the model's opset (handlers assume the schema's inputs).
    if (const OpSchema *later = onnx::OpSchemaRegistry::Schema(
            node.op_type(), known, onnx::ONNX_DOMAIN)) {
      int since = later->since_version();
      for (int v = since - 1; v >= 1; --v) {
        const OpSchema *s = onnx::OpSchemaRegistry::Schema(node.op_type(), v,
                                                           onnx::ONNX_DOMAIN);
        if (!s)
          break;
        since = s->since_version();
        v = since;
      }
      return node.op_type() + " is not in opset " + std::to_string(opset) +
             " (it first appears in opset " + std::to_string(since) + ")";
    }
    return std::nullopt; // an op the importer judges by itself
  }
  const std::string &op = node.op_type();
  int nIn = node.input_size(), nOut = node.output_size();
  // Trailing empty names are absent optional inputs.
  int last = nIn;
  while (last > 0 && node.input(last - 1).empty())
    --last;
  if (last < schema->min_input())
    return "has " + plural(last, "input") + ", but " + op +
           " needs at least " + std::to_string(schema->min_input());
  bool exact = opset <= known;
  if (exact && nIn > schema->max_input())
    return "has " + plural(nIn, "input") + ", but " + op + " takes at most " +
           std::to_string(schema->max_input());
  const auto &formals = schema->inputs();
  for (int i = 0; i < nIn && !formals.empty(); ++i) {
    const auto &f = formals[std::min<size_t>(i, formals.size() - 1)];
    if (f.GetOption() != OpSchema::Optional && node.input(i).empty())
      return "input " + std::to_string(i) + " ('" + f.GetName() +
             "') is required but its name is empty";
  }
  if (nOut == 0)
    return "has no outputs";
  if (nOut < schema->min_output())
    return "has " + plural(nOut, "output") + ", but " + op + " produces " +
           std::to_string(schema->min_output());
  if (exact && nOut > schema->max_output())
    return "has " + plural(nOut, "output") + ", but " + op +
           " produces at most " + std::to_string(schema->max_output());
  return std::nullopt;
}

std::optional<std::string> checkInputTypes(const onnx::NodeProto &node,
                                           int64_t opset,
                                           llvm::ArrayRef<int32_t> dtypes) {
  using onnx::OpSchema;
  const auto &ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance()
                           .Map();
  auto range = ranges.find(onnx::ONNX_DOMAIN);
  int known = range == ranges.end() ? 0 : range->second.second;
  // Types grow across opsets (bfloat16, int4, ...): only an exact schema may
  // refuse one.
  if (opset > known)
    return std::nullopt;
  const OpSchema *schema =
      onnx::OpSchemaRegistry::Schema(node.op_type(), (int)opset,
                                     onnx::ONNX_DOMAIN);
  if (!schema || schema->inputs().empty())
    return std::nullopt;
  const auto &formals = schema->inputs();
  for (size_t i = 0; i < dtypes.size(); ++i) {
    if (dtypes[i] == 0)
      continue; // absent or unknown
    const auto &f = formals[std::min(i, formals.size() - 1)];
    std::string name = onnx::TensorProto::DataType_Name(
        (onnx::TensorProto::DataType)dtypes[i]);
    std::string type = "tensor(" + llvm::StringRef(name).lower() + ")";
    bool allowed = false;
    for (const std::string *t : f.GetTypes())
      allowed |= *t == type;
    if (!allowed)
      return "input " + std::to_string(i) + " ('" + node.input(i) + "') is " +
             name + ", which " + node.op_type() + " does not take (" +
             f.GetName() + ": " + f.GetTypeStr() + ")";
  }
  return std::nullopt;
}

} // namespace shardc::onnximport
