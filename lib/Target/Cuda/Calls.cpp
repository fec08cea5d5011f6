//===- Calls.cpp - runtime kernels (kern.call) on CUDA ---------------------===//
//
// A kern.call names a CPU runtime kernel (runtime/include/shardc/cpu.h) and
// lists its C arguments. On CUDA the call becomes one generated __global__
// kernel whose parameters are the call's buffers (inputs, then outputs, as
// in0.. / out0..) and whose body calls a device template of the prelude
// (lib/Target/Cuda/prelude/<family>.cuh) specialised to the call: shapes,
// axes, strides and attributes are baked in as constants and template
// arguments. Checks the CPU kernel makes at run time on static facts (axis
// range, dtypes, shapes) are made here, as compile errors.
//
// Families: gather.cuh (sc_gather), normalize.cuh (sc_softmax,
// sc_layer_norm), pool.cuh (sc_pool), select.cuh (sc_arg_max, sc_topk,
// sc_cumsum, sc_trilu), pad.cuh (sc_pad), resize.cuh (sc_resize),
// matmul.cuh (sc_matmul_ref, sc_matmul_integer, sc_qlinear_matmul),
// attention.cuh (sc_attention). sc_einsum has no CUDA form.
//
//===----------------------------------------------------------------------===//

#include "lib/Target/Cuda/Calls.h"

#include "lib/Target/Common/ScalarEmitter.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

using namespace mlir;
using namespace shardc;
using namespace shardc::target;

using cuda::ceilDiv;
using cuda::kBlock;
using cuda::kMaxGrid;

namespace {

int64_t product(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

/// An integer literal (long long when it needs 64 bits).
std::string lit(int64_t v) {
  if (v >= std::numeric_limits<int32_t>::min() &&
      v <= std::numeric_limits<int32_t>::max())
    return std::to_string(v);
  if (v == std::numeric_limits<int64_t>::min())
    return "INT64_MIN";
  return std::to_string(v) + "LL";
}

/// `{a, b, c}` of integer literals ({0} when empty).
std::string braced(ArrayRef<int64_t> values) {
  std::string s = "{";
  for (auto [i, v] : llvm::enumerate(values))
    s += (i ? ", " : "") + lit(v);
  return s + (values.empty() ? "0}" : "}");
}

std::string dimsText(ArrayRef<int64_t> dims) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(dims))
    s += (i ? ", " : "") + std::to_string(d);
  return s + "]";
}

/// The index type of a kernel whose offsets stay below `reach`: 32-bit with
/// headroom for the grid stride.
std::string indexType(int64_t reach) {
  return reach < (int64_t(1) << 30) ? "int" : "int64_t";
}

bool isFloat(Type t) {
  return t.isF32() || t.isF64() || t.isF16() || t.isBF16();
}

/// The element kind of the prelude's templates (sc_elem<E>).
std::string elemKind(Type t) {
  if (t.isF16())
    return "sc_f16";
  if (t.isBF16())
    return "sc_bf16";
  return storageCType(t);
}

int64_t elemBytes(Type t) {
  if (t.isF16() || t.isBF16())
    return 2;
  if (t.isInteger(1))
    return 1;
  return t.getIntOrFloatBitWidth() / 8;
}

/// The word type that moves elements of `bytes` bytes.
std::string wordType(int64_t bytes) {
  return "sc_word<" + std::to_string(bytes) + ">::T";
}

/// The widest of 16, 8, 4, 2, 1 bytes that divides `bytes`.
int64_t widestWord(int64_t bytes) {
  for (int64_t w : {16, 8, 4, 2})
    if (bytes % w == 0)
      return w;
  return 1;
}

/// One C argument of the call.
struct Arg {
  enum Kind { Operand, Null, Int, Float, Ints, Floats, Other } kind = Other;
  int operand = -1; ///< for Operand
  int64_t i = 0;
  double f = 0;
  SmallVector<int64_t> ints;
  SmallVector<float> floats;
};

class CallWriter {
public:
  CallWriter(kern::CallOp op, StringRef name)
      : op(op), name(name.str()), callee(op.getCallee().str()) {
    operands.append(op.getInputs().begin(), op.getInputs().end());
    operands.append(op.getOutputs().begin(), op.getOutputs().end());
    numInputs = op.getInputs().size();
  }

  FailureOr<cuda::Kernel> write();

private:
  LogicalResult parseArgs();
  LogicalResult gather();
  LogicalResult softmax();
  LogicalResult layerNorm();
  LogicalResult pool();
  LogicalResult argMax();
  LogicalResult topk();
  LogicalResult cumsum();
  LogicalResult trilu();
  LogicalResult pad();
  LogicalResult resize();
  LogicalResult matmulRef();
  LogicalResult matmulInteger();
  LogicalResult qlinearMatmul();
  LogicalResult attention();

  /// The compile error for a call the CUDA target cannot take.
  LogicalResult unsupported(const Twine &why) {
    return op.emitError("the CUDA target has no kernel for @")
           << callee << " (" << why << ")";
  }

  /// Checks the C argument list against `sig`, one letter per argument:
  /// o a buffer (descriptor or pointer) or %null, i an integer, f a float,
  /// a an i64 array, F an f32 array.
  LogicalResult expectArgs(StringRef sig) {
    bool ok = args.size() == sig.size();
    for (size_t i = 0; ok && i < sig.size(); ++i) {
      Arg::Kind k = args[i].kind;
      switch (sig[i]) {
      case 'o':
        ok = k == Arg::Operand || k == Arg::Null;
        break;
      case 'i':
        ok = k == Arg::Int;
        break;
      case 'f':
        ok = k == Arg::Float;
        break;
      case 'a':
        ok = k == Arg::Ints;
        break;
      case 'F':
        ok = k == Arg::Floats;
        break;
      default:
        ok = false;
      }
    }
    if (!ok) {
      std::string list;
      llvm::raw_string_ostream os(list);
      os << op.getArgs();
      return unsupported("unexpected argument list " + os.str());
    }
    return success();
  }
  /// The buffer of argument `a` (a descriptor or pointer; null for %null).
  Value buffer(unsigned a) {
    return args[a].kind == Arg::Operand ? operands[args[a].operand] : Value();
  }
  /// Its kernel parameter, or nullptr.
  std::string param(unsigned a) {
    if (args[a].kind != Arg::Operand)
      return "nullptr";
    int i = args[a].operand;
    return i < (int)numInputs ? "in" + std::to_string(i)
                              : "out" + std::to_string(i - numInputs);
  }
  int64_t intArg(unsigned a) { return args[a].i; }
  static ArrayRef<int64_t> shape(Value v) {
    return cast<MemRefType>(v.getType()).getShape();
  }
  static Type elem(Value v) {
    return cast<MemRefType>(v.getType()).getElementType();
  }

  /// The kernel: `// comment`, the signature (every buffer of the call, in
  /// order), `body`; launched as `grid` blocks of `block` threads.
  void finish(int64_t block, int64_t grid, const std::string &comment);
  /// 1-D grid-stride launch over `total` items.
  void launchOver(int64_t total, int64_t block = kBlock) {
    blockSize =
        total > 0
            ? std::min(block, std::max<int64_t>(32, ceilDiv(total, 32) * 32))
            : block;
    gridSize = std::min(ceilDiv(total, blockSize), kMaxGrid);
  }

