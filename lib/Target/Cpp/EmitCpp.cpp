//===- EmitCpp.cpp - kern to C++ with OpenMP and library calls -------------===//
//
// One translation unit per model: a static function per generated kernel
// (loops over the collapsed iteration space, the outer one parallel with
// OpenMP when the kernel is large, the inner one `omp simd`), an init()
// that creates the oneDNN primitives, a run() that calls every kernel in
// program order on arena / weights / I/O pointers, and the plan.
//
//===----------------------------------------------------------------------===//

#include "lib/Target/Cpp/CppEmitter.h"
#include "lib/Target/Common/Loops.h"
#include "lib/Target/Common/ScalarEmitter.h"
#include "shardc/Target/Cuda.h"

#include "dialects/Kern/IR/KernOps.h"
#include "shardc/format.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/BuiltinDialect.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Format.h"

#include <map>

static_assert(shardc::kern::kBufferAlignment == shardc::format::kAlign,
              "the kern dialect's buffer alignment is the file format's");
static_assert(shardc::kern::kSharedWeightsAlignment ==
                  static_cast<int64_t>(shardc::format::kShareAlign),
              "kern-plan-weights pads a shared head as the file format does");

using namespace mlir;
using namespace shardc;
using namespace shardc::target;

std::string CppEmitter::ptr(Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  std::string t = storageCType(type.getElementType());
  if (auto arg = dyn_cast<BlockArgument>(buffer)) {
    if (!numInputs) {
      numInputs = 0;
      for (unsigned i = 0; i < func.getNumArguments(); ++i)
        if (func.getArgAttr(i, "kern.input"))
          ++*numInputs;
    }
    unsigned i = arg.getArgNumber();
    if (i < *numInputs)
      return "((const " + t + " *)in[" + std::to_string(i) + "])";
    return "((" + t + " *)out[" + std::to_string(i - *numInputs) + "])";
  }
  Operation *def = buffer.getDefiningOp();
  if (auto alloc = dyn_cast<kern::AllocOp>(def))
    return "((" + t + " *)(arena + " +
           std::to_string(alloc.getOffset().value_or(0)) + "))";
  if (auto weight = dyn_cast<kern::WeightOp>(def))
    return "((const " + t + " *)(weights + " +
           std::to_string(weight.getOffset().value_or(0)) + "))";
  if (auto view = dyn_cast<kern::ViewOp>(def))
    return ptr(view.getSource());
  return "0";
}

FailureOr<std::string> CppEmitter::desc(Operation *op, Value buffer,
                                        bool atBound) {
  auto type = cast<MemRefType>(buffer.getType());
  int dtype = onnxDType(type.getElementType());
  if (type.getRank() > format::kMaxRank || dtype < 0) {
    op->emitError("the runtime cannot describe ") << type;
    return failure();
  }
  std::string body = "{" + std::to_string(dtype) + ", " +
                     std::to_string(type.getRank()) + ", {";
  if (!atBound && kern::isSymbolic(buffer)) {
    for (auto [i, d] : llvm::enumerate(kern::symShape(buffer)))
      body += (i ? ", " : "") + d.str();
    body += "}}";
    auto [it, inserted] =
        localDescs.try_emplace(body, "d" + std::to_string(numDescs));
    if (inserted) {
      ++numDescs;
      (localDescSink ? *localDescSink : run) +=
          "  const sc_desc " + it->second + " = " + body + ";\n";
    }
    return "&" + it->second;
  }
  for (auto [i, d] : llvm::enumerate(type.getShape()))
    body += (i ? ", " : "") + std::to_string(d);
  body += "}}";
  auto it = descNames.find(body);
  if (it != descNames.end())
    return "&" + it->second;
  std::string name = "d" + std::to_string(numDescs++);
  descNames[body] = name;
  decls += "static const sc_desc " + name + " = " + body + ";\n";
  return "&" + name;
}

std::string CppEmitter::constArray(StringRef elementType,
                                   const std::string &items) {
  std::string key = elementType.str() + "{" + items + "}";
  auto [it, inserted] =
      arrayNames.try_emplace(key, "a" + std::to_string(numArrays));
  if (inserted) {
    ++numArrays;
    decls += "static const " + elementType.str() + " " + it->second +
             "[] = {" + (items.empty() ? "0" : items) + "};\n";
  }
  return it->second;
}

