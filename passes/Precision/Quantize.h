//===- Quantize.h - what the int8 passes share --------------------*- C++
//-*-===//
//
// The linear layers the int8 passes quantize, and their int8 weights:
// graph-quantize-dynamic, graph-quantize-static and graph-quantize-observe
// (which must agree on which layers they see, in the same order, for the
// calibration statistics to meet their layers).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_PRECISION_QUANTIZE_H
#define SHARDC_PASSES_PRECISION_QUANTIZE_H

#include "dialects/Graph/IR/ConstantEval.h"
#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/ArrayRef.h"

#include <optional>
#include <tuple>
#include <vector>

namespace shardc::quant {

/// The name prefix of the calibration program's extra results:
/// `shardc_calib_<i>` is the i-th activation the int8 passes quantize.
inline constexpr llvm::StringLiteral kCalibrationOutput = "shardc_calib_";

/// One activation's statistics over the calibration samples, as the
/// driver writes them (tools/shardc/Calibration.cpp): per channel the
/// largest magnitude, the mean (empty in files without one) and the mean
/// square, and a sample of rows.
struct ActivationStats {
  int64_t channels = 0;
  std::vector<float> amax, mean, meanSquare;
  /// A sample of rows, [rows, channels].
  std::vector<float> sample;
  int64_t rows() const { return channels ? sample.size() / channels : 0; }
};

/// Reads the driver's statistics file, one entry per activation in
/// quantizableGroups' order; an error message (one line) on failure.
std::optional<std::string> readStats(llvm::StringRef path,
                                     std::vector<ActivationStats> &out);

/// The f32 [K, N] weight of a linear layer, read at compile time.
struct Weight {
  graph::HostTensor data;
  mlir::ElementsAttr attr;
  int64_t k = 0, n = 0;
  float at(int64_t i, int64_t j) const {
    return static_cast<float>(data.f(i * n + j));
  }
};

/// The weight of `op` when the int8 passes quantize it: a constant [K, N]
/// f32 weight, f32 activations of rank 2 or more and an f32 result, and a
/// bias of N elements. Otherwise nothing (the layer stays in f32).
/// With `read` false the weight's elements are not read (the layer is
/// quantizable all the same: `data` stays empty).
std::optional<Weight> quantizableWeight(graph::LinearOp op, bool read = true);

/// Marks f32 attention `bf16_products`: an int8 program's attention then
/// multiplies in bf16 where the CPU has bf16 matmul kernels (AMX), which at
/// 512 keys is most of what is left once the linear layers are int8
/// (GPT-2-small's causal attention: 41 against 17 ms per call).
void attentionProductsInBF16(mlir::func::FuncOp func);

/// The layers the int8 passes quantize, in program order, grouped by
/// their activation (q, k and v read the same one): groups in the order of
/// their first layer.
struct ActivationGroup {
  mlir::Value activation;
  llvm::SmallVector<graph::LinearOp> layers;
  llvm::SmallVector<Weight> weights;
};
/// `readWeights` false leaves the weights' data unread
/// (graph-quantize-observe needs only the activations). A graph.matmul by
/// a constant 2-D weight (a language model's head, which has no bias to
/// fuse) first becomes the equivalent graph.linear, in place.
std::vector<ActivationGroup> quantizableGroups(mlir::func::FuncOp func,
                                               bool readWeights = true);

/// The convolutions graph-quantize-static quantizes: graph.conv and
/// graph.fused_conv (1 to 3 spatial dims) with an f32 input and result and
/// a constant f32 weight, grouped by their input, in program order. Their
/// activations follow quantizableGroups' in the calibration statistics
/// (graph-quantize-observe writes them in that order).
struct ConvGroup {
  mlir::Value activation;
  llvm::SmallVector<mlir::Operation *> convs;
};
std::vector<ConvGroup> quantizableConvs(mlir::func::FuncOp func);

/// graph.conv_int8 on `xq` (zero point `zeroPoint`) and int8 weight `wq`
/// with `scales`, taking `conv`'s (a graph.conv or graph.fused_conv) bias,
/// epilogue and window; inserted before `conv`, which stays. With
/// `dynamicScale` and `dynamicZeroPoint` (run-time scalars) the activation's
/// scale and zero point come at run time and `scales` are the weight's.
/// Null when the bias is not f32 (conv_int8 adds an f32 bias).
graph::ConvInt8Op convInt8Like(mlir::OpBuilder &b, mlir::Operation *conv,
                               mlir::Value xq, mlir::Value wq,
                               llvm::ArrayRef<float> scales, int64_t zeroPoint,
                               mlir::Value dynamicScale = {},
                               mlir::Value dynamicZeroPoint = {});

/// The constant f32 weight of convolution `conv` (a quantizableConvs
/// member) as symmetric int8 per output channel: `q` (a constant, inserted
/// before `conv`) and one scale per channel (W is about q * scales).
/// Nothing when the weight cannot be read.
struct ConvWeight {
  mlir::Value q;
  llvm::SmallVector<float> scales;
  std::vector<int8_t> values; ///< q's elements, row-major
  graph::HostTensor weight;   ///< the f32 weight they were made from
};
std::optional<ConvWeight> quantizeConvWeight(mlir::OpBuilder &b,
                                             mlir::Operation *conv);

/// The symmetric int8 scale of a weight column or channel whose largest
/// magnitude is `peak`: peak / 127, or 1 (the values then round to zeros)
/// below 1e-20. Such a channel (batch norms fold some to 1e-40) changes
/// no f32 output beside its bias, and a denormal scale would overflow
/// where the runtime divides the bias by it.
inline float symmetricScale(double peak) {
  return peak >= 1e-20 ? static_cast<float>(peak / 127.0) : 1.0f;
}

/// Per-column symmetric int8 weights of W' = diag(rowScale) W (no row
/// scale: W), on the host: q [K, N] and one scale per column (W' is about
/// q * scales).
struct HostInt8 {
  int64_t k = 0, n = 0;
  std::vector<int8_t> q;
  std::vector<float> scales;
};
HostInt8 quantizeOnHost(const Weight &w, llvm::ArrayRef<float> rowScale);

/// The int8 weight and its column scales as constants, the scales
/// multiplied by `columnFactor` (a per-tensor activation scale folded in),
/// or nothing when they cannot be built. `key` names the derived weights.
struct QuantizedWeight {
  mlir::Value q, scales;
};
std::optional<QuantizedWeight>
materialize(mlir::OpBuilder &b, mlir::Location loc, const Weight &w,
            const HostInt8 &host, float columnFactor, llvm::StringRef key);

/// quantizeOnHost, then materialize.
std::optional<QuantizedWeight>
quantizeWeight(mlir::OpBuilder &b, mlir::Location loc, const Weight &w,
               llvm::ArrayRef<float> rowScale, float columnFactor,
               llvm::StringRef key);

/// A 0-d constant of `elem` holding `v`.
mlir::Value scalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Type elem,
                   double v);

