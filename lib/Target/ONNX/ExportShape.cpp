//===- ExportShape.cpp - shapes, slices, gathers, scatters, pad, resize ---===//
//
// At opset 17 shape operands (Reshape's shape, Slice's bounds, Squeeze's
// axes, ...) are int64 inputs: each becomes an initializer.
//
//===----------------------------------------------------------------------===//

#include "Exporter.h"

#include "dialects/Graph/IR/GraphOps.h"

#include <climits>
#include <cmath>

using namespace mlir;

namespace shardc::onnxexport {

static LogicalResult exportReshape(Exporter &e, Operation *op) {
  auto r = cast<graph::ReshapeOp>(op);
  onnx::NodeProto &n = e.node(
      op, "Reshape", {e.in(r.getInput()), e.ints(r.getShape(), op, "shape")},
      {e.out(r.getOutput())});
  // A zero in the shape is a size here, not "copy the input's dim".
  if (llvm::is_contained(r.getShape(), 0))
    attr(n, "allowzero", int64_t(1));
  return success();
}

static LogicalResult exportTranspose(Exporter &e, Operation *op) {
  auto t = cast<graph::TransposeOp>(op);
  attr(e.node(op, "Transpose", {e.in(t.getInput())}, {e.out(t.getOutput())}),
       "perm", t.getPerm());
  return success();
}

static LogicalResult exportConcat(Exporter &e, Operation *op) {
  auto c = cast<graph::ConcatOp>(op);
  std::vector<std::string> inputs;
  for (Value v : c.getInputs())
    inputs.push_back(e.in(v));
  attr(e.node(op, "Concat", inputs, {e.out(c.getOutput())}), "axis",
       c.getAxis());
  return success();
}

static LogicalResult exportSplit(Exporter &e, Operation *op) {
  auto s = cast<graph::SplitOp>(op);
  std::vector<std::string> outputs;
  for (Value v : s.getOutputs())
    outputs.push_back(e.out(v));
  attr(e.node(op, "Split",
              {e.in(s.getInput()), e.ints(s.getSizes(), op, "split")}, outputs),
       "axis", s.getAxis());
  return success();
}

static LogicalResult exportSlice(Exporter &e, Operation *op) {
  auto s = cast<graph::SliceOp>(op);
  SmallVector<int64_t> ends(s.getEnds());
  // The canonical end -1 of a negative step means "through index 0"; in
  // ONNX -1 is the last index, and INT64_MIN clamps to "through 0".
  for (auto [end, step] : llvm::zip(ends, s.getSteps()))
    if (step < 0 && end < 0)
      end = INT64_MIN;
  int64_t rank = graph::tensorOf(s.getInput()).getRank();
  SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  e.node(op, "Slice",
         {e.in(s.getInput()), e.ints(s.getStarts(), op, "starts"),
          e.ints(ends, op, "ends"), e.ints(axes, op, "axes"),
          e.ints(s.getSteps(), op, "steps")},
         {e.out(s.getOutput())});
  return success();
}

static LogicalResult exportGather(Exporter &e, Operation *op) {
  auto g = cast<graph::GatherOp>(op);
  if (g.getPart())
    return op->emitError("--emit=onnx: a vocabulary-parallel gather (one "
                         "rank's part of a table) has no ONNX form");
  attr(e.node(op, "Gather", {e.in(g.getData()), e.in(g.getIndices())},
              {e.out(g.getOutput())}),
       "axis", g.getAxis());
  return success();
}

static LogicalResult exportExpand(Exporter &e, Operation *op) {
  auto x = cast<graph::ExpandOp>(op);
  e.node(op, "Expand", {e.in(x.getInput()), e.ints(x.getShape(), op, "shape")},
         {e.out(x.getOutput())});
  return success();
}

template <typename OpTy>
static LogicalResult exportAxesInput(Exporter &e, Operation *op,
                                     StringRef type) {
  auto s = cast<OpTy>(op);
  e.node(op, type, {e.in(s.getInput()), e.ints(s.getAxes(), op, "axes")},
         {e.out(s.getOutput())});
  return success();
}

static LogicalResult exportFlatten(Exporter &e, Operation *op) {
  auto f = cast<graph::FlattenOp>(op);
  attr(e.node(op, "Flatten", {e.in(f.getInput())}, {e.out(f.getOutput())}),
       "axis", f.getAxis());
  return success();
}

static LogicalResult exportTrilu(Exporter &e, Operation *op) {
  auto t = cast<graph::TriluOp>(op);
  attr(e.node(op, "Trilu",
              {e.in(t.getInput()), e.int64Scalar(t.getK(), op, "k")},
              {e.out(t.getOutput())}),
       "upper", static_cast<int64_t>(t.getUpper()));
  return success();
}

static LogicalResult exportPad(Exporter &e, Operation *op) {
  auto p = cast<graph::PadOp>(op);
  StringRef mode = p.getMode();
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    return op->emitError("--emit=onnx: pad mode '")
           << mode << "' is past opset 17";
  std::string value;
  if (Value v = p.getValue()) {
    Type elem = graph::tensorOf(p.getInput()).getElementType();
    Type vElem = graph::tensorOf(v).getElementType();
    value = e.castTo(op, e.in(v), vElem, elem);
    if (graph::tensorOf(v).getRank() != 0)
      value = e.value(op, "Reshape", {value, e.ints({}, op, "scalar")});
  }
  std::vector<std::string> inputs{e.in(p.getInput()),
                                  e.ints(p.getPads(), op, "pads")};
  if (!value.empty())
    inputs.push_back(value);
  attr(e.node(op, "Pad", inputs, {e.out(p.getOutput())}), "mode", mode);
  return success();
}

static LogicalResult exportResize(Exporter &e, Operation *op) {
  auto r = cast<graph::ResizeOp>(op);
  // Its region of interest is not kept in the graph (nor run by shardc).
  if (r.getCoordinateTransformationMode() == "tf_crop_and_resize")
    return op->emitError("--emit=onnx: a tf_crop_and_resize resize (its "
                         "region of interest is not kept)");
  if (r.getAntialias())
    return op->emitError("--emit=onnx: an antialiased resize is past opset 17");
  int64_t rank = graph::tensorOf(r.getInput()).getRank();
  // The model's scales when it gave them (they set the coordinates) and
  // they give the sizes (floor(in * scale)); else the sizes.
  std::string scales, sizes;
  ArrayRef<int64_t> in =
      cast<RankedTensorType>(r.getInput().getType()).getShape();
  bool byScales = static_cast<int64_t>(r.getScales().size()) == rank;
  for (int64_t d = 0; byScales && d < rank; ++d)
    byScales = static_cast<int64_t>(
                   std::floor(static_cast<double>(in[d]) * r.getScales()[d])) ==
               r.getSizes()[d];
  if (byScales)
    scales = e.floats(r.getScales(), op, "scales");
  else
    sizes = e.ints(r.getSizes(), op, "sizes");
  onnx::NodeProto &n =
      e.node(op, "Resize", {e.in(r.getInput()), "", scales, sizes},
             {e.out(r.getOutput())});
  if (sizes.empty())
    n.mutable_input()->RemoveLast();
  attr(n, "mode", r.getMode());
  attr(n, "coordinate_transformation_mode",
       r.getCoordinateTransformationMode());
  attr(n, "nearest_mode", r.getNearestMode());
  attrFloat(n, "cubic_coeff_a", r.getCubicCoeffA().convertToFloat());
  attr(n, "exclude_outside", static_cast<int64_t>(r.getExcludeOutside()));
  attrFloat(n, "extrapolation_value",
            r.getExtrapolationValue().convertToFloat());
  return success();
}

static LogicalResult exportGatherElements(Exporter &e, Operation *op) {
  auto g = cast<graph::GatherElementsOp>(op);
  attr(e.node(op, "GatherElements", {e.in(g.getData()), e.in(g.getIndices())},
              {e.out(g.getOutput())}),
       "axis", g.getAxis());
  return success();
}

static LogicalResult reduction(Operation *op, onnx::NodeProto &n,
                               StringRef reduction) {
  if (reduction == "none")
    return success();
  if (reduction != "add" && reduction != "mul")
    return op->emitError("--emit=onnx: scatter reduction '")
           << reduction << "' is past opset 17";
  attr(n, "reduction", reduction);
  return success();
}

static LogicalResult exportScatterElements(Exporter &e, Operation *op) {
  auto s = cast<graph::ScatterElementsOp>(op);
  onnx::NodeProto &n =
      e.node(op, "ScatterElements",
             {e.in(s.getData()), e.in(s.getIndices()), e.in(s.getUpdates())},
             {e.out(s.getOutput())});
  attr(n, "axis", s.getAxis());
  return reduction(op, n, s.getReduction());
}

static LogicalResult exportScatterND(Exporter &e, Operation *op) {
  auto s = cast<graph::ScatterNDOp>(op);
  onnx::NodeProto &n =
      e.node(op, "ScatterND",
             {e.in(s.getData()), e.in(s.getIndices()), e.in(s.getUpdates())},
             {e.out(s.getOutput())});
  return reduction(op, n, s.getReduction());
}

void registerShapeExports(ExportMap &map) {
  map["graph.reshape"] = exportReshape;
  map["graph.transpose"] = exportTranspose;
  map["graph.concat"] = exportConcat;
  map["graph.split"] = exportSplit;
  map["graph.slice"] = exportSlice;
  map["graph.gather"] = exportGather;
  map["graph.expand"] = exportExpand;
  map["graph.squeeze"] = [](Exporter &e, Operation *op) {
    return exportAxesInput<graph::SqueezeOp>(e, op, "Squeeze");
  };
  map["graph.unsqueeze"] = [](Exporter &e, Operation *op) {
    return exportAxesInput<graph::UnsqueezeOp>(e, op, "Unsqueeze");
  };
  map["graph.flatten"] = exportFlatten;
  map["graph.trilu"] = exportTrilu;
  map["graph.pad"] = exportPad;
  map["graph.resize"] = exportResize;
  map["graph.gather_elements"] = exportGatherElements;
  map["graph.scatter_elements"] = exportScatterElements;
  map["graph.scatter_nd"] = exportScatterND;
}

} // namespace shardc::onnxexport
