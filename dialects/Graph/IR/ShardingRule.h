//===- ShardingRule.h - factor-based sharding rules -------------*- C++ -*-===//
//
// The sharding rule of a graph op (ShardingInterface.td): factors with a
// size and a kind, and for every operand and result dim the factors it is
// made of. Propagation (dist-propagate) projects a tensor's sharding onto
// the factors, and back onto the other operands and results; partitioning
// reads the kinds to know which collectives restore the result; the planner
// asks for costs.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_DIALECTS_GRAPH_IR_SHARDINGRULE_H
#define SHARDC_DIALECTS_GRAPH_IR_SHARDINGRULE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OpDefinition.h"

#include <optional>
#include <string>

namespace shardc::graph {

enum class FactorKind {
  /// Split it, and each rank computes its slice of the result.
  Parallel,
  /// Split it, and each rank holds a partial result: `combiner` ("sum",
  /// "max", "min", "prod"; "mean": each rank holds the sum of its part,
  /// divided by the whole count after the sum) over the group restores it.
  /// The combiner must be exact: a reduction with none is NeedReplication.
  Reduction,
  /// Must be whole on every rank (a softmax axis, a window, a gathered dim).
  NeedReplication,
};

struct ShardingFactor {
  int64_t size = 1;
  FactorKind kind = FactorKind::Parallel;
  llvm::StringRef combiner; ///< Reduction only
};

class ShardingRule {
public:
  /// For one value: per dim, the factors it is made of, major to minor. A
  /// dim without factors has size 1 (a broadcast or kept reduced dim).
  using ValueFactors = llvm::SmallVector<llvm::SmallVector<int64_t, 2>>;

  llvm::SmallVector<ShardingFactor> factors;
  llvm::SmallVector<ValueFactors> operands, results;

  /// Adds a factor and returns its index (a reduction without a combiner
  /// sums).
  int64_t addFactor(int64_t size, FactorKind kind,
                    llvm::StringRef combiner = "");

  /// The rule in Shardy's notation, factors named i, j, k, ... in order:
  ///   ([i, k], [k, j]) -> ([i, j]) {i=4, j=8, k=16} reduction={k:sum}
  ///   need_replication={}
  /// (dims of several factors print as (i, j); factor-less dims as 1).
  std::string str() const;

  /// Checks the rule against `op`: one entry per operand and result and per
  /// dim, and every dim's size equal to its factors' product.
  mlir::LogicalResult verify(mlir::Operation *op) const;
};

//===----------------------------------------------------------------------===//
// Building blocks of the per-family rules (ShardingRule.cpp)
//===----------------------------------------------------------------------===//

/// `axis` (an I64Attr, read unsigned) with negative values counted from the
/// end of `rank` dims.
inline int64_t normalizedAxis(uint64_t axis, int64_t rank) {
  int64_t a = static_cast<int64_t>(axis);
  return a < 0 ? a + rank : a;
}

/// The factors of an operand of shape `shape` that broadcasts numpy-style
/// (right-aligned) against `fullShape`, whose dims have `full` factors: a
/// dim equal to the full one takes its factors, a broadcast one (size 1)
/// none.
ShardingRule::ValueFactors
broadcastFactors(llvm::ArrayRef<int64_t> shape,
                 llvm::ArrayRef<int64_t> fullShape,
                 llvm::ArrayRef<llvm::SmallVector<int64_t, 2>> full);

/// A factor per result dim (of `kind`, parallel by default), operands
/// broadcast numpy-style against the result (right-aligned; a dim of size 1
/// facing a larger result dim gets no factor). Covers unary, binary,
/// ternary elementwise ops and expand.
ShardingRule elementwiseRule(mlir::Operation *op);

/// Factors that carry `in`'s dims onto `out`'s (a reshape's compound
/// factors), appended to `rule`; std::nullopt when they do not line up
/// (e.g. [6, 4] -> [4, 6]).
std::optional<std::pair<ShardingRule::ValueFactors, ShardingRule::ValueFactors>>
reshapeFactors(ShardingRule &rule, llvm::ArrayRef<int64_t> in,
               llvm::ArrayRef<int64_t> out);

/// A rule for one operand and one result of equal rank where dim d of both
/// is one factor: parallel, except the dims in `replicated`.
ShardingRule sameShapeRule(mlir::Operation *op,
                           llvm::ArrayRef<int64_t> replicated);

/// One operand (plus scalar or replicated extras) and one result of equal
/// rank: dims of equal size share a parallel factor, dims the op changes
/// (a slice, a pad, a resize) need replication.
ShardingRule equalDimsRule(mlir::Operation *op);

/// A normalization over dims [axis, rank) of `input` (layer_norm,
/// rms_norm): those dims need replication, the leading ones are parallel;
/// the other operands (scale, bias) broadcast against the trailing dims.
ShardingRule normRule(mlir::Operation *op, mlir::Value input, int64_t axis);

/// A (transposed) convolution's rule (ConvSharding.cpp): N and the output
/// channels parallel, input channels a sum reduction when `sumChannels`
/// (nothing is applied after the sum), channel groups compound factors,
/// windows replicated.
ShardingRule convRule(mlir::Operation *op, mlir::Value x, mlir::Value w,
                      mlir::Value bias, mlir::Value residual, mlir::Value y,
                      int64_t groups, bool transposed, bool sumChannels);

/// Attaches every graph op's rule (the *Sharding.cpp files).
/// What an op's own partitioning (ShardingRuleOpInterface::
/// partitionLocally) asks of the partitioner (passes/Sharding/Partition.cpp,
/// one rank at a time). Values are the global program's unless named
/// local; a layout gives each dim's mesh axes, major to minor.
class LocalPartitioner {
public:
  using Layout = llvm::SmallVector<llvm::SmallVector<llvm::StringRef, 2>>;
  virtual ~LocalPartitioner() = default;