  kern::CallOp op;
  std::string name, callee;
  SmallVector<Value> operands;
  unsigned numInputs;
  SmallVector<Arg> args;

  std::string decls; ///< file-scope tables before the kernel
  std::string body;  ///< the kernel's statements
  int64_t blockSize = kBlock, gridSize = 1;
  cuda::Kernel kernel;
};

} // namespace

LogicalResult CallWriter::parseArgs() {
  for (Attribute a : op.getArgs()) {
    Arg arg;
    if (auto s = dyn_cast<StringAttr>(a)) {
      StringRef v = s.getValue();
      unsigned i = 0;
      if (v == "%null") {
        arg.kind = Arg::Null;
      } else if ((v.starts_with("%d") || v.starts_with("%p")) &&
                 !v.drop_front(2).getAsInteger(10, i)) {
        if (i >= operands.size())
          return op.emitError("bad argument '") << v << "'";
        arg.kind = Arg::Operand;
        arg.operand = i;
      }
    } else if (auto i = dyn_cast<IntegerAttr>(a)) {
      arg.kind = Arg::Int;
      arg.i = i.getInt();
    } else if (auto f = dyn_cast<FloatAttr>(a)) {
      arg.kind = Arg::Float;
      arg.f = f.getValueAsDouble();
    } else if (auto arr = dyn_cast<DenseI64ArrayAttr>(a)) {
      arg.kind = Arg::Ints;
      arg.ints.assign(arr.asArrayRef().begin(), arr.asArrayRef().end());
    } else if (auto arr = dyn_cast<DenseF32ArrayAttr>(a)) {
      arg.kind = Arg::Floats;
      arg.floats.assign(arr.asArrayRef().begin(), arr.asArrayRef().end());
    }
    args.push_back(std::move(arg));
  }
  return success();
}

void CallWriter::finish(int64_t block, int64_t grid,
                        const std::string &comment) {
  std::string src = decls;
  llvm::raw_string_ostream os(src);
  os << "// kern.call @" << callee << ": " << comment << "\n"
     << "extern \"C\" __global__ void __launch_bounds__(" << block << ") "
     << name << "(";
  for (auto [i, v] : llvm::enumerate(operands)) {
    bool in = i < numInputs;
    os << (i ? ", " : "") << (in ? "const " : "") << storageCType(elem(v))
       << " *__restrict__ "
       << (in ? "in" + std::to_string(i)
              : "out" + std::to_string(i - numInputs));
  }
  os << ") {\n" << body << "}\n";
  os.flush();
  kernel.source = src;
  kernel.block = block;
  kernel.grid[0] = grid;
  kernel.params.assign(operands.begin(), operands.end());
}

FailureOr<cuda::Kernel> CallWriter::write() {
  if (failed(parseArgs()))
    return failure();
  LogicalResult r =
      llvm::StringSwitch<std::function<LogicalResult()>>(callee)
          .Case("sc_gather", [&] { return gather(); })
          .Case("sc_softmax", [&] { return softmax(); })
          .Case("sc_layer_norm", [&] { return layerNorm(); })
          .Case("sc_pool", [&] { return pool(); })
          .Case("sc_arg_max", [&] { return argMax(); })
          .Case("sc_topk", [&] { return topk(); })
          .Case("sc_cumsum", [&] { return cumsum(); })
          .Case("sc_trilu", [&] { return trilu(); })
          .Case("sc_pad", [&] { return pad(); })
          .Case("sc_resize", [&] { return resize(); })
          .Case("sc_matmul_ref", [&] { return matmulRef(); })
          .Case("sc_matmul_integer", [&] { return matmulInteger(); })
          .Case("sc_qlinear_matmul", [&] { return qlinearMatmul(); })
          .Case("sc_attention", [&] { return attention(); })
          .Case(
              "sc_einsum",
              [&] { return unsupported("einsum runs on the CPU target only"); })
          .Default([&] { return unsupported("unknown runtime kernel"); })();
  if (failed(r))
    return failure();
  return kernel;
}

//===----------------------------------------------------------------------===//
// gather.cuh
//===----------------------------------------------------------------------===//

// sc_gather(data desc, data, idx desc, idx, y, axis)
LogicalResult CallWriter::gather() {
  if (failed(expectArgs("oooooi")))
    return failure();
  Value data = buffer(1), idx = buffer(3), y = buffer(4);
  if (!data || !idx || !y)
    return unsupported("missing operand");
  ArrayRef<int64_t> ds = shape(data);
  int64_t rank = ds.size(), axis = intArg(5);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return unsupported("axis " + Twine(intArg(5)) + " out of range for rank " +
                       Twine(rank));
  Type it = elem(idx);
  if (!it.isInteger(32) && !it.isInteger(64))
    return unsupported("indices must be int32 or int64");
  int64_t outer = product(ds.take_front(axis)), n = ds[axis];
  int64_t inner = product(ds.drop_front(axis + 1));
  int64_t nidx = product(shape(idx));
  int64_t rowBytes = inner * elemBytes(elem(data));
  int64_t w = widestWord(rowBytes), row = rowBytes / w;
  int64_t total = outer * nidx * row;
  std::string word = wordType(w),
              I = indexType(std::max(total, outer * n * row));
  launchOver(total);
  body = "  // rows of " + std::to_string(rowBytes) + " bytes as " +
         std::to_string(row) + " words of " + std::to_string(w) + "\n" +
         "  sc_gather<" + word + ", " + storageCType(it) + ", " + I +
         ">(reinterpret_cast<const " + word + " *>(" + param(1) + "), " +
         param(3) + ", reinterpret_cast<" + word + " *>(" + param(4) + "), " +
         lit(outer) + ", " + lit(n) + ", " + lit(nidx) + ", " + lit(row) +
         ");\n";
  finish(blockSize, gridSize,
         "gather " + dimsText(ds) + " along axis " + std::to_string(axis) +
             " by " + dimsText(shape(idx)));
  return success();
}

//===----------------------------------------------------------------------===//
// normalize.cuh
//===----------------------------------------------------------------------===//

namespace {
/// Threads per row (W), elements per vector (V) and the block of a row
/// kernel over rows of n elements of `bytes` each.
struct RowPlan {
  int64_t W, V, block;
};
RowPlan rowPlan(int64_t n, int64_t bytes) {
  RowPlan p;
  if (n <= 1024) {
    // A warp, or for short rows the smallest group of lanes that covers
    // the row; 128 threads per block.
    p.W = 32;
    while (p.W > 1 && p.W / 2 >= n)
      p.W /= 2;
    p.block = 128;
  } else {
    p.W = n <= 4096 ? 256 : n <= 16384 ? 512 : 1024;
    p.block = p.W;
  }
  // The widest vector of at most 16 bytes that divides the row and still
  // gives every thread one.
  p.V = 1;
  for (int64_t v = 16 / bytes; v > 1; v /= 2)
    if (n % v == 0 && n >= v * p.W) {
      p.V = v;
      break;
    }
  return p;
}
std::string rowText(const RowPlan &p) {
  if (p.W > 32)
    return ", a block per row";
  return p.W == 32 ? ", a warp per row"
                   : ", " + std::to_string(p.W) + " lanes per row";
}
} // namespace