std::string CppEmitter::i64Array(ArrayRef<int64_t> values) {
  std::string items;
  for (auto [i, v] : llvm::enumerate(values))
    items += (i ? ", " : "") + std::to_string(v) + "LL";
  return constArray("int64_t", items);
}

LogicalResult CppEmitter::emitKernel(Operation *op, ValueRange inputs,
                                     ValueRange outputs,
                                     ArrayRef<int64_t> shape, ArrayAttr layouts,
                                     ArrayRef<int64_t> reduceDims,
                                     StringRef kind, Block &body) {
  // Dynamic dims: the kernel takes the symbols it uses as parameters and
  // sizes its loops, strides and offsets with them (kern.sym's mirrors).
  SmallVector<sym::Expr> symShape;
  SmallVector<SmallVector<sym::Expr>> symLayouts;
  if (op->hasAttr(kern::kSymAttr)) {
    symShape = kern::symArray(op, "shape");
    symLayouts = kern::symLayouts(op);
  }
  LoopNest nest =
      collapseLoops(shape, layouts, reduceDims, body,
                    /*reduceInAnyOrder=*/kind == "max" || kind == "min",
                    symShape, symLayouts);
  SmallVector<Loop> &loops = nest.loops;
  // A split program passes each operand's base offset in its pointer, so
  // that kernels differing only there share one function.
  SmallVector<int64_t> offsets(nest.offsets);
  SmallVector<sym::Expr> symOffsets(nest.symOffsets);
  if (split) {
    std::fill(offsets.begin(), offsets.end(), 0);
    std::fill(symOffsets.begin(), symOffsets.end(), sym::Expr(0));
  }
  bool empty = nest.empty;
  unsigned numParallel = nest.numParallel;
  int64_t total = nest.parallelSize * nest.reduceSize;
  bool symbolic = nest.symbolic;
  unsigned numSymbols = 0;
  if (symbolic) {
    for (const sym::Expr &e : symOffsets)
      numSymbols = std::max(numSymbols, e.numSymbols());
    for (const Loop &l : loops) {
      numSymbols = std::max(numSymbols, l.symSize.numSymbols());
      for (const sym::Expr &e : l.symStrides)
        numSymbols = std::max(numSymbols, e.numSymbols());
    }
  }
  auto index = [&](unsigned operand) {
    return symbolic ? indexExpr(symOffsets[operand], loops, operand)
                    : indexExpr(offsets[operand], loops, operand);
  };
  // The outer loop runs on the team when the kernel is large: at the
  // bounds, and then (dynamic dims) when this run's size is.
  auto parallelIf = [&]() -> std::string {
    if (!symbolic)
      return "";
    sym::Expr size = nest.symParallelSize * nest.symReduceSize;
    return size.isConstant()
               ? ""
               : " if(" + size.str() +
                     " >= " + std::to_string(kParallelThreshold) + ")";
  };

  std::string name = "k" + std::to_string(artifacts.numKernels++);
  std::string comment, src;
  {
    llvm::raw_string_ostream cs(comment);
    cs << "// " << op->getName() << " "
       << (kind.empty() ? "" : kind.str() + " ") << "over ";
    if (symbolic)
      cs << sym::shapeStr(symShape);
    else {
      cs << "[";
      llvm::interleaveComma(shape, cs);
      cs << "]";
    }
    cs << "\n";
  }
  llvm::raw_string_ostream os(src);
  // The name is a placeholder until the text is known (split programs
  // reuse an identical kernel's function).
  os << "(";
  SmallVector<std::string> args;
  for (auto [i, v] : llvm::enumerate(inputs)) {
    Type t = cast<MemRefType>(v.getType()).getElementType();
    args.push_back("const " + storageCType(t) + " *__restrict in" + std::to_string(i));
  }
  for (auto [i, v] : llvm::enumerate(outputs)) {
    Type t = cast<MemRefType>(v.getType()).getElementType();
    args.push_back(storageCType(t) + " *__restrict out" + std::to_string(i));
  }
  for (unsigned k = 0; k < numSymbols; ++k)
    args.push_back("int64_t s" + std::to_string(k));
  os << llvm::join(args, ", ") << ") {\n";

  auto indexName = [&](int64_t dim) -> std::string {
    for (auto [l, loop] : llvm::enumerate(loops))
      if (loop.dim == dim)
        return "i" + std::to_string(l);
    return "0";
  };
  std::string indent = "  ";
  auto openLoop = [&](unsigned l, StringRef pragma) {
    if (!pragma.empty())
      os << indent << "#pragma " << pragma << "\n";
    os << indent << "for (int64_t i" << l << " = 0; i" << l << " < "
       << (symbolic ? cExpr(loops[l].symSize) : std::to_string(loops[l].size))
       << "; ++i" << l << ") {\n";
    indent += "  ";
  };
  // The loads, the body and (for maps) the stores.
  unsigned counter = 0;
  DenseMap<Value, std::string> names;
  auto emitBody = [&]() -> LogicalResult {
    for (auto [i, v] : llvm::enumerate(inputs)) {
      Type t = cast<MemRefType>(v.getType()).getElementType();
      std::string x = "x" + std::to_string(i);
      os << indent << "const " << scalarCType(body.getArgument(i).getType())
         << " " << x << " = "
         << loadExpr(t, "in" + std::to_string(i) + "[" + index(i) + "]")
         << ";\n";
      names[body.getArgument(i)] = x;
    }
    return emitScalarOps(body, names, os, indent, indexName, counter);
  };
  auto yielded = [&](unsigned i) {
    return names.lookup(body.getTerminator()->getOperand(i));
  };

  if (empty) {
    os << "}\n";
  } else if (kind.empty()) {
    for (unsigned l = 0; l < loops.size(); ++l) {
      bool outer = l == 0, inner = l + 1 == loops.size();
      std::string pragma;
      if (outer && total >= kParallelThreshold && loops[l].size > 1)
        pragma = (inner ? "omp parallel for simd" : "omp parallel for") +
                 parallelIf();
      else if (inner)
        pragma = "omp simd";
      openLoop(l, pragma);
    }
    if (failed(emitBody()))
      return failure();
    for (auto [i, v] : llvm::enumerate(outputs)) {
      unsigned o = inputs.size() + i;
      Type t = cast<MemRefType>(v.getType()).getElementType();
      os << indent << "out" << i << "[" << index(o)
         << "] = " << storeExpr(t, yielded(i)) << ";\n";
    }
  } else {
    Type elem = cast<MemRefType>(outputs[0].getType()).getElementType();
    ReduceForm form = reduceForm(kind, elem);
    const std::string &acc = form.accType;
    const std::string &init = form.init;
    int64_t count = 1;
    for (const Loop &l : loops)
      if (l.reduce)
        count *= l.size;
    for (unsigned l = 0; l < numParallel; ++l)
      openLoop(l, l == 0 && total >= kParallelThreshold && loops[l].size > 1
                      ? "omp parallel for" + parallelIf()
                      : "");
    os << indent << acc << " acc = " << init << ";\n";
    // A float max or min vectorizes as the plain comparison with NaNs
    // counted apart (`nan`), and any NaN makes the result NaN afterwards:
    // what the NaN-aware combine computes element by element.
    bool floatMinMax = (kind == "max" || kind == "min") &&
                       isa<FloatType>(kern::bodyType(elem)) && acc == "float";
    if (floatMinMax)
      os << indent << "int nan = 0;\n";
    // A float max or min of a whole large tensor (one collapsed loop, no
    // parallel loop around it: a per-tensor quantization range) runs on
    // the team, each thread over a block: the result does not depend on
    // the order. Sums stay on one thread, so that their rounding does not
    // depend on the thread count.
    bool teamMinMax = floatMinMax && numParallel == 0 && loops.size() == 1 &&
                      count >= kParallelThreshold;
    for (unsigned l = numParallel; l < loops.size(); ++l) {
      std::string pragma;
      if (l + 1 == loops.size() && (kind == "sum" || kind == "mean"))
        pragma = "omp simd reduction(+:acc)";
      else if (l + 1 == loops.size() && floatMinMax)
        pragma =
            std::string(teamMinMax ? "omp parallel for simd" : "omp simd") +
            " reduction(" + kind.str() + ":acc) reduction(|:nan)";
      openLoop(l, pragma);
    }
    if (failed(emitBody()))
      return failure();
    std::string v = yielded(0);
    if (kind == "sum" || kind == "mean")
      os << indent << "acc += " << v << ";\n";
    else if (floatMinMax)
      os << indent << "nan |= " << v << " != " << v << ";\n"
         << indent << "acc = " << v << (kind == "max" ? " > " : " < ")
         << "acc ? " << v << " : acc;\n";
    else
      os << indent << "acc = " << reduceCombine(kind, elem, "acc", v) << ";\n";
    for (unsigned l = numParallel; l < loops.size(); ++l) {
      indent.resize(indent.size() - 2);
      os << indent << "}\n";
    }
    if (floatMinMax)
      os << indent << "if (nan) acc = NAN;\n";
    std::string countText = std::to_string(count);
    if (symbolic && !nest.symReduceSize.isConstant())
      countText = "(" + nest.symReduceSize.str() + ")";
    std::string result =
        kind == "mean" ? "acc / (" + acc + ")" + countText : std::string("acc");
    os << indent << "out0[" << index(inputs.size())
       << "] = " << storeExpr(elem, result) << ";\n";
    loops.resize(numParallel);
  }
  if (!empty) {
    for (unsigned l = 0; l < loops.size(); ++l) {
      indent.resize(indent.size() - 2);
      os << indent << "}\n";
    }
    os << "}\n";
  }
  os.flush();
  SmallVector<std::string> callArgs;
  for (Value v : inputs)
    callArgs.push_back(ptr(v));
  for (Value v : outputs)
    callArgs.push_back(ptr(v));
  for (unsigned k = 0; k < numSymbols; ++k)
    callArgs.push_back("s" + std::to_string(k));
  if (!split) {
    // The host compiler's time grows with the kernels it compiles: GPT-2's
    // 12 layers in fp16 made 208 kernels of 13 different texts.
    auto [it, inserted] = kernelsByText.try_emplace(src, name);
    if (inserted)
      decls += comment + "static void " + name + src;
    run += "  " + it->second + "(" + llvm::join(callArgs, ", ") + ");\n";
    return success();
  }
  for (auto [i, off] : llvm::enumerate(nest.symOffsets))
    if (off != sym::Expr(0))
      callArgs[i] = "(" + callArgs[i] + " + " + off.str() + ")";
  run += "  " + splitKernel(comment, src) + "(" + llvm::join(callArgs, ", ") +
         ");\n";
  return success();
}

