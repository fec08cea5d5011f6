//===- Kernels.cpp - kern.map and kern.reduce as CUDA kernels --------------===//
//
// The loop nest is the CPU target's (lib/Target/Common/Loops.h) and the
// scalar body is printed by the same emitter; only the mapping of the nest
// onto threads differs:
//   - map: one thread per element of the collapsed space, grid-stride;
//   - reduce over fewer than 32 elements: one thread per output;
//   - larger reduce: one block per output (grid-stride over outputs), each
//     thread striding the reduced space, then warp shuffles and one shared
//     slot per warp.
// Index arithmetic is 32-bit when every offset and the element count fit.
//
//===----------------------------------------------------------------------===//

#include "lib/Target/Common/Loops.h"
#include "lib/Target/Common/ScalarEmitter.h"
#include "lib/Target/Cuda/Calls.h"
#include "shardc/Target/Cuda.h"

#include "dialects/Kern/IR/KernOps.h"

#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>

using namespace mlir;
using namespace shardc;
using namespace shardc::target;

using cuda::ceilDiv;
using cuda::kBlock;
using cuda::kMaxGrid;

namespace {

class KernelWriter {
public:
  KernelWriter(Operation *op, ValueRange inputs, ValueRange outputs,
               ArrayRef<int64_t> shape, ArrayAttr layouts,
               ArrayRef<int64_t> reduceDims, StringRef kind, Block &body)
      : op(op), inputs(inputs), outputs(outputs), kind(kind), body(body),
        nest(collapseLoops(shape, layouts, reduceDims, body)) {
    shapeText = "[";
    for (auto [i, d] : llvm::enumerate(shape))
      shapeText += (i ? ", " : "") + std::to_string(d);
    shapeText += "]";
    // 32-bit indices leave headroom for the grid stride.
    int64_t reach = std::max({maxOffset(nest), nest.parallelSize,
                              nest.reduceSize});
    idx = reach < (int64_t(1) << 30) ? "int" : "int64_t";
  }

  FailureOr<cuda::Kernel> write(StringRef name);
  bool hoistOffsets = false;

private:
  void signature(StringRef name, int64_t launchBound);
  /// `const int iL = ...;` for loops [first, last) from flat index `flat`.
  void decompose(unsigned first, unsigned last, StringRef flat);
  LogicalResult loadsAndBody();
  std::string yielded(unsigned i) {
    return names.lookup(body.getTerminator()->getOperand(i));
  }
  std::string access(unsigned operand) {
    return indexExpr(hoistOffsets ? 0 : nest.offsets[operand], nest.loops,
                     operand);
  }

  Operation *op;
  ValueRange inputs, outputs;
  StringRef kind;
  Block &body;
  LoopNest nest;
  std::string shapeText, idx, src, indent = "  ";
  llvm::raw_string_ostream os{src};
  DenseMap<Value, std::string> names;
  unsigned counter = 0;
};

} // namespace

void KernelWriter::signature(StringRef name, int64_t launchBound) {
  os << "// " << op->getName() << " " << (kind.empty() ? "" : kind.str() + " ")
     << "over " << shapeText << "\n"
     << "extern \"C\" __global__ void __launch_bounds__(" << launchBound
     << ") " << name << "(";
  SmallVector<std::string> params;
  for (auto [i, v] : llvm::enumerate(inputs)) {
    Type t = cast<MemRefType>(v.getType()).getElementType();
    params.push_back("const " + storageCType(t) + " *__restrict__ in" +
                     std::to_string(i));
  }
  for (auto [i, v] : llvm::enumerate(outputs)) {
    Type t = cast<MemRefType>(v.getType()).getElementType();
    params.push_back(storageCType(t) + " *__restrict__ out" +
                     std::to_string(i));
  }
  os << llvm::join(params, ", ") << ") {\n";
}

