//===- Quantize.cpp - what the int8 passes share --------------------------===//

#include "passes/Precision/Quantize.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace mlir;
using namespace shardc;

namespace {
/// Weights with more elements than this stay in floating point (reading
/// them as doubles costs 8 bytes per element at compile time).
constexpr int64_t kMaxWeightElements = int64_t(1) << 26;
} // namespace

std::optional<quant::Weight> quant::quantizableWeight(graph::LinearOp op,
                                                      bool read) {
  auto xType = dyn_cast<RankedTensorType>(op.getA().getType());
  auto yType = dyn_cast<RankedTensorType>(op.getOutput().getType());
  if (!xType || !yType || xType.getRank() < 2 ||
      !xType.getElementType().isF32() || !yType.getElementType().isF32())
    return std::nullopt;
  Value w = op.getB();
  auto type = dyn_cast<RankedTensorType>(w.getType());
  if (!type || type.getRank() != 2 || !type.getElementType().isF32() ||
      type.getNumElements() > kMaxWeightElements)
    return std::nullopt;
  if (Value bias = op.getBias();
      bias && cast<RankedTensorType>(bias.getType()).getNumElements() !=
                  type.getDimSize(1))
    return std::nullopt;
  // Without reading: what constantElements checks before it reads (an f32
  // constant of this size always reads).
  auto c = w.getDefiningOp<graph::ConstantOp>();
  auto attr = c ? dyn_cast<ElementsAttr>(c.getValue()) : ElementsAttr();
  if (!c || c->hasAttr(graph::kSourceAttr) || !attr ||
      graph::isShapeOnly(attr))
    return std::nullopt;
  Weight weight;
  if (read) {
    std::optional<graph::HostTensor> t =
        graph::constantElements(w, kMaxWeightElements);
    if (!t)
      return std::nullopt;
    weight.data = std::move(*t);
  }
  weight.attr = attr;
  weight.k = type.getDimSize(0);
  weight.n = type.getDimSize(1);
  return weight;
}

/// A bare product by a constant 2-D weight (a language model's head: no
/// bias follows it, so fusion left it a graph.matmul) becomes the
/// graph.linear it is, in place, so that it quantizes like the others.
static void linearizeMatmuls(func::FuncOp func) {
  SmallVector<graph::MatMulOp> bare;
  func.walk([&](graph::MatMulOp mm) {
    auto w = dyn_cast<RankedTensorType>(mm.getRhs().getType());
    auto x = dyn_cast<RankedTensorType>(mm.getLhs().getType());
    if (w && x && w.getRank() == 2 && x.getRank() >= 2 &&
        mm.getRhs().getDefiningOp<graph::ConstantOp>())
      bare.push_back(mm);
  });
  for (graph::MatMulOp mm : bare) {
    OpBuilder b(mm);
    auto linear = b.create<graph::LinearOp>(mm.getLoc(), mm.getType(),
                                            mm.getLhs(), mm.getRhs(), Value(),
                                            Value(), b.getStringAttr("none"));
    mm.getResult().replaceAllUsesWith(linear.getOutput());
    mm.erase();
  }
}

std::vector<quant::ActivationGroup>
quant::quantizableGroups(func::FuncOp func, bool readWeights) {
  linearizeMatmuls(func);
  std::vector<ActivationGroup> groups;
  llvm::DenseMap<Value, size_t> index;
  func.walk([&](graph::LinearOp op) {
    std::optional<Weight> w = quantizableWeight(op, readWeights);
    if (!w)
      return;
    auto [it, inserted] = index.try_emplace(op.getA(), groups.size());
    if (inserted)
      groups.push_back({op.getA(), {}, {}});
    groups[it->second].layers.push_back(op);
    groups[it->second].weights.push_back(std::move(*w));
  });
  return groups;
}

std::vector<quant::ConvGroup> quant::quantizableConvs(func::FuncOp func) {
  std::vector<ConvGroup> groups;
  llvm::DenseMap<Value, size_t> index;
  func.walk([&](Operation *op) {
    if (!isa<graph::ConvOp, graph::FusedConvOp>(op))
      return;
    Value x = op->getOperand(0), w = op->getOperand(1);
    auto xt = cast<RankedTensorType>(x.getType());
    if (xt.getRank() < 3 || xt.getRank() > 5 ||
        !xt.getElementType().isF32() ||
        !getElementTypeOrSelf(op->getResult(0).getType()).isF32() ||
        !getElementTypeOrSelf(w.getType()).isF32() ||
        !w.getDefiningOp<graph::ConstantOp>())
      return;
    auto [it, inserted] = index.try_emplace(x, groups.size());
    if (inserted)
      groups.push_back({x, {}});
    groups[it->second].convs.push_back(op);
  });
  return groups;
}