  /// The rank's value of `v`, and the layout it has there.
  virtual mlir::Value lookup(mlir::Value v) = 0;
  virtual const Layout &layoutOf(mlir::Value v) = 0;
  /// The layout the rest of the program expects of `op`'s result `i`.
  virtual Layout recordedLayout(mlir::Operation *op, unsigned i) = 0;
  /// `v` seen through a seed's annotation (the constant under it).
  virtual mlir::Value unannotated(mlir::Value v) = 0;
  /// Defines `result` as the rank's `local`, which has layout `layout`,
  /// resharded to the recorded layout.
  virtual mlir::LogicalResult define(mlir::OpBuilder &b, mlir::Value result,
                                     mlir::Value local,
                                     const Layout &layout) = 0;
  /// The rank's `local` (laid out as `from`) laid out as `to`.
  virtual mlir::FailureOr<mlir::Value>
  reshard(mlir::OpBuilder &b, mlir::Location loc, mlir::Value local,
          const Layout &from, const Layout &to) = 0;
  /// How many parts `axes` make of a dim, and this rank's part.
  virtual std::pair<int64_t, int64_t>
  part(llvm::ArrayRef<llvm::StringRef> axes) = 0;
  /// `local` all-gathered along `dim` over `axes` (the blocks in part()'s
  /// order).
  virtual mlir::Value allGather(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value local,
                                llvm::ArrayRef<llvm::StringRef> axes,
                                int64_t dim) = 0;
  /// `local`, laid out as `layout` and holding partial values over `axes`
  /// that `kind` combines, reduced (a reduce-scatter where `want` splits a
  /// dim over exactly `axes`, else an all-reduce); the layout it gives.
  virtual Layout reducePartial(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value &local,
                               llvm::ArrayRef<llvm::StringRef> axes,
                               llvm::StringRef kind, Layout layout,
                               const Layout &want) = 0;

  /// What the generic rewrite computes from the op's rule: the layout
  /// each operand must arrive in, each result's as computed, and the axes
  /// its results hold partial values over (combined by `partialKind`).
  struct RuleLayouts {
    bool hasRule = false;
    llvm::SmallVector<Layout> need, produced;
    llvm::SmallVector<llvm::StringRef> partial;
    llvm::StringRef partialKind = "sum";
  };
  virtual mlir::FailureOr<RuleLayouts> ruleLayouts(mlir::Operation *op) = 0;
  /// The shape of `type` as a rank holds it laid out as `layout` (at the
  /// bounds of its dynamic dims).
  virtual llvm::SmallVector<int64_t> localShape(mlir::ShapedType type,
                                                const Layout &layout) = 0;
  /// The tensor type a rank holds of `type` laid out as `layout`: its
  /// symbolic mirror (the encoding) kept, split dims divided. A dynamic dim
  /// is never split (propagation and partitioning leave its factors whole).
  virtual mlir::RankedTensorType localType(mlir::ShapedType type,
                                           const Layout &layout) = 0;

