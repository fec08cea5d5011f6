//===- CallWriter.cpp - runtime kernel ops on CUDA -------------------------===//
//
// The shared part of the runtime kernels' CUDA writers and the dispatch to
// them. Families: gather.cuh (kern.gather), normalize.cuh (kern.softmax,
// kern.layer_norm), pool.cuh (kern.pool), select.cuh (kern.arg_max,
// kern.topk, kern.cumsum, kern.trilu), pad.cuh (kern.pad), resize.cuh
// (kern.resize), matmul.cuh (kern.matmul_ref, kern.matmul_integer,
// kern.qlinear_matmul), attention.cuh (kern.attention), moe.cuh
// (kern.moe_place, kern.moe_route, kern.moe_permute, kern.grouped_matmul,
// kern.grouped_bias, kern.moe_combine). kern.einsum has no CUDA form.
//
//===----------------------------------------------------------------------===//

#include "lib/Target/Cuda/Calls/CallWriter.h"

#include "llvm/ADT/TypeSwitch.h"

#include <limits>

using namespace mlir;
using namespace shardc;
using namespace shardc::cuda;
using namespace shardc::cuda::calls;
using target::storageCType;

std::string calls::lit(int64_t v) {
  if (v >= std::numeric_limits<int32_t>::min() &&
      v <= std::numeric_limits<int32_t>::max())
    return std::to_string(v);
  if (v == std::numeric_limits<int64_t>::min())
    return "INT64_MIN";
  return std::to_string(v) + "LL";
}

std::string calls::braced(ArrayRef<int64_t> values) {
  std::string s = "{";
  for (auto [i, v] : llvm::enumerate(values))
    s += (i ? ", " : "") + lit(v);
  return s + (values.empty() ? "0}" : "}");
}

std::string calls::dimsText(ArrayRef<int64_t> dims) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(dims))
    s += (i ? ", " : "") + std::to_string(d);
  return s + "]";
}

std::string calls::indexType(int64_t reach) {
  return reach < (int64_t(1) << 30) ? "int" : "int64_t";
}

bool calls::isFloat(Type t) {
  return t.isF32() || t.isF64() || t.isF16() || t.isBF16();
}

std::string calls::elemKind(Type t) {
  if (t.isF16())
    return "sc_f16";
  if (t.isBF16())
    return "sc_bf16";
  return storageCType(t);
}

int64_t calls::elemBytes(Type t) {
  if (t.isF16() || t.isBF16())
    return 2;
  if (t.isInteger(1))
    return 1;
  return t.getIntOrFloatBitWidth() / 8;
}

std::string calls::wordType(int64_t bytes) {
  return "sc_word<" + std::to_string(bytes) + ">::T";
}

int64_t calls::widestWord(int64_t bytes) {
  for (int64_t w : {16, 8, 4, 2})
    if (bytes % w == 0)
      return w;
  return 1;
}

CallWriter::CallWriter(kern::RuntimeCallOpInterface op, StringRef name)
    : name(name.str()), op(op) {
  SmallVector<MemoryEffects::EffectInstance> effects;
  cast<MemoryEffectOpInterface>(op.getOperation()).getEffects(effects);
  SmallVector<std::pair<unsigned, bool>> buffers; // operand, written
  for (const MemoryEffects::EffectInstance &e : effects)
    if (auto *operand = e.getEffectValue<OpOperand *>())
      buffers.push_back({operand->getOperandNumber(),
                         isa<MemoryEffects::Write>(e.getEffect())});
  llvm::stable_sort(buffers, [](auto a, auto b) { return a.first < b.first; });
  for (auto [number, written] : buffers) {
    Value v = op->getOperand(number);
    SmallVector<Value> &list = written ? outputs : inputs;
    names[number] = (written ? "out" : "in") + std::to_string(list.size());
    list.push_back(v);
  }
}

CallWriter::CallWriter(kern::RuntimeCallOpInterface op, StringRef name,
                       ArrayRef<Value> inputs, ArrayRef<Value> outputs)
    : name(name.str()), op(op), inputs(inputs), outputs(outputs) {}

std::string CallWriter::param(OpOperand &operand) const {
  return names.lookup(operand.getOperandNumber());
}

