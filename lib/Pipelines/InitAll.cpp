//===- InitAll.cpp - every dialect and pass shardc uses -------------------===//

#include "shardc/InitAll.h"

#include "dialects/Dist/IR/DistOps.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Graph/IR/ShardingRule.h"
#include "dialects/Graph/Transforms/Passes.h"
#include "dialects/Kern/IR/KernOps.h"
#include "dialects/Kern/Transforms/Passes.h"
#include "passes/Fusion/Passes.h"
#include "passes/Precision/Passes.h"
#include "passes/Pruning/Passes.h"
#include "passes/Sharding/Passes.h"
#include "shardc/Conversion/Passes.h"
#include "shardc/Pipelines/Pipelines.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/Passes.h"

void shardc::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<graph::GraphDialect, dist::DistDialect, kern::KernDialect,
                  mlir::func::FuncDialect, mlir::arith::ArithDialect,
                  mlir::math::MathDialect>();
  graph::registerShardingRules(registry);
}

void shardc::registerAllPasses() {
  mlir::registerTransformsPasses();
  registerConversionPasses();
  registerGraphPasses();
  registerFusionPasses();
  registerPrecisionPasses();
  registerPruningPasses();
  registerShardingPasses();
  registerKernPasses();
  registerPipelines();
}
