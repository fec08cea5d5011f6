//===- QuantReport.cpp - what quantization did, for --emit=quant-report ---===//

#include "QuantReport.h"
#include "Session.h"

#include "dialects/Graph/IR/GraphOps.h"
#include "passes/Precision/Quantize.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>
#include <vector>

using namespace mlir;
using namespace llvm;

namespace {

/// One linear layer or convolution of the report (a convolution's K is
/// its input channels times its window, N its output channels).
struct Row {
  std::string node;
  bool conv = false;
  int64_t k = 0, n = 0;
  double flops = 0;
  std::string decision; // "int8 static", "int8 dynamic", "f32: ..."
  double alpha = NAN, clip = NAN, sqnr = NAN;
};

/// The ONNX node an op came from: the innermost name of its location.
std::string nodeOf(Location loc) {
  std::string name;
  loc->walk([&](Location l) {
    if (auto n = dyn_cast<NameLoc>(l))
      if (name.empty())
        name = n.getName().str();
    return WalkResult::advance();
  });
  return name.empty() ? "?" : name;
}

double numberOf(DictionaryAttr d, StringRef key) {
  if (auto f = d ? d.getAs<FloatAttr>(key) : FloatAttr())
    return f.getValueAsDouble();
  return NAN;
}

/// "int8 SCHEME" from an int8 op's quantization attribute ("(QDQ)" when it
/// names no scheme).
std::string int8Decision(DictionaryAttr info) {
  auto scheme = info ? info.getAs<StringAttr>("scheme") : StringAttr();
  return "int8 " + (scheme ? scheme.str() : std::string("(QDQ)"));
}

/// A convolution's row: int8 (its scheme and clip), or f32 and why.
Row convRow(Operation *op) {
  auto w = cast<ShapedType>(op->getOperand(1).getType());
  auto y = cast<ShapedType>(op->getResult(0).getType());
  Row r;
  r.node = nodeOf(op->getLoc());
  r.conv = true;
  r.n = w.getDimSize(0);
  r.k = r.n > 0 ? w.getNumElements() / r.n : 0;
  r.flops = 2.0 * double(y.getNumElements()) * double(r.k);
  auto info = op->getAttrOfType<DictionaryAttr>(shardc::quant::kQuantAttr);
  if (isa<shardc::graph::ConvInt8Op>(op)) {
    r.decision = int8Decision(info);
    r.clip = numberOf(info, "clip");
    r.sqnr = numberOf(info, "sqnr_db");
  } else {
    bool constant =
        op->getOperand(1).getDefiningOp<shardc::graph::ConstantOp>();
    auto kept = info ? info.getAs<StringAttr>("kept") : StringAttr();
    r.decision = kept       ? "f32: " + kept.str()
                 : constant ? std::string("f32: not quantized")
                            : std::string("f32: no constant weight");
  }
  return r;
}

std::vector<Row> rowsOf(ModuleOp module) {
  std::vector<Row> rows;
  module.walk([&](Operation *op) {
    if (isa<shardc::graph::ConvOp, shardc::graph::FusedConvOp,
            shardc::graph::ConvInt8Op>(op)) {
      if (cast<ShapedType>(op->getResult(0).getType()).hasStaticShape())
        rows.push_back(convRow(op));
      return;
    }
    if (!isa<shardc::graph::LinearOp, shardc::graph::LinearInt8Op>(op))
      return;
    auto a = cast<ShapedType>(op->getOperand(0).getType());
    auto b = cast<ShapedType>(op->getOperand(1).getType());
    if (!a.hasStaticShape() || b.getRank() < 2)
      return;
    Row r;
    r.node = nodeOf(op->getLoc());
    r.k = b.getDimSize(b.getRank() - 2);
    r.n = b.getDimSize(b.getRank() - 1);
    r.flops = 2.0 * double(a.getNumElements()) * double(r.n);
    auto info = op->getAttrOfType<DictionaryAttr>(shardc::quant::kQuantAttr);
    if (isa<shardc::graph::LinearInt8Op>(op)) {
      r.decision = int8Decision(info);
      r.alpha = numberOf(info, "alpha");
      r.clip = numberOf(info, "clip");
      r.sqnr = numberOf(info, "sqnr_db");
    } else {
      bool constant =
          op->getOperand(1).getDefiningOp<shardc::graph::ConstantOp>();
      auto kept = info ? info.getAs<StringAttr>("kept") : StringAttr();
      auto type = cast<ShapedType>(op->getOperand(1).getType());
      bool f32Matrix = type.getRank() == 2 && type.getElementType().isF32();
      r.decision = kept         ? "f32: " + kept.str()
                   : !constant  ? std::string("f32: no constant weight")
                   : !f32Matrix ? std::string("f32: not an f32 [K, N] weight")
                                : std::string("f32: not quantized");
    }
    rows.push_back(std::move(r));
  });
  return rows;
}

std::string number(double v, int precision) {
  if (std::isnan(v))
    return "-";
  std::string s;
  raw_string_ostream os(s);
  os << format(("%." + std::to_string(precision) + "f").c_str(), v);
  return s;
}

} // namespace

