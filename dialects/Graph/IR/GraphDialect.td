//===- GraphDialect.td - the graph dialect ---------------------*- tablegen -*-===//
//
// ONNX-semantics tensor operations with static shapes. This is the first IR of
// the pipeline: the ONNX importer produces it, graph-level optimizations rewrite
// it and the planner annotates it.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_GRAPH_DIALECT
#define SHARDC_GRAPH_DIALECT

include "mlir/IR/OpBase.td"

def Graph_Dialect : Dialect {
  let name = "graph";
  let cppNamespace = "::shardc::graph";
  let summary = "ONNX-semantics tensor operations with static or bounded shapes";
  let description = [{
    Value-semantic operations on statically shaped tensors. Each op follows the
    ONNX operator of the same name, in a canonical form: every parameter that
    determines a shape (axes, permutations, split sizes, slice bounds, pads,
    target shapes) is an attribute, normalized to non-negative axes. The
    importer turns the many opset-dependent spellings of ONNX (attribute in one
    opset, input in the next) into this one form. Result types are inferred from
    operands and attributes (InferTypeOpInterface), so the verifier checks every
    shape and dtype relation. A dim the model leaves dynamic keeps its bound
    in the type and a symbolic mirror in the type's encoding (the function's
    `graph.dims` names the symbols; docs/dynamic-shapes.md).
  }];
  let hasConstantMaterializer = 1;
  // graph.dims (a function's symbols) and graph.sym (mirrors of static shape
  // attributes): SymbolicShapes.cpp.
  let hasOperationAttrVerify = 1;
  let usePropertiesForAttributes = 0;
}

#endif // SHARDC_GRAPH_DIALECT