// sc_softmax(x desc, x, y, axis, is_log)
LogicalResult CallWriter::softmax() {
  if (failed(expectArgs("oooii")))
    return failure();
  Value x = buffer(1), y = buffer(2);
  if (!x || !y)
    return unsupported("missing operand");
  Type t = elem(x);
  if (!isFloat(t))
    return unsupported("floating-point input expected");
  ArrayRef<int64_t> xs = shape(x);
  SmallVector<int64_t> dims(xs);
  int64_t axis = intArg(3);
  if (dims.empty()) // a scalar is its own single-element axis
    dims.push_back(1);
  int64_t rank = dims.size();
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return unsupported("axis " + Twine(intArg(3)) + " out of range for rank " +
                       Twine(xs.size()));
  int64_t outer = product(ArrayRef(dims).take_front(axis)), n = dims[axis];
  int64_t inner = product(ArrayRef(dims).drop_front(axis + 1));
  std::string log = intArg(4) ? "true" : "false", kind = elemKind(t);
  std::string what = std::string(intArg(4) ? "log-softmax" : "softmax") +
                     " of " + dimsText(xs) + " along axis " +
                     std::to_string(axis);
  if (outer * n * inner == 0) {
    finish(32, 0, what + " (empty)");
    return success();
  }
  if (inner == 1 && n < (int64_t(1) << 31)) {
    RowPlan p = rowPlan(n, elemBytes(t));
    int64_t rowsPerBlock = p.block / p.W;
    body = "  sc_softmax_rows<" + kind + ", " + lit(n) + ", " +
           std::to_string(p.W) + ", " + std::to_string(p.V) + ", " + log +
           ">(" + param(1) + ", " + param(2) + ", " + lit(outer) + ");\n";
    finish(p.block, std::min(ceilDiv(outer, rowsPerBlock), kMaxGrid),
           what + ": " + std::to_string(outer) + " rows of " +
               std::to_string(n) + rowText(p));
    return success();
  }
  std::string I = indexType(outer * n * inner);
  launchOver(outer * inner);
  body = "  sc_softmax_cols<" + kind + ", " + log + ", " + I + ">(" + param(1) +
         ", " + param(2) + ", " + lit(outer) + ", " + lit(n) + ", " +
         lit(inner) + ");\n";
  finish(blockSize, gridSize, what + ": a thread per column");
  return success();
}

// sc_layer_norm(x desc, x, scale, bias|0, y, mean|0, inv_std|0, axis, eps)
LogicalResult CallWriter::layerNorm() {
  if (failed(expectArgs("oooooooif")))
    return failure();
  Value x = buffer(1), scale = buffer(2), bias = buffer(3), y = buffer(4);
  Value mean = buffer(5), inv = buffer(6);
  if (!x || !scale || !y)
    return unsupported("missing operand");
  Type t = elem(x);
  if (!isFloat(t))
    return unsupported("floating-point input expected");
  ArrayRef<int64_t> xs = shape(x);
  int64_t rank = xs.size(), axis = intArg(7);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank)
    return unsupported("axis " + Twine(intArg(7)) + " out of range for rank " +
                       Twine(rank));
  int64_t outer = product(xs.take_front(axis)),
          n = product(xs.drop_front(axis));
  if (product(shape(scale)) != n || elem(scale) != t ||
      (bias && (product(shape(bias)) != n || elem(bias) != t)))
    return unsupported("scale and bias must have the normalized shape and "
                       "the input's type");
  for (Value stat : {mean, inv})
    if (stat && (!elem(stat).isF32() || product(shape(stat)) != outer))
      return unsupported("mean and inverse std must be float32 with one "
                         "value per row");
  std::string what =
      "layer norm of " + dimsText(xs) + " from axis " + std::to_string(axis);
  if (outer == 0 || (n == 0 && !mean && !inv)) {
    finish(32, 0, what + " (empty)");
    return success();
  }
  if (n == 0)
    return unsupported("statistics of an empty normalized shape");
  if (n >= (int64_t(1) << 31))
    return unsupported("rows of 2^31 elements or more");
  RowPlan p = rowPlan(n, elemBytes(t));
  int64_t rowsPerBlock = p.block / p.W;
  body = "  sc_layer_norm_rows<" + elemKind(t) + ", " + lit(n) + ", " +
         std::to_string(p.W) + ", " + std::to_string(p.V) + ", " +
         (bias ? "true" : "false") + ">(" + param(1) + ", " + param(2) + ", " +
         param(3) + ", " + param(4) + ", " + param(5) + ", " + param(6) + ", " +
         lit(outer) + ", " +
         floatLiteral(args[8].f, Float32Type::get(op.getContext())) + ");\n";
  finish(p.block, std::min(ceilDiv(outer, rowsPerBlock), kMaxGrid),
         what + ": " + std::to_string(outer) + " rows of " + std::to_string(n) +
             rowText(p));
  return success();
}

//===----------------------------------------------------------------------===//
// pool.cuh
//===----------------------------------------------------------------------===//

// sc_pool(x desc, x, y desc, y, indices|0, kind, kernel, strides, dilations,
//         pads, count_include_pad, storage_order, channels_last (0 here))
LogicalResult CallWriter::pool() {
  if (failed(expectArgs("oooooiaaaaiii")))
    return failure();
  Value x = buffer(1), y = buffer(3), indices = buffer(4);
  if (!x || !y)
    return unsupported("missing operand");
  if (intArg(12) != 0)
    return unsupported("channels-last pooling runs on the CPU target only");
  ArrayRef<int64_t> xs = shape(x), ys = shape(y);
  int64_t sd = (int64_t)xs.size() - 2;
  if (sd < 1 || ys.size() != xs.size())
    return unsupported("input rank " + Twine(xs.size()) + ", output rank " +
                       Twine(ys.size()));
  Type t = elem(x);
  if (t.isInteger(1) || elem(y) != t)
    return unsupported("numeric input and output of one type expected");
  bool isMax = intArg(5) == 0;
  if (!isMax)
    indices = Value();
  if (indices && !elem(indices).isInteger(64))
    return unsupported("indices must be int64");
  auto per = [&](unsigned a, size_t n, int64_t dflt,
                 SmallVector<int64_t> &out) -> bool {
    ArrayRef<int64_t> v = args[a].ints;
    if (v.empty()) {
      out.assign(n, dflt);
      return true;
    }
    out.assign(v.begin(), v.end());
    return v.size() == n;
  };
  SmallVector<int64_t> kernelShape, strides, dilations, pads;
  if (!per(6, sd, 1, kernelShape) || args[6].ints.empty() ||
      !per(7, sd, 1, strides) || !per(8, sd, 1, dilations) ||
      !per(9, 2 * sd, 0, pads))
    return unsupported("kernel, strides, dilations and pads must have one "
                       "entry per spatial dim");
  SmallVector<int64_t> in(xs.drop_front(2)), out(ys.drop_front(2));
  SmallVector<int64_t> istride(sd), rstride(sd);
  for (int64_t d = sd - 1, r = 1; d >= 0; --d) {
    rstride[d] = r;
    r *= in[d];
  }
  if (intArg(11) == 1) {
    for (int64_t d = 0, c = 1; d < sd; ++d) {
      istride[d] = c;
      c *= in[d];
    }
  } else {
    istride = rstride;
  }
  int64_t planes = xs[0] * xs[1];
  int64_t total = product(ys);
  std::string I = indexType(std::max(product(xs), total));
  launchOver(total);
  std::string g = "  const sc_pool_geom<" + std::to_string(sd) + "> g = {" +
                  braced(in) + ", " + braced(out) + ", " + braced(kernelShape) +
                  ", " + braced(strides) + ", " + braced(dilations) + ", " +
                  braced(ArrayRef(pads).take_front(sd)) + ", " +
                  braced(ArrayRef(pads).drop_front(sd)) + ", " +
                  braced(istride) + "};\n";
  body = "  // in, out, kernel, strides, dilations, pads (begin, end), index "
         "strides\n" +
         g + "  sc_pool<" + elemKind(t) + ", " + std::to_string(sd) + ", " +
         (isMax ? "true" : "false") + ", " + (indices ? "true" : "false") +
         ", " + (intArg(10) ? "true" : "false") + ", " + I + ">(" + param(1) +
         ", " + param(3) + ", " + (indices ? param(4) : "nullptr") + ", g, " +
         lit(planes) + ");\n";
  finish(blockSize, gridSize,
         std::string(isMax ? "max" : "average") + " pool " + dimsText(xs) +
             " -> " + dimsText(ys) + ", a thread per output");
  return success();
}

