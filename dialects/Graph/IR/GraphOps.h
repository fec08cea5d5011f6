//===- GraphOps.h - graph dialect ------------------------------*- C++ -*-===//
#ifndef SHARDC_DIALECTS_GRAPH_IR_GRAPHOPS_H
#define SHARDC_DIALECTS_GRAPH_IR_GRAPHOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/Graph/IR/ShapeInference.h"
#include "dialects/Graph/IR/SymbolicShapes.h"

#include "dialects/Graph/IR/GraphDialect.h.inc"

#define GET_OP_CLASSES
#include "dialects/Graph/IR/GraphOps.h.inc"

#endif // SHARDC_DIALECTS_GRAPH_IR_GRAPHOPS_H
