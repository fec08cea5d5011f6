//===- ImportSelection.cpp - topk, argmax, cumsum ---------------------------===//

#include "Importer.h"

using namespace mlir;

namespace shardc::onnximport {

static LogicalResult importTopK(NodeContext &c) {
  int64_t k;
  if (c.opset < 10) {
    k = c.getInt("k", -1);
  } else {
    auto v = c.scalar(1, "K");
    if (!v)
      return failure();
    k = (int64_t)*v;
  }
  c.create("topk", {c.in(0)},
           {c.i64("k", k), c.i64("axis", c.axis(c.getInt("axis", -1), c.rank(0))),
            c.boolean("largest", c.getInt("largest", 1)),
            c.boolean("sorted", c.getInt("sorted", 1))});
  return c.status();
}

static LogicalResult importArgMax(NodeContext &c) {
  c.create("arg_max", {c.in(0)},
           {c.i64("axis", c.axis(c.getInt("axis", 0), c.rank(0))),
            c.boolean("keepdims", c.getInt("keepdims", 1)),
            c.boolean("select_last_index", c.getInt("select_last_index", 0))});
  return c.status();
}

static LogicalResult importCumSum(NodeContext &c) {
  auto axis = c.scalar(1, "axis");
  if (!axis)
    return failure();
  c.create("cumsum", {c.in(0)},
           {c.i64("axis", c.axis((int64_t)*axis, c.rank(0))),
            c.boolean("exclusive", c.getInt("exclusive", 0)),
            c.boolean("reverse", c.getInt("reverse", 0))});
  return c.status();
}

void registerSelectionOps(HandlerMap &map) {
  map["TopK"] = importTopK;
  map["ArgMax"] = importArgMax;
  map["CumSum"] = importCumSum;
}

} // namespace shardc::onnximport