std::string CppEmitter::splitKernel(const std::string &comment,
                                    const std::string &src) {
  // Out of line: a call is much cheaper to compile than an inlined loop.
  auto [it, inserted] = splitKernels.try_emplace(
      src, "shardc_gen_k" + std::to_string(splitKernels.size()));
  const std::string &name = it->second;
  if (inserted)
    decls += comment + "__attribute__((noinline)) void " + name + src;
  else if (declaredKernels.insert(name).second)
    decls += "void " + name + src.substr(0, src.find(") {\n") + 1) + ";\n";
  declaredKernels.insert(name);
  return name;
}

/// A library call: `h = PREFIX_create([cu, ]dOperand|0..., extra)` once in
/// init, `PREFIX_run([cu, ]h, operand|0...)` in run, into the CPU entry
/// points (oneDNN) or the CUDA ones (cuBLASLt, cuDNN). Null operands (an
/// absent bias or residual) pass 0 for both descriptor and pointer.
LogicalResult CppEmitter::emitLibraryCall(Operation *op, StringRef prefix,
                                          ArrayRef<Value> operands,
                                          const std::string &extra,
                                          bool cuda) {
  // Descriptors are named in the order they are first needed: the two
  // inputs and the output, then the optional operands in between.
  size_t n = operands.size();
  SmallVector<size_t> order{0, 1, n - 1};
  for (size_t i = 2; i + 1 < n; ++i)
    order.push_back(i);
  SmallVector<std::string> d(n, "0");
  for (size_t i : order) {
    if (!operands[i])
      continue;
    FailureOr<std::string> dv = desc(op, operands[i]);
    if (failed(dv))
      return failure();
    d[i] = *dv;
  }
  std::string descs = llvm::join(d, ", "), ptrs;
  for (Value v : operands)
    ptrs += ", " + (v ? ptr(v) : std::string("0"));
  std::string cu = cuda ? "cu, " : "";
  std::string h =
      "h[" + std::to_string(cuda ? numCudaHandles++ : numHandles++) + "]";
  (cuda ? cudaInit : init) += "  " + h + " = " + prefix.str() + "_create(" +
                              cu + descs + ", " + extra + ");\n  if (!" + h +
                              ") return 1;\n";
  (cuda ? cudaRun : run) +=
      "  " + prefix.str() + "_run(" + cu + h + ptrs + ");\n";
  // A program with both codes counts each call once.
  if (!cuda || !options.cpu)
    ++artifacts.numLibraryCalls;
  return success();
}