void shardc::printQuantReport(raw_ostream &os, StringRef model, ModuleOp module,
                              StringRef svgPath) {
  std::vector<Row> rows = rowsOf(module);
  double total = 0, int8 = 0;
  size_t quantized = 0, convs = 0, convsInt8 = 0;
  const Row *worst = nullptr;
  for (const Row &r : rows) {
    total += r.flops;
    convs += r.conv;
    if (StringRef(r.decision).starts_with("int8")) {
      int8 += r.flops;
      ++(r.conv ? convsInt8 : quantized);
      if (!std::isnan(r.sqnr) && (!worst || r.sqnr < worst->sqnr))
        worst = &r;
    }
  }
  os << "shardc quantization report for " << model << "\n\n";
  size_t width = 4;
  for (const Row &r : rows)
    width = std::max(width, r.node.size());
  width = std::min<size_t>(width, 48);
  os << left_justify("node", width) << "  " << right_justify("K x N", 11)
     << "  " << right_justify("FLOPs", 6) << "  "
     << left_justify("decision", 13) << right_justify("alpha", 6)
     << right_justify("clip", 9) << right_justify("SQNR dB", 9) << "\n";
  for (const Row &r : rows) {
    std::string node = r.node.size() > width
                           ? "..." + r.node.substr(r.node.size() - width + 3)
                           : r.node;
    std::string shape = std::to_string(r.k) + " x " + std::to_string(r.n);
    os << left_justify(node, width) << "  " << right_justify(shape, 11) << "  "
       << right_justify(
              number(total > 0 ? 100.0 * r.flops / total : 0, 1) + "%", 6)
       << "  " << left_justify(r.decision, 13)
       << right_justify(number(r.alpha, 2), 6)
       << right_justify(number(r.clip, 3), 9)
       << right_justify(number(r.sqnr, 1), 9) << "\n";
  }
  os << "\nint8: " << quantized << " of " << rows.size() - convs
     << " linear layers";
  if (convs)
    os << ", " << convsInt8 << " of " << convs << " convolutions";
  os << ", " << number(total > 0 ? 100.0 * int8 / total : 0, 1) << "% of the "
     << (convs ? "layers'" : "linear layers'") << " FLOPs\n";
  if (worst)
    os << "lowest SQNR: " << worst->node << " (" << number(worst->sqnr, 1)
       << " dB)\n";
  if (!svgPath.empty())
    os << "SQNR chart: " << svgPath << "\n";
}

std::string shardc::quantSvg(ModuleOp module) {
  std::vector<Row> rows;
  for (Row &r : rowsOf(module))
    if (!std::isnan(r.sqnr))
      rows.push_back(std::move(r));
  if (rows.empty())
    return {};
  const int left = 320, barMax = 480, rowH = 16, top = 40;
  double top_dB = 10;
  for (const Row &r : rows)
    top_dB = std::max(top_dB, std::ceil(r.sqnr / 10) * 10);
  std::string s;
  raw_string_ostream os(s);
  int height = top + rowH * int(rows.size()) + 30;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\""
     << left + barMax + 80 << "\" height=\"" << height
     << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
     << "<text x=\"10\" y=\"20\" font-size=\"14\">SQNR of each int8 layer "
        "on calibration rows (dB; red below 20, amber below 30)</text>\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row &r = rows[i];
    int y = top + rowH * int(i);
    int w = int(barMax * std::max(0.0, r.sqnr) / top_dB);
    const char *color = r.sqnr < 20   ? "#d9534f"
                        : r.sqnr < 30 ? "#f0ad4e"
                                      : "#5cb85c";
    std::string node =
        r.node.size() > 50 ? "..." + r.node.substr(r.node.size() - 47) : r.node;
    os << "<text x=\"" << left - 6 << "\" y=\"" << y + 11
       << "\" text-anchor=\"end\">" << node << "</text>\n"
       << "<rect x=\"" << left << "\" y=\"" << y + 2 << "\" width=\"" << w
       << "\" height=\"" << rowH - 4 << "\" fill=\"" << color << "\"/>\n"
       << "<text x=\"" << left + w + 4 << "\" y=\"" << y + 11 << "\">"
       << number(r.sqnr, 1) << "</text>\n";
  }
  int axisY = top + rowH * int(rows.size()) + 4;
  for (int t = 0; t <= int(top_dB); t += 10) {
    int x = left + int(barMax * t / top_dB);
    os << "<line x1=\"" << x << "\" y1=\"" << top << "\" x2=\"" << x
       << "\" y2=\"" << axisY << "\" stroke=\"#ccc\"/>\n"
       << "<text x=\"" << x << "\" y=\"" << axisY + 14
       << "\" text-anchor=\"middle\">" << t << "</text>\n";
  }
  os << "</svg>\n";
  return s;
}

int shardc::driver::writeQuantReport(const Options &o, ModuleOp module) {
  std::string svgPath;
  if (o.outputFile != "-") {
    if (std::string svg = quantSvg(module); !svg.empty()) {
      SmallString<128> p(o.outputFile);
      sys::path::replace_extension(p, "sqnr.svg");
      svgPath = p.str().str();
      std::error_code ec;
      raw_fd_ostream out(svgPath, ec);
      if (ec)
        return fatal("cannot write '" + svgPath + "': " + ec.message());
      out << svg;
    }
  }
  std::error_code ec;
  raw_fd_ostream os(o.outputFile, ec);
  if (ec)
    return fatal("cannot write '" + o.outputFile + "': " + ec.message());
  printQuantReport(os, o.inputFile, module, svgPath);
  return 0;
}
