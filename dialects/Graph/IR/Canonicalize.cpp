//===- Canonicalize.cpp - folders and canonicalization patterns -------------===//
//
// Folders: an op whose operands are all constants folds to a constant
// through the evaluator of ConstantEval.h, when the result has at most
// kFoldCap elements and the evaluation is exact (see there); no-op identity,
// cast, reshape, transpose, expand and single-input concat fold away;
// constant_of_shape becomes a splat constant.
// Canonical forms: Squeeze, Unsqueeze and Flatten become Reshape; chains of
// reshapes and transposes collapse.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/IR/ConstantEval.h"
#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace shardc::graph {

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult ConstantOfShapeOp::fold(FoldAdaptor) {
  // A constant's type has no dynamic dims: symbolic fills stay.
  auto dense = dyn_cast<DenseElementsAttr>(getValue());
  if (!dense || isSymbolic(getType()))
    return {};
  return DenseElementsAttr::get(getType(),
                                dense.getValues<Attribute>()[0]);
}

OpFoldResult IdentityOp::fold(FoldAdaptor) { return getInput(); }

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return foldConstant(*this, adaptor.getOperands());
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  // A splat stays one element whatever its shape (a static one).
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    if (dense.isSplat() && !isSymbolic(getType()))
      return dense.reshape(getType());
  return foldConstant(*this, adaptor.getOperands());
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  for (auto [i, p] : llvm::enumerate(getPerm()))
    if ((int64_t)i != p)
      return foldConstant(*this, adaptor.getOperands());
  return getInput();
}

OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  if (getInputs().size() == 1)
    return getInputs()[0];
  return foldConstant(*this, adaptor.getOperands());
}

OpFoldResult ExpandOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return foldConstant(*this, adaptor.getOperands());
}

// Constant folding only.
#define SHARDC_CONSTANT_FOLDER(Op)                                             \
  OpFoldResult Op::fold(FoldAdaptor adaptor) {                                 \
    return foldConstant(*this, adaptor.getOperands());                         \
  }
SHARDC_CONSTANT_FOLDER(AddOp)
SHARDC_CONSTANT_FOLDER(SubOp)
SHARDC_CONSTANT_FOLDER(MulOp)
SHARDC_CONSTANT_FOLDER(DivOp)
SHARDC_CONSTANT_FOLDER(PowOp)
SHARDC_CONSTANT_FOLDER(MaxOp)
SHARDC_CONSTANT_FOLDER(MinOp)
SHARDC_CONSTANT_FOLDER(SqrtOp)
SHARDC_CONSTANT_FOLDER(CosOp)
SHARDC_CONSTANT_FOLDER(FloorOp)
SHARDC_CONSTANT_FOLDER(CeilOp)
SHARDC_CONSTANT_FOLDER(RoundOp)
SHARDC_CONSTANT_FOLDER(SinOp)
SHARDC_CONSTANT_FOLDER(NegOp)
SHARDC_CONSTANT_FOLDER(AbsOp)
SHARDC_CONSTANT_FOLDER(EqualOp)
SHARDC_CONSTANT_FOLDER(LessOp)
SHARDC_CONSTANT_FOLDER(GreaterOp)
SHARDC_CONSTANT_FOLDER(AndOp)
SHARDC_CONSTANT_FOLDER(OrOp)
SHARDC_CONSTANT_FOLDER(NotOp)
SHARDC_CONSTANT_FOLDER(WhereOp)
SHARDC_CONSTANT_FOLDER(SliceOp)
SHARDC_CONSTANT_FOLDER(GatherOp)
SHARDC_CONSTANT_FOLDER(TriluOp)
#undef SHARDC_CONSTANT_FOLDER

namespace {

/// reshape(reshape(x)) -> reshape(x)
struct CollapseReshapes : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<ReshapeOp>();
    if (!inner)
      return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(
        op, ValueRange{inner.getInput()},
        shapeAttrs(op.getContext(), "shape", dimsOf(op.getType())));
    return success();
  }
};

/// transpose(transpose(x, p1), p2) -> transpose(x, p1[p2])
struct ComposeTransposes : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<TransposeOp>();
    if (!inner)
      return failure();
    SmallVector<int64_t> perm;
    for (int64_t p : op.getPerm())
      perm.push_back(inner.getPerm()[p]);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, inner.getInput(), perm);
    return success();
  }
};

/// Squeeze, Unsqueeze and Flatten only relabel dims: rewrite to Reshape.
template <typename OpTy>
struct ToReshape : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<ReshapeOp>(
        op, ValueRange{op.getInput()},
        shapeAttrs(op.getContext(), "shape", dimsOf(op.getType())));
    return success();
  }
};

} // namespace

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<CollapseReshapes>(context);
}

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ComposeTransposes>(context);
}

void SqueezeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ToReshape<SqueezeOp>>(context);
}

void UnsqueezeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ToReshape<UnsqueezeOp>>(context);
}

void FlattenOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ToReshape<FlattenOp>>(context);
}

} // namespace shardc::graph