  /// The mesh axes an op of this rank's stage may split over (all but the
  /// pipeline's), in mesh order, with their sizes.
  virtual llvm::SmallVector<std::pair<llvm::StringRef, int64_t>>
  stageAxes() = 0;
  /// An expert-parallel `graph.moe` (`original`) as the partitioner's
  /// expert-parallel op over `expertAxes`, on the rank's local `operands`
  /// (tokens, weights, ids, gate/up, down[, biases]), of type `type`.
  virtual mlir::Value expertParallelMoe(mlir::OpBuilder &b,
                                        mlir::Operation *original,
                                        mlir::RankedTensorType type,
                                        mlir::ValueRange operands,
                                        llvm::ArrayRef<llvm::StringRef>
                                            expertAxes) = 0;
};

/// `op` cloned at `b` on the rank's operands, each resharded to the layout
/// `need` gives it, without its sharding annotations: the start of an
/// op's own rewrite that changes attributes of the clone (a grouped
/// convolution's group count, an int8 one's scales) and sets its result
/// types.
mlir::FailureOr<mlir::Operation *>
cloneOnLocalOperands(mlir::Operation *op, LocalPartitioner &p,
                     mlir::OpBuilder &b,
                     llvm::ArrayRef<LocalPartitioner::Layout> need);

void registerShardingRules(mlir::DialectRegistry &registry);

// Per family (called by registerShardingRules).
void attachElementwiseShardingRules(mlir::MLIRContext *ctx);
void attachLinalgShardingRules(mlir::MLIRContext *ctx);
void attachShapeShardingRules(mlir::MLIRContext *ctx);
void attachConvShardingRules(mlir::MLIRContext *ctx);
void attachSelectionShardingRules(mlir::MLIRContext *ctx);
void attachQuantShardingRules(mlir::MLIRContext *ctx);
void attachFusedShardingRules(mlir::MLIRContext *ctx);
void attachScatterShardingRules(mlir::MLIRContext *ctx);
void attachMoeShardingRules(mlir::MLIRContext *ctx);

} // namespace shardc::graph

#include "dialects/Graph/IR/ShardingInterface.h.inc"

namespace shardc::graph {

/// An external model whose rule is `Fn(op)`.
template <typename Op, std::optional<ShardingRule> (*Fn)(mlir::Operation *)>
struct RuleModel
    : ShardingRuleOpInterface::ExternalModel<RuleModel<Op, Fn>, Op> {
  std::optional<ShardingRule> getShardingRule(mlir::Operation *op) const {
    return Fn(op);
  }
};

/// Attaches `Fn` as the rule of every op in `Ops`.
template <std::optional<ShardingRule> (*Fn)(mlir::Operation *),
          typename... Ops>
void attachRule(mlir::MLIRContext *ctx) {
  (Ops::template attachInterface<RuleModel<Ops, Fn>>(*ctx), ...);
}

/// A rule and the op's own local rewrite (partitionLocally).
using LocalFn = mlir::FailureOr<bool> (*)(mlir::Operation *,
                                          LocalPartitioner &,
                                          mlir::OpBuilder &);
template <typename Op, std::optional<ShardingRule> (*Fn)(mlir::Operation *),
          LocalFn Local>
struct RuleLocalModel
    : ShardingRuleOpInterface::ExternalModel<RuleLocalModel<Op, Fn, Local>,
                                             Op> {
  std::optional<ShardingRule> getShardingRule(mlir::Operation *op) const {
    return Fn(op);
  }
  mlir::FailureOr<bool> partitionLocally(mlir::Operation *op,
                                         LocalPartitioner &p,
                                         mlir::OpBuilder &b) const {
    return Local(op, p, b);
  }
};

template <std::optional<ShardingRule> (*Fn)(mlir::Operation *), LocalFn Local,
          typename... Ops>
void attachRuleAndRewrite(mlir::MLIRContext *ctx) {
  (Ops::template attachInterface<RuleLocalModel<Ops, Fn, Local>>(*ctx), ...);
}

/// The partitioning of a grouped convolution (graph.conv, graph.fused_conv)
/// whose input channels arrive split: the generic rewrite with the rank's
/// group count (ConvSharding.cpp).
mlir::FailureOr<bool> partitionGroupedConv(mlir::Operation *op,
                                           LocalPartitioner &p,
                                           mlir::OpBuilder &b);

} // namespace shardc::graph

#endif // SHARDC_DIALECTS_GRAPH_IR_SHARDINGRULE_H