//===----------------------------------------------------------------------===//
// select.cuh
//===----------------------------------------------------------------------===//

namespace {
/// [outer, n, inner] around `axis`.
struct AxisView {
  int64_t outer, n, inner;
};
AxisView axisView(ArrayRef<int64_t> dims, int64_t axis) {
  return {product(dims.take_front(axis)), dims[axis],
          product(dims.drop_front(axis + 1))};
}
} // namespace

// sc_arg_max(x desc, x, y, axis, select_last_index)
LogicalResult CallWriter::argMax() {
  if (failed(expectArgs("oooii")))
    return failure();
  Value x = buffer(1), y = buffer(2);
  if (!x || !y)
    return unsupported("missing operand");
  if (!elem(y).isInteger(64))
    return unsupported("the output must be int64");
  ArrayRef<int64_t> xs = shape(x);
  int64_t rank = xs.size(), axis = intArg(3);
  if (rank == 0) {
    body = "  if (blockIdx.x == 0 && threadIdx.x == 0)\n    " + param(2) +
           "[0] = 0;\n";
    finish(32, 1, "arg max of a scalar");
    return success();
  }
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return unsupported("axis " + Twine(intArg(3)) + " out of range for rank " +
                       Twine(rank));
  AxisView v = axisView(xs, axis);
  int64_t slices = v.outer * v.inner;
  std::string last = intArg(4) ? "true" : "false", kind = elemKind(elem(x));
  std::string what =
      "arg max of " + dimsText(xs) + " along axis " + std::to_string(axis);
  if (slices == 0) {
    finish(32, 0, what + " (empty)");
    return success();
  }
  if (v.n == 0)
    return unsupported("reducing an empty axis");
  std::string I = indexType(product(xs));
  std::string dims = lit(v.outer) + ", " + lit(v.n) + ", " + lit(v.inner);
  // A block per slice when the axis is long, or fairly long and the
  // slices few; else a thread per slice.
  int64_t b = 0;
  if (v.n >= 256)
    b = 256;
  else if (v.n >= 32 && slices < 1024)
    for (b = 32; b * 2 <= v.n && b < 256; b *= 2)
      ;
  if (b) {
    body = "  sc_arg_max_block<" + kind + ", " + last + ", " +
           std::to_string(b) + ", " + I + ">(" + param(1) + ", " + param(2) +
           ", " + dims + ");\n";
    finish(b, std::min(slices, kMaxGrid), what + ", a block per slice");
    return success();
  }
  launchOver(slices);
  body = "  sc_arg_max_thread<" + kind + ", " + last + ", " + I + ">(" +
         param(1) + ", " + param(2) + ", " + dims + ");\n";
  finish(blockSize, gridSize, what + ", a thread per slice");
  return success();
}

// sc_topk(x desc, x, values, indices, axis, k, largest, sorted)
LogicalResult CallWriter::topk() {
  if (failed(expectArgs("ooooiiii")))
    return failure();
  Value x = buffer(1), values = buffer(2), indices = buffer(3);
  if (!x || !values || !indices)
    return unsupported("missing operand");
  if (!elem(indices).isInteger(64) || elem(values) != elem(x))
    return unsupported("values must have the input's type, indices int64");
  ArrayRef<int64_t> xs = shape(x);
  int64_t rank = xs.size(), axis = intArg(4), k = intArg(5);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return unsupported("axis " + Twine(intArg(4)) + " out of range for rank " +
                       Twine(rank));
  AxisView v = axisView(xs, axis);
  if (k < 0 || k > v.n)
    return unsupported("k = " + Twine(k) + " out of range [0, " + Twine(v.n) +
                       "]");
  int64_t slices = v.outer * v.inner;
  std::string what = std::string(intArg(6) ? "largest" : "smallest") + " " +
                     std::to_string(k) + " of " + dimsText(xs) +
                     " along axis " + std::to_string(axis);
  if (slices == 0 || k == 0) {
    finish(32, 0, what + " (empty)");
    return success();
  }
  int64_t b = 32;
  while (b < v.n && b < 256)
    b *= 2;
  std::string I = indexType(std::max(product(xs), slices * k));
  body = "  sc_topk<" + elemKind(elem(x)) + ", " +
         (intArg(6) ? "true" : "false") + ", " + std::to_string(b) + ", " + I +
         ">(" + param(1) + ", " + param(2) + ", " + param(3) + ", " +
         lit(v.outer) + ", " + lit(v.n) + ", " + lit(v.inner) + ", " + lit(k) +
         ");\n";
  finish(b, std::min(slices, kMaxGrid), what + ", a block per slice");
  return success();
}

// sc_cumsum(x desc, x, y, axis, exclusive, reverse)
LogicalResult CallWriter::cumsum() {
  if (failed(expectArgs("oooiii")))
    return failure();
  Value x = buffer(1), y = buffer(2);
  if (!x || !y)
    return unsupported("missing operand");
  Type t = elem(x);
  if (t.isInteger(1) || elem(y) != t)
    return unsupported("numeric input and output of one type expected");
  ArrayRef<int64_t> xs = shape(x);
  int64_t rank = xs.size(), axis = intArg(3);
  bool exclusive = intArg(4), reverse = intArg(5);
  if (rank == 0) {
    body = "  if (blockIdx.x == 0 && threadIdx.x == 0)\n    " + param(2) +
           "[0] = " + (exclusive ? storageCType(t) + "()" : param(1) + "[0]") +
           ";\n";
    finish(32, 1, "cumulative sum of a scalar");
    return success();
  }
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return unsupported("axis " + Twine(intArg(3)) + " out of range for rank " +
                       Twine(rank));
  AxisView v = axisView(xs, axis);
  int64_t slices = v.outer * v.inner;
  std::string I = indexType(product(xs));
  std::string what = "cumulative sum of " + dimsText(xs) + " along axis " +
                     std::to_string(axis);
  std::string flags = std::string(exclusive ? "true" : "false") + ", " +
                      (reverse ? "true" : "false");
  std::string dims = lit(v.outer) + ", " + lit(v.n) + ", " + lit(v.inner);
  if (!isFloat(t) && v.n >= 256 && slices > 0) {
    // Integer sums are exact in any order: a block scans each slice.
    body = "  sc_cumsum_block<" + elemKind(t) + ", " + flags + ", 256, " + I +
           ">(" + param(1) + ", " + param(2) + ", " + dims + ");\n";
    finish(256, std::min(slices, kMaxGrid), what + ", a block per slice");
    return success();
  }
  launchOver(v.n ? slices : 0);
  body = "  sc_cumsum<" + elemKind(t) + ", " + flags + ", " + I + ">(" +
         param(1) + ", " + param(2) + ", " + dims + ");\n";
  finish(blockSize, gridSize, what + ", a thread per slice");
  return success();
}