std::string CppEmitter::epilogueCode(StringRef epilogue) {
  return llvm::StringSwitch<std::string>(epilogue)
      .Case("relu", "SC_EPILOGUE_RELU")
      .Case("gelu", "SC_EPILOGUE_GELU")
      .Case("gelu_tanh", "SC_EPILOGUE_GELU_TANH")
      .Case("hard_swish", "SC_EPILOGUE_HARDSWISH")
      .Default("SC_EPILOGUE_NONE");
}

/// The matmul's arguments after its operands: trans_a, trans_b, alpha, beta,
/// epilogue.
std::string CppEmitter::matmulExtra(kern::MatmulOp op) {
  Type f32 = Float32Type::get(op.getContext());
  return std::to_string(op.getTransA()) + ", " +
         std::to_string(op.getTransB()) + ", " +
         floatLiteral(op.getAlpha().convertToDouble(), f32) + ", " +
         floatLiteral(op.getBeta().convertToDouble(), f32) + ", " +
         epilogueCode(op.getEpilogue());
}

/// The convolution's window arguments: strides, dilations, pads, group;
/// convExtra adds transposed (all the arguments after its operands).
std::string CppEmitter::convWindow(kern::ConvOp op) {
  return i64Array(op.getStrides()) + ", " + i64Array(op.getDilations()) + ", " +
         i64Array(op.getPads()) + ", " + std::to_string(op.getGroup()) + "LL";
}