void KernelWriter::decompose(unsigned first, unsigned last, StringRef flat) {
  if (first == last)
    return;
  if (last - first == 1) {
    os << indent << "const " << idx << " i" << first << " = " << flat << ";\n";
    return;
  }
  os << indent << idx << " r = " << flat << ";\n";
  for (unsigned l = last; l-- > first;) {
    if (l == first) {
      os << indent << "const " << idx << " i" << l << " = r;\n";
    } else {
      os << indent << "const " << idx << " i" << l << " = r % "
         << nest.loops[l].size << "; r /= " << nest.loops[l].size << ";\n";
    }
  }
}

LogicalResult KernelWriter::loadsAndBody() {
  for (auto [i, v] : llvm::enumerate(inputs)) {
    Type t = cast<MemRefType>(v.getType()).getElementType();
    std::string x = "x" + std::to_string(i);
    os << indent << "const " << scalarCType(body.getArgument(i).getType())
       << " " << x << " = "
       << loadExpr(t, "in" + std::to_string(i) + "[" + access(i) + "]")
       << ";\n";
    names[body.getArgument(i)] = x;
  }
  auto indexName = [&](int64_t dim) -> std::string {
    for (auto [l, loop] : llvm::enumerate(nest.loops))
      if (loop.dim == dim)
        return "i" + std::to_string(l);
    return "0";
  };
  return emitScalarOps(body, names, os, indent, indexName, counter);
}

