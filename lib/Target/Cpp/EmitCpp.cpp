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

FailureOr<std::string> CppEmitter::desc(Operation *op, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  int dtype = onnxDType(type.getElementType());
  if (type.getRank() > format::kMaxRank || dtype < 0) {
    op->emitError("the runtime cannot describe ") << type;
    return failure();
  }
  std::string body = "{" + std::to_string(dtype) + ", " +
                     std::to_string(type.getRank()) + ", {";
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

std::string CppEmitter::i64Array(ArrayRef<int64_t> values) {
  std::string name = "a" + std::to_string(numArrays++);
  decls += "static const int64_t " + name + "[] = {";
  for (auto [i, v] : llvm::enumerate(values))
    decls += (i ? ", " : "") + std::to_string(v) + "LL";
  if (values.empty())
    decls += "0";
  decls += "};\n";
  return name;
}

LogicalResult CppEmitter::emitKernel(Operation *op, ValueRange inputs,
                                     ValueRange outputs,
                                     ArrayRef<int64_t> shape, ArrayAttr layouts,
                                     ArrayRef<int64_t> reduceDims,
                                     StringRef kind, Block &body) {
  LoopNest nest = collapseLoops(shape, layouts, reduceDims, body);
  SmallVector<Loop> &loops = nest.loops;
  // A split program passes each operand's base offset in its pointer, so
  // that kernels differing only there share one function.
  SmallVector<int64_t> offsets(nest.offsets);
  if (split)
    std::fill(offsets.begin(), offsets.end(), 0);
  bool empty = nest.empty;
  unsigned numParallel = nest.numParallel;
  int64_t total = nest.parallelSize * nest.reduceSize;

  std::string name = "k" + std::to_string(artifacts.numKernels++);
  std::string comment, src;
  {
    llvm::raw_string_ostream cs(comment);
    cs << "// " << op->getName() << " "
       << (kind.empty() ? "" : kind.str() + " ") << "over [";
    llvm::interleaveComma(shape, cs);
    cs << "]\n";
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
       << loops[l].size << "; ++i" << l << ") {\n";
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
         << loadExpr(t, "in" + std::to_string(i) + "[" +
                            indexExpr(offsets[i], loops, i) + "]")
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
        pragma = inner ? "omp parallel for simd" : "omp parallel for";
      else if (inner)
        pragma = "omp simd";
      openLoop(l, pragma);
    }
    if (failed(emitBody()))
      return failure();
    for (auto [i, v] : llvm::enumerate(outputs)) {
      unsigned o = inputs.size() + i;
      Type t = cast<MemRefType>(v.getType()).getElementType();
      os << indent << "out" << i << "[" << indexExpr(offsets[o], loops, o)
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
                      ? "omp parallel for" : "");
    os << indent << acc << " acc = " << init << ";\n";
    for (unsigned l = numParallel; l < loops.size(); ++l)
      openLoop(l, l + 1 == loops.size() && (kind == "sum" || kind == "mean")
                      ? "omp simd reduction(+:acc)" : "");
    if (failed(emitBody()))
      return failure();
    std::string v = yielded(0);
    if (kind == "sum" || kind == "mean")
      os << indent << "acc += " << v << ";\n";
    else
      os << indent << "acc = " << reduceCombine(kind, elem, "acc", v) << ";\n";
    for (unsigned l = numParallel; l < loops.size(); ++l) {
      indent.resize(indent.size() - 2);
      os << indent << "}\n";
    }
    std::string result = kind == "mean"
                             ? "acc / (" + acc + ")" + std::to_string(count)
                             : std::string("acc");
    os << indent << "out0[" << indexExpr(offsets[inputs.size()], loops,
                                         inputs.size())
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
  if (!split) {
    decls += comment + "static void " + name + src;
    run += "  " + name + "(" + llvm::join(callArgs, ", ") + ");\n";
    return success();
  }
  for (auto [i, arg] : llvm::enumerate(callArgs))
    if (nest.offsets[i] != 0)
      arg = "(" + arg + " + " + std::to_string(nest.offsets[i]) + ")";
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

static std::string cString(StringRef s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

LogicalResult CppEmitter::emitCall(kern::CallOp op) {
  SmallVector<Value> operands(op.getInputs());
  operands.append(op.getOutputs().begin(), op.getOutputs().end());
  std::string pre;
  SmallVector<std::string> args;
  for (Attribute a : op.getArgs()) {
    if (auto s = dyn_cast<StringAttr>(a)) {
      StringRef v = s.getValue();
      if (v == "%null") {
        args.push_back("0");
      } else if (v == "%descs" || v == "%ptrs") {
        bool descs = v == "%descs";
        std::string list;
        for (auto [i, in] : llvm::enumerate(op.getInputs())) {
          if (descs) {
            FailureOr<std::string> d = desc(op, in);
            if (failed(d))
              return failure();
            list += (i ? ", " : "") + *d;
          } else {
            list += (i ? ", " : "") + std::string("(const void *)") + ptr(in);
          }
        }
        std::string name = descs ? "dl" : "pl";
        pre += std::string("    ") + (descs ? "const sc_desc *const " : "const void *const ") +
               name + "[] = {" + list + "};\n";
        args.push_back(name);
      } else if (v.starts_with("%d") || v.starts_with("%p")) {
        unsigned i = 0;
        if (v.drop_front(2).getAsInteger(10, i) || i >= operands.size())
          return op.emitError("bad argument '") << v << "'";
        if (v[1] == 'd') {
          FailureOr<std::string> d = desc(op, operands[i]);
          if (failed(d))
            return failure();
          args.push_back(*d);
        } else {
          args.push_back(ptr(operands[i]));
        }
      } else {
        args.push_back(cString(v));
      }
    } else if (auto i = dyn_cast<IntegerAttr>(a)) {
      args.push_back(std::to_string(i.getInt()) +
                     (i.getType().isInteger(64) ? "LL" : ""));
    } else if (auto f = dyn_cast<FloatAttr>(a)) {
      args.push_back(floatLiteral(f.getValueAsDouble(), f.getType()));
    } else if (auto arr = dyn_cast<DenseI64ArrayAttr>(a)) {
      args.push_back(i64Array(arr.asArrayRef()));
    } else if (auto arr = dyn_cast<DenseF32ArrayAttr>(a)) {
      std::string name = "a" + std::to_string(numArrays++);
      decls += "static const float " + name + "[] = {";
      for (auto [k, x] : llvm::enumerate(arr.asArrayRef()))
        decls += (k ? ", " : "") + floatLiteral(x, Float32Type::get(op.getContext()));
      decls += std::string(arr.empty() ? "0" : "") + "};\n";
      args.push_back(name);
    } else {
      return op.emitError("cannot pass argument ") << a;
    }
  }
  ++artifacts.numLibraryCalls;
  std::string call = op.getCallee().str() + "(" + llvm::join(args, ", ") + ");\n";
  if (pre.empty())
    run += "  " + call;
  else
    run += "  {\n" + pre + "    " + call + "  }\n";
  return success();
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

/// The convolution's arguments after its operands: strides, dilations,
/// pads, group, transposed.
std::string CppEmitter::convExtra(kern::ConvOp op) {
  return i64Array(op.getStrides()) + ", " + i64Array(op.getDilations()) +
         ", " + i64Array(op.getPads()) + ", " +
         std::to_string(op.getGroup()) + "LL, " +
         std::to_string(op.getTransposed());
}

/// `sc_dnnl_matmul_create(&dA, &dB, &dBias|0, &dResidual|0, &dY, trans_a,
/// trans_b, alpha, beta, epilogue)`, `sc_dnnl_matmul_run(h, a, b, bias|0,
/// residual|0, y)`.
LogicalResult CppEmitter::emitMatmul(kern::MatmulOp op) {
  return emitLibraryCall(op, "sc_dnnl_matmul",
                         {op.getA(), op.getB(), op.getBias(),
                          op.getResidual(), op.getY()},
                         matmulExtra(op), /*cuda=*/false);
}

/// `sc_dnnl_conv_create(&dX, &dW, &dBias|0, &dResidual|0, &dY, strides,
/// dilations, pads, group, transposed, epilogue, channels_last)` (bit 0: x,
/// bit 1: y and residual; their descriptors then give the physical dims
/// [N, spatial..., C]), `sc_dnnl_conv_run(h, x, w, bias|0, residual|0, y)`.
LogicalResult CppEmitter::emitConv(kern::ConvOp op) {
  int channelsLast = (op.getXChannelsLast() ? 1 : 0) |
                     (op.getYChannelsLast() ? 2 : 0);
  return emitLibraryCall(op, "sc_dnnl_conv",
                         {op.getX(), op.getW(), op.getBias(),
                          op.getResidual(), op.getY()},
                         convExtra(op) + ", " +
                             epilogueCode(op.getEpilogue()) + ", " +
                             std::to_string(channelsLast),
                         /*cuda=*/false);
}

/// Appends the bytes of a weight to the section at its planned offset.
static LogicalResult appendWeight(kern::WeightOp op, std::vector<char> &section) {
  auto type = op.getBuffer().getType();
  int64_t bytes = kern::bufferBytes(type);
  uint64_t offset = op.getOffset().value_or(0);
  if (section.size() < offset + bytes)
    section.resize(offset + bytes, 0);
  char *dst = section.data() + offset;
  Attribute value = op.getValue();
  if (auto res = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob || static_cast<int64_t>(blob->getData().size()) != bytes)
      return op.emitError("weight blob '")
             << res.getRawHandle().getKey() << "' is missing or has the wrong size";
    memcpy(dst, blob->getData().data(), bytes);
    return success();
  }
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense)
    return op.emitError("cannot serialize ") << value;
  if (type.getElementType().isInteger(1)) {
    int64_t i = 0;
    for (bool b : dense.getValues<bool>())
      dst[i++] = b ? 1 : 0;
    return success();
  }
  ArrayRef<char> raw = dense.getRawData();
  int64_t elemBytes = kern::elementBytes(type.getElementType());
  if (dense.isSplat()) {
    for (int64_t i = 0; i < type.getNumElements(); ++i)
      memcpy(dst + i * elemBytes, raw.data(), elemBytes);
    return success();
  }
  if (static_cast<int64_t>(raw.size()) != bytes)
    return op.emitError("weight data has ") << raw.size() << " bytes, expected " << bytes;
  memcpy(dst, raw.data(), bytes);
  return success();
}

LogicalResult CppEmitter::emit(raw_ostream &out) {
  // The weights section first: the plan records its size and checksum.
  std::vector<char> &section = artifacts.weights;
  section.clear();
  if (auto bytes = func->getAttrOfType<IntegerAttr>("kern.weights_bytes"))
    section.resize(bytes.getInt(), 0);
  WalkResult walk = func.walk([&](kern::WeightOp op) {
    return failed(appendWeight(op, section)) ? WalkResult::interrupt()
                                             : WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  section.resize(format::alignUp(section.size()), 0);

  if (options.cuda)
    artifacts.cudaSource = cuda::programPrologue();
  // Large programs are split into parts (see CppEmitter.h).
  unsigned cost = 0;
  for (Operation &op : func.getBody().front())
    cost += statementCost(&op);
  split = cost > kSplitCost;
  unsigned partCost = 0;
  for (Operation &op : func.getBody().front()) {
    if (split && partCost >= kPartCost) {
      flushPart();
      partCost = 0;
    }
    partCost += statementCost(&op);
    if (options.cuda && failed(emitCudaOp(&op)))
      return failure();
    if (!options.cpu)
      continue;
    LogicalResult r = success();
    if (auto map = dyn_cast<kern::MapOp>(op))
      r = emitKernel(map, map.getInputs(), map.getOutputs(), map.getShape(),
                     map.getLayouts(), {}, "", map.getBody().front());
    else if (auto red = dyn_cast<kern::ReduceOp>(op))
      r = emitKernel(red, red.getInputs(), red.getOutputs(), red.getShape(),
                     red.getLayouts(), red.getReduceDims(), red.getKind(),
                     red.getBody().front());
    else if (auto call = dyn_cast<kern::CallOp>(op))
      r = emitCall(call);
    else if (auto mm = dyn_cast<kern::MatmulOp>(op))
      r = emitMatmul(mm);
    else if (auto conv = dyn_cast<kern::ConvOp>(op))
      r = emitConv(conv);
    else if (!isa<kern::AllocOp, kern::WeightOp, kern::ViewOp, func::ReturnOp>(op))
      r = op.emitError("the C++ target cannot emit '") << op.getName() << "'";
    if (failed(r))
      return failure();
  }

  if (split) {
    flushPart();
    // The entry points call the parts in order.
    for (unsigned p = 0; p < numParts; ++p) {
      std::string n = std::to_string(p);
      if (options.cpu) {
        decls += "int shardc_gen_init" + n + "(void **h);\n"
                 "void shardc_gen_run" + n + "(void **h, char *arena, "
                 "const char *weights, void *const *in, void *const *out);\n";
        init += "  if (shardc_gen_init" + n + "(h)) return 1;\n";
        run += "  shardc_gen_run" + n + "(h, arena, weights, in, out);\n";
      }
      if (options.cuda) {
        decls += "int shardc_gen_cuda_init" + n + "(sc_cuda *cu, void **h);\n"
                 "void shardc_gen_cuda_run" + n + "(sc_cuda *cu, void **h, "
                 "char *arena, const char *weights, void *const *in, "
                 "void *const *out);\n";
        cudaInit += "  if (shardc_gen_cuda_init" + n + "(cu, h)) return 1;\n";
        cudaRun += "  shardc_gen_cuda_run" + n +
                   "(cu, h, arena, weights, in, out);\n";
      }
    }
    decls = parts + std::string(kUnitMarker) + "\n" + decls;
    parts.clear();
  }

  // The plan: signature, sizes, the weights checksum, the model hash.
  format::Plan plan;
  format::RankPlan rank;
  auto arena = func->getAttrOfType<IntegerAttr>("kern.arena_bytes");
  rank.arenaBytes = arena ? arena.getInt() : 0;
  artifacts.arenaBytes = rank.arenaBytes;
  rank.weightsBytes = section.size();
  rank.weightsChecksum = format::checksum64(section.data(), section.size());
  rank.numHandles = std::max(numHandles, numCudaHandles);
  rank.numKernels = options.cpu
                        ? artifacts.numKernels + artifacts.numLibraryCalls
                        : artifacts.numCudaKernels + numCudaHandles;
  std::string signature;
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    auto type = cast<MemRefType>(func.getArgument(i).getType());
    format::TensorSig sig;
    bool isInput = static_cast<bool>(func.getArgAttr(i, "kern.input"));
    auto name = func.getArgAttrOfType<StringAttr>(
        i, isInput ? "kern.input" : "kern.output");
    sig.name = name ? name.str() : "arg" + std::to_string(i);
    sig.dtype = onnxDType(type.getElementType());
    sig.dims.assign(type.getShape().begin(), type.getShape().end());
    signature += sig.name + ":" + std::to_string(sig.dtype) + ";";
    (isInput ? rank.inputs : rank.outputs).push_back(std::move(sig));
  }
  std::string identity = signature + std::to_string(rank.weightsChecksum) +
                         ":" + std::to_string(rank.weightsBytes);
  func.walk([&](kern::WeightOp op) {
    identity += ";" + std::to_string(op.getOffset().value_or(0));
  });
  artifacts.modelHash = format::checksum64(identity.data(), identity.size());
  plan.modelHash = artifacts.modelHash;
  plan.target = (options.cpu ? format::kTargetCpu : 0) |
                (options.cuda ? format::kTargetCuda : 0);
  plan.ranks.push_back(rank);
  std::vector<uint8_t> planBytes = format::encodePlan(plan);

  out << "// Generated by shardc. Target: "
      << (options.cuda && options.cpu ? "cuda with a cpu fallback"
          : options.cuda              ? "cuda"
                                      : "cpu")
      << ", rank 0 of 1.\n"
      << (options.cuda ? "#include \"shardc/cuda.h\"\n\n"
                       : "#include \"shardc/cpu.h\"\n\n")
      << decls << "\n";
  if (options.cpu)
    out << "static int rank0_init(void **h) {\n"
        << init << "  (void)h;\n  return 0;\n}\n\n"
        << "static void rank0_run(void **h, char *arena, const char *weights, "
           "void *const *in, void *const *out) {\n"
        << "  (void)h; (void)arena; (void)weights; (void)in; (void)out;\n"
        << run << "}\n\n"
        << "static const sc_rank_entry ranks[] = {{rank0_init, rank0_run}};\n";
  if (options.cuda)
    writeCudaProgram(out);
  out << "static const unsigned char plan_data[] = {";
  for (size_t i = 0; i < planBytes.size(); ++i)
    out << (i % 24 ? "" : "\n  ") << static_cast<unsigned>(planBytes[i]) << ",";
  out << "\n};\n"
      << "extern \"C\" const shardc_program shardc_model_program;\n"
      << "const shardc_program shardc_model_program = {SC_ABI_VERSION, 1, "
         "plan_data, sizeof(plan_data), "
      << (options.cpu ? "ranks" : "0") << ", "
      << (options.cuda ? "cuda_ranks, " + std::to_string(options.cudaImages.size()) +
                             ", cuda_images, " +
                             std::to_string(cudaKernels.size()) +
                             ", cuda_kernels"
                       : std::string("0, 0, 0, 0, 0"))
      << "};\n";
  return success();
}

unsigned CppEmitter::statementCost(Operation *op) {
  if (isa<kern::MapOp, kern::ReduceOp>(op))
    return 1 + op->getRegion(0).front().getOperations().size();
  if (isa<kern::CallOp, kern::MatmulOp, kern::ConvOp>(op))
    return 1;
  return 0;
}

void CppEmitter::flushPart() {
  std::string n = std::to_string(numParts++);
  parts += std::string(kUnitMarker) + "\n" + decls;
  if (options.cpu)
    parts += "int shardc_gen_init" + n + "(void **h) {\n" + init +
             "  (void)h;\n  return 0;\n}\n"
             "void shardc_gen_run" + n + "(void **h, char *arena, "
             "const char *weights, void *const *in, void *const *out) {\n"
             "  (void)h; (void)arena; (void)weights; (void)in; (void)out;\n" +
             run + "}\n";
  if (options.cuda)
    parts += "int shardc_gen_cuda_init" + n + "(sc_cuda *cu, void **h) {\n" +
             cudaInit + "  (void)cu; (void)h;\n  return 0;\n}\n"
             "void shardc_gen_cuda_run" + n + "(sc_cuda *cu, void **h, "
             "char *arena, const char *weights, void *const *in, "
             "void *const *out) {\n"
             "  (void)h; (void)arena; (void)weights; (void)in; (void)out;\n" +
             cudaRun + "}\n";
  decls.clear();
  init.clear();
  run.clear();
  cudaInit.clear();
  cudaRun.clear();
  // Each part declares what it uses.
  descNames.clear();
  declaredKernels.clear();
}

LogicalResult shardc::emitCpp(ModuleOp module, raw_ostream &os,
                              CppArtifacts &artifacts,
                              const ProgramOptions &options) {
  auto func = module.lookupSymbol<func::FuncOp>("main");
  if (!func)
    return module.emitError("no func.func @main to emit");
  CppEmitter emitter(func, artifacts, options);
  return emitter.emit(os);
}