std::string CppEmitter::convExtra(kern::ConvOp op) {
  return convWindow(op) + ", " + std::to_string(op.getTransposed());
}

/// `sc_dnnl_matmul_create(&dA, &dB, &dBias|0, &dResidual|0, &dY, trans_a,
/// trans_b, alpha, beta, epilogue)`, `sc_dnnl_matmul_run(h, a, b, bias|0,
/// residual|0, y)`.
LogicalResult CppEmitter::emitMatmul(kern::MatmulOp op) {
  SmallVector<Value> operands{op.getA(), op.getB(), op.getBias(),
                              op.getResidual(), op.getY()};
  if (llvm::none_of(operands, [](Value v) { return v && kern::isSymbolic(v); }))
    return emitLibraryCall(op, "sc_dnnl_matmul", operands, matmulExtra(op),
                           /*cuda=*/false);
  // Dynamic dims: `h = sc_dnnl_matmul_dyn_create(<descriptors at the
  // bounds>, ...)` in init (oneDNN's refusals still surface at load), and
  // `sc_dnnl_matmul_dyn_run(h, <this run's descriptors>, <pointers>)`,
  // which keeps a primitive per shape.
  std::string bound, now, ptrs;
  for (Value v : operands) {
    std::string b = "0", d = "0";
    if (v) {
      FailureOr<std::string> atBound = desc(op, v, /*atBound=*/true);
      FailureOr<std::string> current = desc(op, v);
      if (failed(atBound) || failed(current))
        return failure();
      b = *atBound;
      d = *current;
    }
    bound += b + ", ";
    now += ", " + d;
    ptrs += ", " + (v ? ptr(v) : std::string("0"));
  }
  std::string h = "h[" + std::to_string(numHandles++) + "]";
  init += "  " + h + " = sc_dnnl_matmul_dyn_create(" + bound + matmulExtra(op) +
          ");\n  if (!" + h + ") return 1;\n";
  run += "  sc_dnnl_matmul_dyn_run(" + h + now + ptrs + ");\n";
  ++artifacts.numLibraryCalls;
  return success();
}

/// `sc_dnnl_matmul_int8_create(&dA, &dB, &dAScale, &dBScale, &dBias|0,
/// &dResidual|0, &dY, epilogue)`, `sc_dnnl_matmul_int8_run(h, a, b, a_scale,
/// b_scale, bias|0, residual|0, y)`.
LogicalResult CppEmitter::emitMatmulInt8(kern::MatmulInt8Op op) {
  return emitLibraryCall(op, "sc_dnnl_matmul_int8",
                         {op.getA(), op.getB(), op.getAScale(),
                          op.getBScale(), op.getBias(), op.getResidual(),
                          op.getY()},
                         epilogueCode(op.getEpilogue()), /*cuda=*/false);
}