FailureOr<cuda::Kernel> KernelWriter::write(StringRef name) {
  cuda::Kernel k;
  k.params.append(inputs.begin(), inputs.end());
  k.params.append(outputs.begin(), outputs.end());
  if (hoistOffsets)
    k.paramOffsets.assign(nest.offsets.begin(), nest.offsets.end());
  unsigned numLoops = nest.loops.size();
  unsigned numPar = nest.numParallel;
  int64_t outputs_ = nest.parallelSize;
  // One thread per output, grid-stride, the first `loops` loops decomposed
  // from the thread's index.
  auto threadPerOutput = [&](unsigned loops) {
    k.block = std::min(kBlock, std::max<int64_t>(32, outputs_));
    k.grid[0] = std::clamp<int64_t>(ceilDiv(outputs_, k.block), 1, kMaxGrid);
    signature(name, k.block);
    os << indent << "for (" << idx << " t = blockIdx.x * blockDim.x + "
       << "threadIdx.x; t < " << outputs_ << "; t += gridDim.x * blockDim.x) {\n";
    indent = "    ";
    decompose(0, loops, "t");
  };

  if (kind.empty()) {
    threadPerOutput(numLoops);
    if (failed(loadsAndBody()))
      return failure();
    for (auto [i, v] : llvm::enumerate(outputs)) {
      unsigned o = inputs.size() + i;
      Type t = cast<MemRefType>(v.getType()).getElementType();
      os << indent << "out" << i << "[" << access(o)
         << "] = " << storeExpr(t, yielded(i)) << ";\n";
    }
    os << "  }\n}\n";
    os.flush();
    k.source = src;
    return k;
  }

  Type elem = cast<MemRefType>(outputs[0].getType()).getElementType();
  ReduceForm form = reduceForm(kind, elem);
  int64_t count = nest.reduceSize;
  std::string result = kind == "mean" ? "acc / (" + form.accType + ")" +
                                            std::to_string(count)
                                      : std::string("acc");
  std::string out = "out0[" + access(inputs.size()) + "]";
  bool blockPerOutput = count >= 32;
  if (!blockPerOutput) {
    threadPerOutput(numPar);
    os << indent << form.accType << " acc = " << form.init << ";\n";
    for (unsigned l = numPar; l < numLoops; ++l) {
      os << indent << "for (" << idx << " i" << l << " = 0; i" << l << " < "
         << nest.loops[l].size << "; ++i" << l << ") {\n";
      indent += "  ";
    }
    if (failed(loadsAndBody()))
      return failure();
    os << indent << "acc = " << reduceCombine(kind, elem, "acc", yielded(0))
       << ";\n";
    for (unsigned l = numPar; l < numLoops; ++l) {
      indent.resize(indent.size() - 2);
      os << indent << "}\n";
    }
    os << indent << out << " = " << storeExpr(elem, result) << ";\n";
    os << "  }\n}\n";
    os.flush();
    k.source = src;
    return k;
  }

  // One block per output: the block is the reduce size rounded up to a
  // power of two, 32 to 256 threads.
  int64_t block = 32;
  while (block < count && block < kBlock)
    block *= 2;
  k.block = block;
  k.grid[0] = std::clamp<int64_t>(outputs_, 1, kMaxGrid);
  signature(name, block);
  if (block > 32)
    os << "  __shared__ " << form.accType << " partial[" << block / 32 << "];\n";
  os << indent << "for (" << idx << " t = blockIdx.x; t < " << outputs_
     << "; t += gridDim.x) {\n";
  indent = "    ";
  decompose(0, numPar, "t");
  os << indent << form.accType << " acc = " << form.init << ";\n";
  os << indent << "for (" << idx << " u = threadIdx.x; u < " << count
     << "; u += " << block << ") {\n";
  indent = "      ";
  // (The inner `r` of the decomposition shadows the outer one.)
  decompose(numPar, numLoops, "u");
  if (failed(loadsAndBody()))
    return failure();
  os << indent << "acc = " << reduceCombine(kind, elem, "acc", yielded(0))
     << ";\n";
  os << "    }\n";
  // Within the warp, then across the warps through shared memory.
  auto shuffle = [&](StringRef ind) {
    os << ind << "for (int m = 16; m > 0; m /= 2) {\n"
       << ind << "  const " << form.accType << " o = sc_shfl_xor(acc, m);\n"
       << ind << "  acc = " << reduceCombine(kind, elem, "acc", "o") << ";\n"
       << ind << "}\n";
  };
  shuffle("    ");
  if (block > 32) {
    os << "    if ((threadIdx.x & 31) == 0) partial[threadIdx.x / 32] = acc;\n"
       << "    __syncthreads();\n"
       << "    if (threadIdx.x < 32) {\n"
       << "      acc = threadIdx.x < " << block / 32 << " ? partial[threadIdx.x] : "
       << form.init << ";\n";
    shuffle("      ");
    os << "    }\n"
       << "    __syncthreads();\n";
  }
  indent = "    ";
  os << "    if (threadIdx.x == 0) {\n";
  // The output access needs the parallel indices only (reduced strides of
  // the output are 0).
  os << "      " << out << " = " << storeExpr(elem, result) << ";\n"
     << "    }\n"
     << "  }\n}\n";
  os.flush();
  k.source = src;
  return k;
}

FailureOr<cuda::Kernel> cuda::emitKernel(Operation *op, StringRef name,
                                         bool hoistOffsets) {
  return llvm::TypeSwitch<Operation *, FailureOr<cuda::Kernel>>(op)
      .Case([&](kern::MapOp m) {
        KernelWriter w(m, m.getInputs(), m.getOutputs(), m.getShape(),
                       m.getLayouts(), {}, "", m.getBody().front());
        w.hoistOffsets = hoistOffsets;
        return w.write(name);
      })
      .Case([&](kern::ReduceOp r) {
        KernelWriter w(r, r.getInputs(), r.getOutputs(), r.getShape(),
                       r.getLayouts(), r.getReduceDims(), r.getKind(),
                       r.getBody().front());
        w.hoistOffsets = hoistOffsets;
        return w.write(name);
      })
      .Case([&](kern::RuntimeCallOpInterface c) {
        return emitCallKernel(c, name);
      })
      .Default([&](Operation *o) -> FailureOr<cuda::Kernel> {
        return o->emitError("the CUDA target has no kernel for '")
               << o->getName() << "'";
      });
}