graph::ConvInt8Op quant::convInt8Like(OpBuilder &b, Operation *conv, Value xq,
                                      Value wq, ArrayRef<float> scales,
                                      int64_t zeroPoint, Value dynamicScale,
                                      Value dynamicZeroPoint) {
  Value bias, residual;
  StringRef activation = "none";
  if (auto f = dyn_cast<graph::FusedConvOp>(conv)) {
    bias = f.getBias();
    residual = f.getResidual();
    activation = f.getActivation();
  } else {
    bias = cast<graph::ConvOp>(conv).getBias();
  }
  if (bias && !getElementTypeOrSelf(bias.getType()).isF32())
    return {};
  // graph.conv and graph.fused_conv name their window attributes alike.
  auto group = conv->getAttrOfType<IntegerAttr>("group");
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(conv);
  return b.create<graph::ConvInt8Op>(
      conv->getLoc(), conv->getResult(0).getType(), xq, wq, bias, residual,
      dynamicScale, dynamicZeroPoint,
      conv->getAttrOfType<DenseI64ArrayAttr>("strides"),
      conv->getAttrOfType<DenseI64ArrayAttr>("dilations"),
      conv->getAttrOfType<DenseI64ArrayAttr>("pads"),
      group ? group : b.getI64IntegerAttr(1), b.getStringAttr(activation),
      b.getDenseF32ArrayAttr(scales), b.getI64IntegerAttr(zeroPoint));
}

quant::HostInt8 quant::quantizeOnHost(const Weight &w,
                                      ArrayRef<float> rowScale) {
  HostInt8 h;
  h.k = w.k;
  h.n = w.n;
  auto value = [&](int64_t i, int64_t j) {
    return rowScale.empty() ? w.at(i, j) : w.at(i, j) * rowScale[i];
  };
  h.scales.assign(h.n, 0.0f);
  for (int64_t i = 0; i < h.k; ++i)
    for (int64_t j = 0; j < h.n; ++j)
      h.scales[j] = std::max(h.scales[j], std::fabs(value(i, j)));
  for (float &s : h.scales)
    s = symmetricScale(s);
  h.q.resize(h.k * h.n);
  for (int64_t i = 0; i < h.k; ++i)
    for (int64_t j = 0; j < h.n; ++j) {
      double v = std::nearbyint(value(i, j) / h.scales[j]);
      h.q[i * h.n + j] = static_cast<int8_t>(std::clamp(v, -127.0, 127.0));
    }
  return h;
}

std::optional<quant::QuantizedWeight>
quant::materialize(OpBuilder &b, Location loc, const Weight &w,
                   const HostInt8 &host, float columnFactor, StringRef key) {
  int64_t k = host.k, n = host.n;
  auto qType = RankedTensorType::get({k, n}, b.getIntegerType(8));
  ElementsAttr q = graph::elementsFromBytes(
      qType, graph::derivedKey(w.attr, "." + key.str(), key),
      [&](MutableArrayRef<char> out) {
        if (static_cast<int64_t>(out.size()) != k * n)
          return false;
        std::memcpy(out.data(), host.q.data(), out.size());
        return true;
      });
  std::vector<float> scales(host.scales);
  for (float &s : scales)
    s *= columnFactor;
  auto sType = RankedTensorType::get({n}, b.getF32Type());
  ElementsAttr s = graph::elementsFromBytes(
      sType, graph::derivedKey(w.attr, "." + key.str() + ".scales", "scales"),
      [&](MutableArrayRef<char> out) {
        if (out.size() != scales.size() * sizeof(float))
          return false;
        std::memcpy(out.data(), scales.data(), out.size());
        return true;
      });
  if (!q || !s)
    return std::nullopt;
  return QuantizedWeight{b.create<graph::ConstantOp>(loc, q),
                         b.create<graph::ConstantOp>(loc, s)};
}

std::optional<quant::QuantizedWeight>
quant::quantizeWeight(OpBuilder &b, Location loc, const Weight &w,
                      ArrayRef<float> rowScale, float columnFactor,
                      StringRef key) {
  return materialize(b, loc, w, quantizeOnHost(w, rowScale), columnFactor, key);
}

