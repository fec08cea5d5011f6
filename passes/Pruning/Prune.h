//===- Prune.h - what the pruning passes share ------------------*- C++ -*-===//
//
// The structures graph-prune-lossless and graph-prune remove parts of, found
// from the fused graph's structure (never from names), and the rewrites that
// keep a subset of their channels or heads:
//
//   MLP:        h = linear(x, W1 [K, N], b1) {act}     (only `down` reads h)
//               y = linear(h, W2 [N, M], b2) [+ residual]
//   gated MLP:  h = swiglu(linear(x, Wg [K, N]), linear(x, W1 [K, N]))
//   attention:  q|k|v = transpose(reshape(linear(x, Wq|Wk|Wv, b), [B, S, H,
//   D]))
//               o = linear(reshape(transpose(attention(q, k, v, mask?))),
//                          Wo [H*D, M], bo) [+ residual]
//
// Keeping channels `keep` of an MLP keeps those columns of W1 and b1 and
// those rows of W2; keeping heads keeps those heads' D columns of Wq, Wk,
// Wv and their biases and D rows of Wo. What the removed parts contributed
// on average (calibration) or exactly (a constant channel) is added to the
// second projection's bias.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_PRUNING_PRUNE_H
#define SHARDC_PASSES_PRUNING_PRUNE_H

#include "dialects/Graph/IR/ConstantEval.h"
#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <array>
#include <cstring>
#include <optional>
#include <vector>