std::string CallWriter::param(MutableOperandRange optional) const {
  return optional.empty() ? std::string("nullptr") : param(optional[0]);
}

std::string CallWriter::inputParam(Value v) const {
  auto it = llvm::find(inputs, v);
  return it == inputs.end() ? std::string("nullptr")
                            : "in" + std::to_string(it - inputs.begin());
}

LogicalResult CallWriter::unsupported(const Twine &why) {
  return op->emitError("the CUDA target has no kernel for '")
         << op->getName() << "' (" << why << ")";
}

void CallWriter::launchOver(int64_t total, int64_t block) {
  blockSize = total > 0 ? std::min(block, std::max<int64_t>(
                                              32, ceilDiv(total, 32) * 32))
                        : block;
  gridSize = std::min(ceilDiv(total, blockSize), kMaxGrid);
}

void CallWriter::finish(int64_t block, int64_t grid,
                        const std::string &comment) {
  std::string src = decls;
  llvm::raw_string_ostream os(src);
  os << "// " << op->getName() << ": " << comment << "\n"
     << "extern \"C\" __global__ void __launch_bounds__(" << block << ") "
     << name << "(";
  unsigned i = 0;
  for (auto [j, v] : llvm::enumerate(inputs))
    os << (i++ ? ", " : "") << "const " << storageCType(elem(v))
       << " *__restrict__ in" << j;
  for (auto [j, v] : llvm::enumerate(outputs))
    os << (i++ ? ", " : "") << storageCType(elem(v)) << " *__restrict__ out"
       << j;
  os << ") {\n" << body << "}\n";
  os.flush();
  kernel.source = src;
  kernel.block = block;
  kernel.grid[0] = grid;
  kernel.params.assign(inputs.begin(), inputs.end());
  kernel.params.append(outputs.begin(), outputs.end());
}

FailureOr<Kernel> cuda::emitCallKernel(kern::RuntimeCallOpInterface op,
                                       StringRef name) {
  return llvm::TypeSwitch<Operation *, FailureOr<Kernel>>(op)
      .Case([&](kern::GatherOp o) { return gather(o, name); })
      .Case([&](kern::GatherElementsOp o) { return gatherElements(o, name); })
      .Case([&](kern::ScatterElementsOp o) { return scatterElements(o, name); })
      .Case([&](kern::ScatterNDOp o) { return scatterND(o, name); })
      .Case([&](kern::SoftmaxOp o) { return softmax(o, name); })
      .Case([&](kern::LayerNormOp o) { return layerNorm(o, name); })
      .Case([&](kern::PoolOp o) { return pool(o, name); })
      .Case([&](kern::ArgMaxOp o) { return argMax(o, name); })
      .Case([&](kern::TopKOp o) { return topk(o, name); })
      .Case([&](kern::CumSumOp o) { return cumsum(o, name); })
      .Case([&](kern::TriluOp o) { return trilu(o, name); })
      .Case([&](kern::PadOp o) { return pad(o, name); })
      .Case([&](kern::ResizeOp o) { return resize(o, name); })
      .Case([&](kern::MatmulRefOp o) { return matmulRef(o, name); })
      .Case([&](kern::MatmulIntegerOp o) { return matmulInteger(o, name); })
      .Case([&](kern::QLinearMatmulOp o) { return qlinearMatmul(o, name); })
      .Case([&](kern::AttentionOp o) { return attention(o, name); })
      .Case([&](kern::MoePlaceOp o) { return moePlace(o, name); })
      .Case([&](kern::MoeRouteOp o) { return moeRoute(o, name); })
      .Case([&](kern::MoePermuteOp o) { return moePermute(o, name); })
      .Case([&](kern::GroupedMatmulOp o) { return groupedMatmul(o, name); })
      .Case([&](kern::GroupedBiasOp o) { return groupedBias(o, name); })
      .Case([&](kern::MoeCombineOp o) { return moeCombine(o, name); })
      .Default([&](Operation *o) -> FailureOr<Kernel> {
        return CallWriter(op, name).unsupported(
            isa<kern::EinsumOp>(o) ? "einsum runs on the CPU target only"
                                   : "no CUDA form");
      });
}