// sc_trilu(x desc, x, y, upper, k)
LogicalResult CallWriter::trilu() {
  if (failed(expectArgs("oooii")))
    return failure();
  Value x = buffer(1), y = buffer(2);
  if (!x || !y)
    return unsupported("missing operand");
  ArrayRef<int64_t> xs = shape(x);
  if (xs.size() < 2)
    return unsupported("input rank " + Twine(xs.size()) + " is below 2");
  int64_t rows = xs[xs.size() - 2], cols = xs.back(), total = product(xs);
  bool upper = intArg(3);
  std::string word = wordType(elemBytes(elem(x)));
  launchOver(total);
  body = "  sc_trilu<" + word + ", " + (upper ? "true" : "false") + ", " +
         indexType(total) + ">(reinterpret_cast<const " + word + " *>(" +
         param(1) + "), reinterpret_cast<" + word + " *>(" + param(2) + "), " +
         lit(total) + ", " + lit(rows) + ", " + lit(cols) + ", " +
         std::to_string(intArg(4)) + "LL);\n";
  finish(blockSize, gridSize,
         std::string(upper ? "upper" : "lower") + " triangle of " +
             dimsText(xs) + " from diagonal " + std::to_string(intArg(4)));
  return success();
}

//===----------------------------------------------------------------------===//
// pad.cuh
//===----------------------------------------------------------------------===//

// sc_pad(x desc, x, y desc, y, pads, mode, value|0)
LogicalResult CallWriter::pad() {
  if (failed(expectArgs("ooooaio")))
    return failure();
  Value x = buffer(1), y = buffer(3), value = buffer(6);
  if (!x || !y)
    return unsupported("missing operand");
  Type t = elem(x);
  if (elem(y) != t || (value && elem(value) != t))
    return unsupported("input, output and value must have one type");
  int64_t mode = intArg(5);
  if (mode < 0 || mode > 3)
    return unsupported("unknown mode " + Twine(mode));
  ArrayRef<int64_t> xs = shape(x), ys = shape(y);
  int64_t rank = xs.size();
  std::string word = wordType(elemBytes(t));
  std::string xp = "reinterpret_cast<const " + word + " *>(" + param(1) + ")";
  std::string yp = "reinterpret_cast<" + word + " *>(" + param(3) + ")";
  if (rank == 0) {
    body = "  if (blockIdx.x == 0 && threadIdx.x == 0)\n    " + yp +
           "[0] = " + xp + "[0];\n";
    finish(32, 1, "pad of a scalar (a copy)");
    return success();
  }
  ArrayRef<int64_t> pads = args[4].ints;
  if ((int64_t)pads.size() != 2 * rank || (int64_t)ys.size() != rank)
    return unsupported("pads must have 2 * rank entries");
  int64_t total = product(ys);
  SmallVector<int64_t> xstride(rank), padB(rank), cropB(rank), len(rank);
  for (int64_t d = rank - 1, s = 1; d >= 0; --d) {
    xstride[d] = s;
    s *= xs[d];
  }
  for (int64_t d = 0; d < rank; ++d) {
    int64_t pb = pads[d], pe = pads[rank + d];
    cropB[d] = pb < 0 ? -pb : 0;
    int64_t cropE = pe < 0 ? -pe : 0;
    len[d] = xs[d] - cropB[d] - cropE;
    padB[d] = pb > 0 ? pb : 0;
    if (ys[d] != len[d] + padB[d] + (pe > 0 ? pe : 0))
      return unsupported("output dim " + Twine(d) + " is " + Twine(ys[d]) +
                         ", expected " +
                         Twine(len[d] + padB[d] + (pe > 0 ? pe : 0)));
    if (len[d] <= 0 && mode != 0 && total > 0)
      return unsupported("padding an empty dim " + Twine(d) +
                         " by reflection, edge or wrap");
  }
  static const char *const modes[] = {"constant", "reflect", "edge", "wrap"};
  std::string what =
      std::string(modes[mode]) + " pad " + dimsText(xs) + " -> " + dimsText(ys);
  if (total == 0) {
    finish(32, 0, what + " (empty)");
    return success();
  }
  launchOver(total);
  body =
      "  // output dims, x strides, pads before, crops before, kept lengths\n"
      "  const sc_pad_geom<" +
      std::to_string(rank) + "> g = {" + braced(ys) + ", " + braced(xstride) +
      ", " + braced(padB) + ", " + braced(cropB) + ", " + braced(len) + "};\n" +
      "  sc_pad<" + word + ", " + std::to_string(rank) + ", " +
      std::to_string(mode) + ", " + indexType(std::max(total, product(xs))) +
      ">(" + xp + ", " + yp + ", " +
      (value && mode == 0
           ? "reinterpret_cast<const " + word + " *>(" + param(6) + ")"
           : std::string("nullptr")) +
      ", g, " + lit(total) + ");\n";
  finish(blockSize, gridSize, what);
  return success();
}

//===----------------------------------------------------------------------===//
// resize.cuh
//===----------------------------------------------------------------------===//