/// `sc_dnnl_conv_create(&dX, &dW, &dBias|0, &dResidual|0, &dY, strides,
/// dilations, pads, group, transposed, epilogue, channels_last)` (bit 0: x,
/// bit 1: y and residual; their descriptors then give the physical dims
/// [N, spatial..., C]), `sc_dnnl_conv_run(h, x, w, bias|0, residual|0, y)`.
LogicalResult CppEmitter::emitConv(kern::ConvOp op) {
  int channelsLast = (op.getXChannelsLast() ? 1 : 0) |
                     (op.getYChannelsLast() ? 2 : 0);
  // The int8 form: `sc_dnnl_conv_int8_create(&dX, &dW, &dBias|0,
  // &dResidual|0, &dY, strides, dilations, pads, group, epilogue,
  // channels_last, scales, num_scales, x_zero_point)`, run as above.
  if (std::optional<ArrayRef<float>> scales = op.getScales()) {
    Type f32 = Float32Type::get(op.getContext());
    std::string items;
    for (auto [i, v] : llvm::enumerate(*scales))
      items += (i ? ", " : "") + floatLiteral(v, f32);
    // The dynamic form: `sc_dnnl_conv_int8_dynamic_create(... channels_last,
    // scales, num_scales)`, `sc_dnnl_conv_int8_dynamic_run(h, x, w, bias|0,
    // residual|0, y, x_scale, x_zero)`.
    if (op.getXScale())
      return emitLibraryCall(
          op, "sc_dnnl_conv_int8_dynamic",
          {op.getX(), op.getW(), op.getBias(), op.getResidual(), op.getY(),
           op.getXScale(), op.getXZero()},
          convWindow(op) + ", " + epilogueCode(op.getEpilogue()) + ", " +
              std::to_string(channelsLast) + ", " + constArray("float", items) +
              ", " + std::to_string(scales->size()) + "LL",
          /*cuda=*/false);
    return emitLibraryCall(
        op, "sc_dnnl_conv_int8",
        {op.getX(), op.getW(), op.getBias(), op.getResidual(), op.getY()},
        convWindow(op) + ", " + epilogueCode(op.getEpilogue()) + ", " +
            std::to_string(channelsLast) + ", " + constArray("float", items) +
            ", " + std::to_string(scales->size()) + "LL, " +
            std::to_string(static_cast<int64_t>(op.getXZeroPoint())),
        /*cuda=*/false);
  }
  return emitLibraryCall(op, "sc_dnnl_conv",
                         {op.getX(), op.getW(), op.getBias(),
                          op.getResidual(), op.getY()},
                         convExtra(op) + ", " +
                             epilogueCode(op.getEpilogue()) + ", " +
                             std::to_string(channelsLast),
                         /*cuda=*/false);
}

LogicalResult CppEmitter::emitCpuOp(Operation &op) {
  // Dynamic dims reach only the ops that read them (the lowering checked
  // this too).
  if (failed(kern::checkSymbolicGate(&op)))
    return failure();
  if (auto map = dyn_cast<kern::MapOp>(op))
    return emitKernel(map, map.getInputs(), map.getOutputs(), map.getShape(),
                      map.getLayouts(), {}, "", map.getBody().front());
  if (auto red = dyn_cast<kern::ReduceOp>(op))
    return emitKernel(red, red.getInputs(), red.getOutputs(), red.getShape(),
                      red.getLayouts(), red.getReduceDims(), red.getKind(),
                      red.getBody().front());
  if (auto call = dyn_cast<kern::RuntimeCallOpInterface>(op))
    return emitRuntimeCall(call);
  if (auto mm = dyn_cast<kern::MatmulOp>(op))
    return emitMatmul(mm);
  if (auto mm = dyn_cast<kern::MatmulInt8Op>(op))
    return emitMatmulInt8(mm);
  if (auto conv = dyn_cast<kern::ConvOp>(op))
    return emitConv(conv);
  if (kern::isCollective(&op))
    return emitCollective(&op);
  if (isa<kern::AllocOp, kern::WeightOp, kern::ViewOp, func::ReturnOp>(op))
    return success();
  return op.emitError("the C++ target cannot emit '") << op.getName() << "'";
}

unsigned CppEmitter::statementCost(Operation *op) {
  if (isa<kern::MapOp, kern::ReduceOp>(op))
    return 1 + op->getRegion(0).front().getOperations().size();
  if (isa<kern::RuntimeCallOpInterface, kern::MatmulOp, kern::MatmulInt8Op,
          kern::ConvOp>(op) ||
      kern::isCollective(op))
    return 1;
  return 0;
}