/// int8 of already scaled values: quantize_linear(scaled, 1, 0), rounded
/// half to even and saturated (QuantizeLinear's rule).
mlir::Value toInt8(mlir::OpBuilder &b, mlir::Location loc, mlir::Value scaled);

/// Per-token symmetric int8 of f32 `x` (graph-quantize-dynamic's scheme):
/// s = max(max|x| over the last axis, tiny) / 127 ([..., M, 1]) and
/// xq = int8(x / s). Returns {xq, s}.
std::pair<mlir::Value, mlir::Value>
quantizePerToken(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);

/// Per-tensor asymmetric uint8 of f32 `x` at run time, as ONNX's
/// DynamicQuantizeLinear: s = (max(x, 0) - min(x, 0)) / 255 (never zero),
/// z = uint8(-min(x, 0) / s) and xq = uint8(x / s + z). Returns {xq, s, z}
/// (s and z 0-d).
std::tuple<mlir::Value, mlir::Value, mlir::Value>
quantizePerTensorU8(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);

/// The bias of `op` as [N] (a [1, N] row reshaped), or null without one.
mlir::Value biasRow(mlir::OpBuilder &b, graph::LinearOp op);

/// Replaces `op` by graph.linear_int8 on int8 activations `xq` (with row
/// scales `rowScale`, or none for a static scale folded into `w.scales`).
/// Records the replacement in `replaced`: a later group's activation may be
/// this layer's result.
graph::LinearInt8Op
replaceByInt8(mlir::OpBuilder &b, graph::LinearOp op, mlir::Value xq,
              const QuantizedWeight &w, mlir::Value rowScale,
              llvm::DenseMap<mlir::Value, mlir::Value> &replaced);

/// The attribute the int8 passes put on each linear_int8 (and on each
/// linear they leave in floating point) for --emit=quant-report: a
/// dictionary of `scheme` ("static" or "dynamic"), and for static layers
/// `alpha` (SmoothQuant's), `clip` (the activation's range) and `sqnr_db`
/// (the layer's output against f32 on calibration rows); `kept` (a
/// reason) on a layer left in floating point.
inline constexpr llvm::StringLiteral kQuantAttr = "graph.quant";

/// The activation of `group` now: the replacement of a quantized layer's
/// result, or the value itself.
inline mlir::Value
activationOf(const ActivationGroup &group,
             const llvm::DenseMap<mlir::Value, mlir::Value> &replaced) {
  mlir::Value v = replaced.lookup(group.activation);
  return v ? v : group.activation;
}

} // namespace shardc::quant

#endif // SHARDC_PASSES_PRECISION_QUANTIZE_H