namespace {
// The per-dim taps of runtime/src/cpu/Resize.cpp, computed here with the
// same double arithmetic (the kernel only applies them).
enum ResizeMode { kNearest = 0, kLinear = 1, kCubic = 2 };
enum ResizeCoord {
  kHalfPixel = 0,
  kAsymmetric = 1,
  kPytorchHalfPixel = 2,
  kAlignCorners = 3,
  kTfHalfPixelForNearest = 4,
  kHalfPixelSymmetric = 5,
};
enum NearestMode {
  kRoundPreferFloor = 0,
  kRoundPreferCeil = 1,
  kFloor = 2,
  kCeil = 3
};

struct ResizeParams {
  int mode, coord, nearest;
  double cubicA;
  bool excludeOutside, antialias;
};
struct Tap {
  int64_t idx;
  double w;
};
struct DimTaps {
  std::vector<int64_t> first;
  std::vector<Tap> taps;
};

double originalCoord(int64_t x, double scale, int64_t in, int64_t outInt,
                     int coord) {
  double outLen = scale * (double)in;
  double xd = (double)x;
  switch (coord) {
  case kAsymmetric:
    return xd / scale;
  case kPytorchHalfPixel:
    return outLen == 1.0 ? -0.5 : (xd + 0.5) / scale - 0.5;
  case kAlignCorners:
    return outLen == 1.0 ? 0.0 : xd * (double)(in - 1) / (outLen - 1.0);
  case kTfHalfPixelForNearest:
    return (xd + 0.5) / scale;
  case kHalfPixelSymmetric: {
    double adjustment = (double)outInt / outLen;
    double center = (double)in / 2.0;
    double offset = center * (1.0 - adjustment);
    return offset + (xd + 0.5) / scale - 0.5;
  }
  case kHalfPixel:
  default:
    return (xd + 0.5) / scale - 0.5;
  }
}

double cubicKernel(double x, double a) {
  x = std::fabs(x);
  if (x <= 1.0)
    return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
  if (x < 2.0)
    return ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a;
  return 0.0;
}

DimTaps makeTaps(int64_t in, int64_t out, double scale, const ResizeParams &p) {
  DimTaps dt;
  dt.first.reserve(out + 1);
  std::vector<double> w;
  for (int64_t o = 0; o < out; ++o) {
    dt.first.push_back((int64_t)dt.taps.size());
    double xo = originalCoord(o, scale, in, out, p.coord);
    double base = std::ceil(xo) - 1.0;
    double ratio = xo - base;
    int64_t b = (int64_t)base;
    int64_t start = 0, n = 0;
    w.clear();
    if (p.mode == kNearest) {
      bool up;
      if (ratio == 1.0)
        up = true;
      else if (p.nearest == kRoundPreferCeil)
        up = ratio >= 0.5;
      else if (p.nearest == kFloor)
        up = false;
      else if (p.nearest == kCeil)
        up = true;
      else
        up = ratio > 0.5;
      int64_t i = std::clamp<int64_t>(b + (up ? 1 : 0), 0, in - 1);
      dt.taps.push_back(Tap{i, 1.0});
      continue;
    }
    double s = p.antialias ? std::min(scale, 1.0) : 1.0;
    if (p.mode == kLinear) {
      start = p.antialias ? (int64_t)std::floor(-1.0 / s) + 1 : 0;
      n = 2 - 2 * start;
      for (int64_t i = 0; i < n; ++i) {
        double arg = ((double)(start + i) - ratio) * s;
        w.push_back(std::clamp(1.0 - std::fabs(arg), 0.0, 1.0));
      }
    } else {
      start = p.antialias ? (int64_t)std::floor(-2.0 / s) + 1 : -1;
      n = 2 - 2 * start;
      for (int64_t i = 0; i < n; ++i)
        w.push_back(cubicKernel(((double)(start + i) - ratio) * s, p.cubicA));
    }
    if (p.antialias) {
      double sum = 0;
      for (double v : w)
        sum += v;
      for (double &v : w)
        v /= sum;
    }
    if (p.excludeOutside) {
      double sum = 0;
      for (int64_t i = 0; i < n; ++i) {
        int64_t idx = b + start + i;
        if (idx < 0 || idx >= in)
          w[i] = 0.0;
        sum += w[i];
      }
      for (double &v : w)
        v /= sum;
    }
    for (int64_t i = 0; i < n; ++i)
      if (w[i] != 0.0)
        dt.taps.push_back(
            Tap{std::clamp<int64_t>(b + start + i, 0, in - 1), w[i]});
  }
  dt.first.push_back((int64_t)dt.taps.size());
  return dt;
}

/// A double literal that reads back as exactly `v`.
std::string exactDouble(double v) {
  if (std::isnan(v))
    return "(double)NAN";
  if (std::isinf(v))
    return v < 0 ? "-(double)INFINITY" : "(double)INFINITY";
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format("%.17g", v);
  os.flush();
  return s;
}
} // namespace

// sc_resize(x desc, x, y desc, y, scales, mode, coord, nearest, cubic_a,
//           exclude_outside, extrapolation_value, antialias)
LogicalResult CallWriter::resize() {
  if (failed(expectArgs("ooooFiiififi")))
    return failure();
  Value x = buffer(1), y = buffer(3);
  if (!x || !y)
    return unsupported("missing operand");
  Type t = elem(x);
  if (t.isInteger(1) || elem(y) != t)
    return unsupported("numeric input and output of one type expected");
  ArrayRef<int64_t> xs = shape(x), ys = shape(y);
  int64_t rank = xs.size();
  if ((int64_t)ys.size() != rank || rank == 0)
    return unsupported("input rank " + Twine(rank) + ", output rank " +
                       Twine(ys.size()));
  int mode = intArg(5), coord = intArg(6), nearest = intArg(7);
  if (mode < kNearest || mode > kCubic || coord < kHalfPixel ||
      coord > kHalfPixelSymmetric || nearest < 0 || nearest > kCeil)
    return unsupported("mode " + Twine(mode) + ", coordinate transform " +
                       Twine(coord) + ", nearest mode " + Twine(nearest));
  std::string what = "resize " + dimsText(xs) + " -> " + dimsText(ys);
  int64_t total = product(ys);
  if (total == 0) {
    finish(32, 0, what + " (empty)");
    return success();
  }
  if (product(xs) == 0)
    return unsupported("an empty input resized to a non-empty output");
  ResizeParams p{mode,           coord,
                 nearest,        (double)(float)args[8].f,
                 intArg(9) != 0, intArg(11) != 0 && mode != kNearest};
  ArrayRef<float> scales = args[4].floats;
  SmallVector<int64_t> xstride(rank);
  for (int64_t d = rank - 1, s = 1; d >= 0; --d) {
    xstride[d] = s;
    s *= xs[d];
  }
  // Tables: first (per dim, out + 1 entries into the tap arrays), the taps'
  // offsets (input coordinate * stride) and weights.
  std::string first, offs, wts;
  SmallVector<int64_t> bases;
  int64_t numFirst = 0, numTaps = 0;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t in = xs[d], out = ys[d];
    double s = (size_t)d < scales.size() ? (double)scales[d] : 0.0;
    if (!(s > 0.0) || std::fabs(s * (double)in - (double)out) <=
                          1e-6 * std::max<double>((double)out, 1.0))
      s = (double)out / (double)in;
    DimTaps dt = makeTaps(in, out, s, p);
    bases.push_back(numFirst);
    for (int64_t f : dt.first) {
      first += (numFirst++ % 16 ? ", " : (numFirst > 1 ? ",\n  " : "  ")) +
               std::to_string(f + numTaps);
    }
    for (const Tap &tap : dt.taps) {
      offs += (numTaps % 8 ? ", " : (numTaps ? ",\n  " : "  ")) +
              lit(tap.idx * xstride[d]);
      wts += (numTaps % 4 ? ", " : (numTaps ? ",\n  " : "  ")) +
             exactDouble(tap.w);
      ++numTaps;
    }
  }
  if (numTaps >= std::numeric_limits<int32_t>::max())
    return unsupported("too many interpolation taps");
  decls = "// taps of " + name +
          " (resize.cuh)\n"
          "static __device__ const int " +
          name + "_first[] = {\n" + first +
          "};\n"
          "static __device__ const int64_t " +
          name + "_off[] = {\n" + offs +
          "};\n"
          "static __device__ const double " +
          name + "_w[] = {\n" + wts + "};\n";
  static const char *const modes[] = {"nearest", "linear", "cubic"};
  std::string I = indexType(std::max(total, product(xs)));
  launchOver(total);
  body = "  const sc_resize_geom<" + std::to_string(rank) + "> g = {" +
         braced(ys) + ", " + braced(bases) + "};\n" + "  sc_resize<" +
         elemKind(t) + ", " + std::to_string(rank) + ", " +
         (mode == kNearest ? "true" : "false") + ", " + I + ">(" + param(1) +
         ", " + param(3) + ", g, " + name + "_first, " + name + "_off, " +
         name + "_w, " + lit(total) + ");\n";
  finish(blockSize, gridSize,
         what + " (" + modes[mode] + "), " + std::to_string(numTaps) + " taps");
  return success();
}