Value quant::scalar(OpBuilder &b, Location loc, Type elem, double v) {
  auto type = RankedTensorType::get({}, elem);
  Attribute a = isa<FloatType>(elem)
                    ? Attribute(b.getFloatAttr(elem, v))
                    : Attribute(b.getIntegerAttr(elem, (int64_t)v));
  return b.create<graph::ConstantOp>(loc, DenseElementsAttr::get(type, a));
}

Value quant::toInt8(OpBuilder &b, Location loc, Value scaled) {
  auto type = cast<RankedTensorType>(scaled.getType());
  return b.create<graph::QuantizeLinearOp>(
      loc, type.clone(b.getIntegerType(8)), scaled,
      scalar(b, loc, b.getF32Type(), 1.0),
      scalar(b, loc, b.getIntegerType(8), 0), b.getI64IntegerAttr(1));
}

/// The smallest run-time activation scale: an all-zero token or tensor
/// quantizes to zeros, not NaN.
static constexpr float kTinyScale = 1e-30f;

std::pair<Value, Value> quant::quantizePerToken(OpBuilder &b, Location loc,
                                                Value x) {
  Type f32 = b.getF32Type();
  int64_t last = cast<RankedTensorType>(x.getType()).getRank() - 1;
  // The token's scale: its largest magnitude over 127 (never zero).
  Value absx = b.create<graph::AbsOp>(loc, x);
  Value peak = b.create<graph::ReduceMaxOp>(
      loc, absx, b.getDenseI64ArrayAttr({last}), b.getBoolAttr(true));
  Value floor = scalar(b, loc, f32, kTinyScale * 127.0);
  Value s =
      b.create<graph::MulOp>(loc, b.create<graph::MaxOp>(loc, peak, floor),
                             scalar(b, loc, f32, 1.0 / 127.0));
  return {toInt8(b, loc, b.create<graph::DivOp>(loc, x, s)), s};
}

std::tuple<Value, Value, Value>
quant::quantizePerTensorU8(OpBuilder &b, Location loc, Value x) {
  Type f32 = b.getF32Type();
  Type u8 = b.getIntegerType(8, /*isSigned=*/false);
  auto all = b.getDenseI64ArrayAttr(llvm::to_vector(
      llvm::seq<int64_t>(0, cast<RankedTensorType>(x.getType()).getRank())));
  Value zero = scalar(b, loc, f32, 0.0);
  Value hi = b.create<graph::MaxOp>(
      loc, b.create<graph::ReduceMaxOp>(loc, x, all, b.getBoolAttr(false)),
      zero);
  Value lo = b.create<graph::MinOp>(
      loc, b.create<graph::ReduceMinOp>(loc, x, all, b.getBoolAttr(false)),
      zero);
  Value range = b.create<graph::MaxOp>(loc, b.create<graph::SubOp>(loc, hi, lo),
                                       scalar(b, loc, f32, kTinyScale * 255.0));
  Value s =
      b.create<graph::MulOp>(loc, range, scalar(b, loc, f32, 1.0 / 255.0));
  auto quantize = [&](Value v, Value zp) -> Value {
    return b.create<graph::QuantizeLinearOp>(
        loc, cast<RankedTensorType>(v.getType()).clone(u8), v, s, zp,
        b.getI64IntegerAttr(1));
  };
  Value z = quantize(b.create<graph::NegOp>(loc, lo), scalar(b, loc, u8, 0));
  return {quantize(x, z), s, z};
}

std::optional<quant::ConvWeight> quant::quantizeConvWeight(OpBuilder &b,
                                                           Operation *conv) {
  Value w = conv->getOperand(1);
  auto wType = cast<RankedTensorType>(w.getType());
  std::optional<graph::HostTensor> wv =
      graph::constantElements(w, int64_t(1) << 28);
  int64_t oc = wType.getDimSize(0);
  if (!wv || oc <= 0)
    return std::nullopt;
  int64_t per = wv->numel() / oc;
  ConvWeight out;
  out.scales.resize(oc);
  std::vector<int8_t> q(wv->numel());
  for (int64_t c = 0; c < oc; ++c) {
    double m = 0;
    for (int64_t i = 0; i < per; ++i)
      m = std::max(m, std::fabs(wv->f(c * per + i)));
    float sw = symmetricScale(m);
    out.scales[c] = sw;
    for (int64_t i = 0; i < per; ++i)
      q[c * per + i] = static_cast<int8_t>(
          std::clamp(std::nearbyint(wv->f(c * per + i) / sw), -127.0, 127.0));
  }
  ElementsAttr qa = graph::elementsFromBytes(
      wType.clone(b.getIntegerType(8)),
      graph::derivedKey(w.getDefiningOp<graph::ConstantOp>().getValue(),
                        ".int8c", "int8c"),
      [&](MutableArrayRef<char> bytes) {
        if (bytes.size() != q.size())
          return false;
        std::memcpy(bytes.data(), q.data(), bytes.size());
        return true;
      });
  if (!qa)
    return std::nullopt;
  out.values = std::move(q);
  out.weight = std::move(*wv);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(conv);
  out.q = b.create<graph::ConstantOp>(conv->getLoc(), qa);
  return out;
}