namespace shardc::prune {

/// A projection by a constant weight: a graph.linear (bias, activation,
/// residual) or a graph.matmul (none of them: bias-free layers stay
/// matmuls after fusion).
class Projection {
public:
  Projection() = default;
  /// Null unless `op` is a graph.linear or graph.matmul.
  explicit Projection(mlir::Operation *op);
  explicit operator bool() const { return op != nullptr; }
  bool operator==(const Projection &o) const { return op == o.op; }
  mlir::Operation *getOperation() const { return op; }
  mlir::Location getLoc() const { return op->getLoc(); }
  mlir::Value input() const { return op->getOperand(0); }
  mlir::Value weight() const { return op->getOperand(1); }
  mlir::Value result() const { return op->getResult(0); }
  mlir::Type getType() const { return result().getType(); }
  mlir::Value bias() const;
  bool hasResidual() const;
  llvm::StringRef activation() const;
  void setWeight(mlir::Value w) { op->setOperand(1, w); }
  /// A graph.matmul becomes a graph.linear to take a bias.
  void setBias(mlir::Value bias);

private:
  mlir::Operation *op = nullptr;
};

/// An MLP whose inner channels can be removed: `up`'s result is read by
/// `down` only, as its activations; both project by constant f32 weights
/// with data of their own, biases constant too; `up` adds no residual. A
/// gated MLP (Llama's) has `gate` and `swiglu` too: down reads
/// swiglu(gate, up), gate and up project the same way (no activation).
struct Mlp {
  Projection up, down;
  Projection gate;        ///< null unless gated
  graph::SwigluOp swiglu; ///< null unless gated
  int64_t channels = 0;   ///< N
  /// What `down` reads.
  mlir::Value hidden() { return swiglu ? swiglu.getResult() : up.result(); }
};
std::vector<Mlp> findMlps(mlir::func::FuncOp func);

/// Two convolutions whose channels in between can be removed: `first`'s
/// output (graph.conv or graph.fused_conv without a residual, group 1,
/// constant f32 filters [C, Cin, k...], bias constant) is read only by
/// `second` (group 1, constant f32 filters [Cout, C, k...]) as its input.
struct ConvPair {
  mlir::Operation *first = nullptr, *second = nullptr;
  int64_t channels = 0; ///< C
};
std::vector<ConvPair> findConvPairs(mlir::func::FuncOp func);

/// The filters, bias, padding and activation of a graph.conv or
/// graph.fused_conv.
mlir::Value convWeight(mlir::Operation *conv);
mlir::Value convBias(mlir::Operation *conv);
llvm::ArrayRef<int64_t> convPads(mlir::Operation *conv);
llvm::StringRef convActivation(mlir::Operation *conv);

/// Keeps the channels `keep` (ascending) between the pair and adds
/// `biasShift` (Cout values, or empty) to the second convolution's bias.
mlir::LogicalResult keepConvChannels(ConvPair &pair,
                                     llvm::ArrayRef<int64_t> keep,
                                     llvm::ArrayRef<double> biasShift);

/// A chain of channels between two convolutions (graph-prune's conv
/// sites): `first`'s output (as ConvPair's first) flows through `between`,
/// each value read only by the next, into `second` (group 1, constant f32
/// filters [Cout, C, k...]) as its input. Between may sit elementwise ops
/// that treat every channel alike (a product, sum, difference or quotient
/// by a one-element constant, such as PP-LCNet's learnable affine; relu,
/// hard swish, sigmoid, hard sigmoid, tanh) and depthwise convolutions
/// (group C, constant f32 filters [C, 1, k...], constant bias, no
/// residual). A channel is first's filter and bias element, each depthwise
/// convolution's filter and bias element, and second's input slice. With
/// nothing between it is a ConvPair.
struct ConvChain {
  mlir::Operation *first = nullptr, *second = nullptr;
  llvm::SmallVector<mlir::Operation *> between;
  int64_t channels = 0; ///< C
};
std::vector<ConvChain> findConvChains(mlir::func::FuncOp func);
/// Whether graph-prune judges a chain: its second convolution is 1x1 and
/// unpadded (a projection of each pixel).
bool isPixelProjection(const ConvChain &chain);

/// Keeps the channels `keep` (ascending) of a chain, adds `biasShift`
/// (Cout values, or empty) to the second convolution's bias (creating one
/// if needed) and multiplies its kept input slices by `scale` (one per kept
/// channel, or empty).
mlir::LogicalResult keepChainChannels(ConvChain &chain,
                                      llvm::ArrayRef<int64_t> keep,
                                      llvm::ArrayRef<double> biasShift,
                                      llvm::ArrayRef<double> scale = {});

/// Multi-head attention whose heads can be removed: q, k and v each from
/// their own projection by a constant [K, H*D] weight (no residual, no
/// activation), reshaped to [B, S, H, D] and transposed to [B, H, S, D];
/// the result transposed back, reshaped to [B, S, H*D] and projected by a
/// constant [H*D, M] weight; a mask, if any, one head wide. A fused QKV
/// projection split into q, k and v along its last axis (GPT-2's) counts
/// as the three.
///
/// Between the transpose and the attention, ops that act on each head
/// alike may sit (`between`: rotary embeddings' products by [1, 1, S, D]
/// tables, slices and concats along the head size, negations), and k and
/// v may repeat each of their H / G heads G times (grouped-query
/// attention, Hugging Face's repeat_kv: reshape to [B, H/G, 1, S, D],
/// expand to [B, H/G, G, S, D], reshape to [B, H, S, D]); then heads go
/// in whole groups (query head h reads key and value head h / G). Every
/// value in between is read only inside the block.
struct HeadBlock {
  graph::AttentionOp attention;
  std::array<Projection, 3> proj;           ///< q, k, v (one when fused)
  graph::SplitOp split;                     ///< a fused projection's split
  std::array<graph::ReshapeOp, 3> toHeads;  ///< [B, S, H*D] -> [B, S, H, D]
  std::array<graph::TransposeOp, 3> toBhsd; ///< -> [B, H, S, D]
  /// Per-head ops after toBhsd (program order), the repeat's last.
  std::array<llvm::SmallVector<mlir::Operation *>, 3> between;
  graph::TransposeOp fromBhsd;              ///< -> [B, S, H, D]
  graph::ReshapeOp merge;                   ///< -> [B, S, H*D]
  Projection out;
  int64_t heads = 0, headDim = 0;
  int64_t kvHeads = 0; ///< key and value heads: heads / G
  int64_t group() const { return kvHeads ? heads / kvHeads : 1; }
};
std::vector<HeadBlock> findHeadBlocks(mlir::func::FuncOp func);

/// A mixture-of-experts layer whose experts can be removed: a graph.moe
/// whose expert weights (and biases) are constant f32 with data of their
/// own, its `ids` the indices of a graph.topk along the last axis of
/// router scores [T, E] computed from `router` (a projection by a
/// constant [H, E] weight, no activation or residual) through `between`
/// (softmax along the last axis, sigmoid), each value read only by the
/// next. Removing experts narrows the router's columns, so the top-k
/// picks among the kept experts only, numbered in their order.
struct MoeLayer {
  graph::MoeOp moe;
  Projection router;
  llvm::SmallVector<mlir::Operation *> between; ///< router -> topk, in order
  int64_t experts = 0;                          ///< E
};
/// The graph.moe ops of `func` in program order, each with its layer when
/// it has the form above (else a layer with `router` null).
std::vector<MoeLayer> findMoeLayers(mlir::func::FuncOp func);

/// Keeps the experts `keep` (ascending; at least top-k of them) of a
/// matched layer.
mlir::LogicalResult keepExperts(MoeLayer &layer, llvm::ArrayRef<int64_t> keep);

/// The f32 elements of a constant, read in place from its stored bytes
/// (no conversion: the lossless check reads every projection of every
/// compile); a splat stores one element for all.
struct F32Data {
  llvm::ArrayRef<char> raw;
  bool splat = false;
  double f(int64_t i) const {
    float v;
    std::memcpy(&v, raw.data() + (splat ? 0 : i) * sizeof(float), sizeof v);
    return v;
  }
};

/// The elements of a constant f32 weight or bias operand (nothing when it
/// is not one prune can read).
std::optional<F32Data> readF32(mlir::Value v);
/// The elements of a weight or bias of a structure the find* functions
/// matched (they accept only constants readF32 reads).
F32Data weightData(mlir::Value v);
/// A matched structure's optional bias: nothing without one.
std::optional<F32Data> biasData(mlir::Value bias);

/// Keeps the MLP channels `keep` (ascending) and adds `biasShift` (M values,
/// or empty) to `down`'s bias, creating one if needed. `rowScale` (one per
/// kept channel, or empty) multiplies the kept rows of `down`'s weight.
mlir::LogicalResult keepChannels(Mlp &mlp, llvm::ArrayRef<int64_t> keep,
                                 llvm::ArrayRef<double> biasShift,
                                 llvm::ArrayRef<double> rowScale = {});

/// Keeps the query heads `keep` (ascending; under grouped-query attention
/// whole groups of G consecutive heads, whose key and value head stays)
/// and adds `biasShift` (M values, or empty) to the output projection's
/// bias; `rowScale` (one per kept row of the output projection's weight,
/// or empty) multiplies those rows. Fails, changing nothing, on a partial
/// group.
mlir::LogicalResult keepHeads(HeadBlock &block, llvm::ArrayRef<int64_t> keep,
                              llvm::ArrayRef<double> biasShift,
                              llvm::ArrayRef<double> rowScale = {});

/// What the pruning passes removed from a function, added up on it as
/// `graph.pruned = {conv_channels = C, experts = X, heads = H,
/// mlp_channels = N}` (the plan report's line).
inline constexpr llvm::StringLiteral kPrunedAttr = "graph.pruned";
void recordPruned(mlir::func::FuncOp func, int64_t channels, int64_t heads,
                  int64_t convChannels = 0, int64_t experts = 0);

/// act(x) for a graph.linear activation ("none", "relu", "gelu",
/// "gelu_tanh").
double activate(llvm::StringRef activation, double x);

} // namespace shardc::prune

#endif // SHARDC_PASSES_PRUNING_PRUNE_H