//===----------------------------------------------------------------------===//
// matmul.cuh
//===----------------------------------------------------------------------===//

namespace {
/// numpy matmul shapes (runtime/src/cpu/MatMulRef.cpp: mmShape).
struct MMShape {
  int64_t M = 1, K = 1, N = 1, batch = 1, aBatches = 1, bBatches = 1;
  SmallVector<int64_t> od, astr, bstr;
};
} // namespace

static std::optional<std::string> mmShape(ArrayRef<int64_t> a,
                                          ArrayRef<int64_t> b,
                                          ArrayRef<int64_t> y, MMShape &s) {
  if (a.empty() || b.empty())
    return "operands of rank " + std::to_string(a.size()) + " and " +
           std::to_string(b.size());
  int64_t ka, kb;
  if (a.size() == 1) {
    s.M = 1;
    ka = a[0];
  } else {
    s.M = a[a.size() - 2];
    ka = a.back();
  }
  if (b.size() == 1) {
    s.N = 1;
    kb = b[0];
  } else {
    kb = b[b.size() - 2];
    s.N = b.back();
  }
  if (ka != kb)
    return "inner dimensions " + std::to_string(ka) + " and " +
           std::to_string(kb) + " differ";
  s.K = ka;
  int ra = std::max<int>(a.size() - 2, 0), rb = std::max<int>(b.size() - 2, 0);
  int rr = std::max(ra, rb);
  SmallVector<int64_t> ad(rr, 1), bd(rr, 1);
  for (int i = 0; i < ra; ++i)
    ad[rr - ra + i] = a[i];
  for (int i = 0; i < rb; ++i)
    bd[rr - rb + i] = b[i];
  s.od.assign(rr, 0);
  for (int i = 0; i < rr; ++i) {
    if (ad[i] != bd[i] && ad[i] != 1 && bd[i] != 1)
      return "batch dimensions " + std::to_string(ad[i]) + " and " +
             std::to_string(bd[i]) + " do not broadcast";
    s.od[i] = std::max(ad[i], bd[i]);
    if (ad[i] == 0 || bd[i] == 0)
      s.od[i] = 0;
    s.batch *= s.od[i];
    s.aBatches *= ad[i];
    s.bBatches *= bd[i];
  }
  if (product(y) != s.batch * s.M * s.N)
    return "the output has " + std::to_string(product(y)) +
           " elements, expected " + std::to_string(s.batch * s.M * s.N);
  s.astr.assign(rr, 0);
  s.bstr.assign(rr, 0);
  for (int64_t i = rr - 1, as = 1, bs = 1; i >= 0; --i) {
    s.astr[i] = ad[i] == 1 ? 0 : as;
    s.bstr[i] = bd[i] == 1 ? 0 : bs;
    as *= ad[i];
    bs *= bd[i];
  }
  return std::nullopt;
}

static std::string mmGeom(const MMShape &s) {
  return "  // per batch dim: size, a's and b's matrix strides\n"
         "  const sc_mm_geom<" +
         std::to_string(s.od.size()) + "> g = {" + braced(s.od) + ", " +
         braced(s.astr) + ", " + braced(s.bstr) + "};\n";
}

static std::string mmDims(const MMShape &s) {
  return lit(s.batch) + ", " + lit(s.M) + ", " + lit(s.K) + ", " + lit(s.N);
}

static int64_t mmGrid(const MMShape &s) {
  return std::min(s.batch * ceilDiv(s.M, 16) * ceilDiv(s.N, 16), kMaxGrid);
}

// sc_matmul_ref(a desc, a, b desc, b, y desc, y)
LogicalResult CallWriter::matmulRef() {
  if (failed(expectArgs("oooooo")))
    return failure();
  Value a = buffer(1), b = buffer(3), y = buffer(5);
  if (!a || !b || !y)
    return unsupported("missing operand");
  Type t = elem(a);
  if (elem(b) != t || elem(y) != t || t.isInteger(1))
    return unsupported("numeric operands and output of one type expected");
  MMShape s;
  if (auto err = mmShape(shape(a), shape(b), shape(y), s))
    return unsupported(*err);
  body = mmGeom(s) + "  sc_matmul_ref<" + elemKind(t) + ", " +
         std::to_string(s.od.size()) + ">(" + param(1) + ", " + param(3) +
         ", " + param(5) + ", g, " + mmDims(s) + ");\n";
  finish(256, mmGrid(s),
         "matmul " + dimsText(shape(a)) + " x " + dimsText(shape(b)) +
             ", 16x16 tiles");
  return success();
}

/// The mode of a zero point or scale (matmul.cuh: sc_per_index): 0 absent,
/// 1 one value, 2 one per index, 3 one per index of every matrix.
static std::optional<int> perMode(Value v, int64_t per, int64_t matrices) {
  if (!v)
    return 0;
  int64_t n = product(cast<MemRefType>(v.getType()).getShape());
  if (n == 1)
    return 1;
  if (n == per)
    return 2;
  if (n == per * matrices)
    return 3;
  return std::nullopt;
}

static bool isInt8(Type t) { return t.isInteger(8); }

// sc_matmul_integer(a desc, a, b desc, b, azp desc, azp, bzp desc, bzp,
//                   y desc, y)
LogicalResult CallWriter::matmulInteger() {
  if (failed(expectArgs("oooooooooo")))
    return failure();
  Value a = buffer(1), b = buffer(3), az = buffer(5), bz = buffer(7),
        y = buffer(9);
  if (!a || !b || !y)
    return unsupported("missing operand");
  if (!isInt8(elem(a)) || !isInt8(elem(b)) || (az && !isInt8(elem(az))) ||
      (bz && !isInt8(elem(bz))) || !elem(y).isInteger(32))
    return unsupported("operands and zero points must be int8 or uint8, the "
                       "output int32");
  MMShape s;
  if (auto err = mmShape(shape(a), shape(b), shape(y), s))
    return unsupported(*err);
  auto am = perMode(az, s.M, s.aBatches), bm = perMode(bz, s.N, s.bBatches);
  if (!am || !bm)
    return unsupported("zero points must have 1, one per row (column) or one "
                       "per row (column) of every matrix");
  auto ty = [&](Value v) { return v ? storageCType(elem(v)) : "uint8_t"; };
  body = mmGeom(s) + "  sc_matmul_integer<" + ty(a) + ", " + ty(az) + ", " +
         std::to_string(*am) + ", " + ty(b) + ", " + ty(bz) + ", " +
         std::to_string(*bm) + ", " + std::to_string(s.od.size()) + ">(" +
         param(1) + ", " + param(3) + ", " + param(5) + ", " + param(7) + ", " +
         param(9) + ", g, " + mmDims(s) + ");\n";
  finish(256, mmGrid(s),
         "integer matmul " + dimsText(shape(a)) + " x " + dimsText(shape(b)) +
             ", 16x16 tiles");
  return success();
}