Value quant::biasRow(OpBuilder &b, graph::LinearOp op) {
  Value bias = op.getBias();
  if (!bias)
    return {};
  auto bt = cast<RankedTensorType>(bias.getType());
  if (bt.getRank() == 1)
    return bias;
  int64_t n = bt.getNumElements();
  return b.create<graph::ReshapeOp>(
      op.getLoc(), RankedTensorType::get({n}, bt.getElementType()), bias,
      b.getDenseI64ArrayAttr({n}));
}

graph::LinearInt8Op
quant::replaceByInt8(OpBuilder &b, graph::LinearOp op, Value xq,
                     const QuantizedWeight &w, Value rowScale,
                     llvm::DenseMap<Value, Value> &replaced) {
  auto y = b.create<graph::LinearInt8Op>(
      op.getLoc(), op.getOutput().getType(), xq, w.q, rowScale, w.scales,
      biasRow(b, op), op.getResidual(), op.getActivationAttr());
  op.getOutput().replaceAllUsesWith(y);
  replaced[op.getOutput()] = y;
  op.erase();
  return y;
}

/// Reads the driver's statistics file; an error message on failure.
std::optional<std::string> quant::readStats(StringRef path,
                                            std::vector<ActivationStats> &out) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf)
    return "cannot read " + path.str() + ": " + buf.getError().message();
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*buf)->getBuffer());
  if (!json)
    return path.str() + ": " + llvm::toString(json.takeError());
  const llvm::json::Object *root = json->getAsObject();
  const llvm::json::Array *acts =
      root ? root->getArray("activations") : nullptr;
  if (!acts)
    return path.str() + ": no \"activations\" array";
  auto floats = [](const llvm::json::Array *a, std::vector<float> &v) {
    if (!a)
      return false;
    for (const llvm::json::Value &e : *a) {
      std::optional<double> d = e.getAsNumber();
      if (!d)
        return false;
      v.push_back(static_cast<float>(*d));
    }
    return true;
  };
  for (auto [i, a] : llvm::enumerate(*acts)) {
    const llvm::json::Object *o = a.getAsObject();
    ActivationStats st;
    std::string where = path.str() + ": activation " + std::to_string(i);
    if (!o || !o->getInteger("channels"))
      return where + " has no channel count";
    st.channels = *o->getInteger("channels");
    // The mean is newer than the other statistics: optional.
    if (const llvm::json::Array *mean = o->getArray("mean");
        mean && (!floats(mean, st.mean) ||
                 static_cast<int64_t>(st.mean.size()) != st.channels))
      return where + " has a \"mean\" that is not " +
             std::to_string(st.channels) + " numbers";
    if (!floats(o->getArray("amax"), st.amax) ||
        !floats(o->getArray("meansq"), st.meanSquare) ||
        static_cast<int64_t>(st.amax.size()) != st.channels ||
        static_cast<int64_t>(st.meanSquare.size()) != st.channels)
      return where + " needs \"amax\" and \"meansq\" of " +
             std::to_string(st.channels) + " numbers";
    if (std::optional<StringRef> file = o->getString("sample")) {
      auto data = llvm::MemoryBuffer::getFile(*file);
      if (!data)
        return where + ": cannot read " + file->str();
      StringRef bytes = (*data)->getBuffer();
      size_t row = st.channels * sizeof(float);
      if (row == 0 || bytes.size() % row)
        return where + ": " + file->str() + " is not whole rows of " +
               std::to_string(st.channels) + " floats";
      st.sample.resize(bytes.size() / sizeof(float));
      std::memcpy(st.sample.data(), bytes.data(), bytes.size());
    }
    out.push_back(std::move(st));
  }
  return std::nullopt;
}

void quant::attentionProductsInBF16(func::FuncOp func) {
  func.walk([](graph::AttentionOp a) {
    if (cast<RankedTensorType>(a.getQuery().getType()).getElementType().isF32())
      a.setBf16Products(true);
  });
}