// sc_qlinear_matmul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp, y),
// each as (desc, pointer)
LogicalResult CallWriter::qlinearMatmul() {
  if (failed(expectArgs("oooooooooooooooooo")))
    return failure();
  Value a = buffer(1), as = buffer(3), az = buffer(5), b = buffer(7),
        bs = buffer(9), bz = buffer(11), ys = buffer(13), yz = buffer(15),
        y = buffer(17);
  if (!a || !b || !y)
    return unsupported("missing operand");
  if (!as || !bs || !ys)
    return unsupported("missing scale");
  if (!isInt8(elem(a)) || !isInt8(elem(b)) || !isInt8(elem(y)) ||
      (az && !isInt8(elem(az))) || (bz && !isInt8(elem(bz))) ||
      (yz && elem(yz) != elem(y)))
    return unsupported("a, b, y and the zero points must be int8 or uint8");
  for (Value sc : {as, bs, ys})
    if (!isFloat(elem(sc)))
      return unsupported("scales must be floating-point");
  MMShape s;
  if (auto err = mmShape(shape(a), shape(b), shape(y), s))
    return unsupported(*err);
  auto azm = perMode(az, s.M, s.aBatches), bzm = perMode(bz, s.N, s.bBatches),
       asm_ = perMode(as, s.M, s.aBatches), bsm = perMode(bs, s.N, s.bBatches),
       ysm = perMode(ys, s.M, s.batch), yzm = perMode(yz, s.M, s.batch);
  if (!azm || !bzm || !asm_ || !bsm || !ysm || !yzm)
    return unsupported("scales and zero points must have 1, one per row "
                       "(column) or one per row (column) of every matrix");
  auto ty = [&](Value v) { return v ? storageCType(elem(v)) : "uint8_t"; };
  auto n = [](std::optional<int> m) { return std::to_string(*m); };
  body = mmGeom(s) + "  sc_qlinear_matmul<" + ty(a) + ", " + ty(az) + ", " +
         n(azm) + ", " + elemKind(elem(as)) + ", " + n(asm_) + ", " + ty(b) +
         ", " + ty(bz) + ", " + n(bzm) + ", " + elemKind(elem(bs)) + ", " +
         n(bsm) + ", " + elemKind(elem(ys)) + ", " + n(ysm) + ", " + ty(y) +
         ", " + n(yzm) + ", " + std::to_string(s.od.size()) + ">(" + param(1) +
         ", " + param(3) + ", " + param(5) + ", " + param(7) + ", " + param(9) +
         ", " + param(11) + ", " + param(13) + ", " + param(15) + ", " +
         param(17) + ", g, " + mmDims(s) + ");\n";
  finish(256, mmGrid(s),
         "quantized matmul " + dimsText(shape(a)) + " x " + dimsText(shape(b)) +
             ", 16x16 tiles");
  return success();
}

//===----------------------------------------------------------------------===//
// attention.cuh
//===----------------------------------------------------------------------===//

// sc_attention(dtype, nb, dims, q, q layout, k, k layout, v, v layout,
//              mask | null, mask layout | null, y, y layout, scale, causal)
LogicalResult CallWriter::attention() {
  bool hasMask = args.size() > 9 && args[9].kind == Arg::Operand;
  if (failed(expectArgs(hasMask ? "iiaoaoaoaoaoafi" : "iiaoaoaoaoooafi")))
    return failure();
  Value q = buffer(3), k = buffer(5), v = buffer(7), m = buffer(9),
        y = buffer(11);
  if (!q || !k || !v || !y)
    return unsupported("missing operand");
  Type t = elem(q);
  if (!isFloat(t) || elem(k) != t || elem(v) != t || elem(y) != t ||
      (m && elem(m) != t))
    return unsupported("q, k, v, mask and y must have one floating-point "
                       "type");
  int64_t nb = intArg(1);
  ArrayRef<int64_t> dims = args[2].ints;
  if (nb < 0 || nb > 8 || (int64_t)dims.size() != nb + 4)
    return unsupported("bad dims for " + Twine(nb) + " batch dims");
  for (unsigned a : {4u, 6u, 8u, 12u})
    if ((int64_t)args[a].ints.size() != nb + 3)
      return unsupported("bad operand layout");
  if (m && (int64_t)args[10].ints.size() != nb + 3)
    return unsupported("bad mask layout");
  int64_t batch = product(dims.take_front(nb)), S = dims[nb], T = dims[nb + 1],
          D = dims[nb + 2], E = dims[nb + 3];
  if (D < 1 || E < 1)
    return unsupported("empty head dims");
  // Tiles: the smallest that cover S and T, shrunk (keys first, down to
  // 16) until the static shared memory fits in 48 KiB.
  int64_t a = elemBytes(t) == 8 ? 8 : 4;
  auto bytes = [&](int64_t bq, int64_t bk) {
    return a * (bq * (D + 1) + bk * (D + 1) + bk * E + bq * (bk + 1) + 3 * bq);
  };
  int64_t BQ = 16, BK = 8;
  while (BQ < 64 && BQ < S)
    BQ *= 2;
  while (BK < 64 && BK < T)
    BK *= 2;
  while (bytes(BQ, BK) > 48 * 1024) {
    if (BK > 16)
      BK /= 2;
    else if (BQ > 16)
      BQ /= 2;
    else if (BK > 8)
      BK /= 2;
    else
      return unsupported("head dims " + Twine(D) + " and " + Twine(E) +
                         " do not fit the shared-memory tiles");
  }
  std::string geom = "  // batch dims; q, k, v, mask, y: [offset, batch "
                     "strides, row stride, column stride]\n"
                     "  const sc_attn_geom<" +
                     std::to_string(nb) + "> g = {" + braced(dims.take_front(nb)) +
                     ", " + braced(args[4].ints) + ", " + braced(args[6].ints) +
                     ", " + braced(args[8].ints) + ", " +
                     braced(m ? ArrayRef<int64_t>(args[10].ints)
                              : ArrayRef<int64_t>()) +
                     ", " + braced(args[12].ints) + "};\n";
  bool causal = intArg(14) != 0;
  body = geom + "  sc_attention<" + elemKind(t) + ", " + std::to_string(nb) +
         ", " + lit(D) + ", " + lit(E) + ", " + lit(BQ) + ", " + lit(BK) +
         ", " + (m ? "true" : "false") + ", " + (causal ? "true" : "false") +
         ">(" + param(3) + ", " + param(5) + ", " + param(7) + ", " +
         param(9) + ", " + param(11) + ", g, " + lit(batch) + ", " + lit(S) +
         ", " + lit(T) + ", " +
         floatLiteral(args[13].f, Float32Type::get(op.getContext())) + ");\n";
  int64_t tiles = batch * ceilDiv(S, BQ);
  finish(128, std::max<int64_t>(1, std::min(tiles, kMaxGrid)),
         "attention of " + std::to_string(batch) + " x [" + std::to_string(S) +
             ", " + std::to_string(D) + "] queries over " + std::to_string(T) +
             " keys, " + std::to_string(E) + " values" +
             (causal ? ", causal" : "") + (m ? ", masked" : "") + "; " +
             std::to_string(BQ) + "-query tiles, " + std::to_string(BK) +
             "-key steps");
  return success();
}

FailureOr<cuda::Kernel> cuda::emitCallKernel(kern::CallOp op, StringRef name) {
  return CallWriter(op, name).write();
}
