//===- EmitCalls.cpp - runtime kernel calls in the CPU code ----------------===//
//
// Any op with RuntimeCallOpInterface (kern.softmax, kern.gather, ...)
// becomes one statement of run():
//   sc_softmax(&d0, ((const float *)in[0]), ((float *)out[0]), 1LL, 0);
// in the order and with the arguments the op lists: descriptors are shared
// file-scope sc_desc constants, arrays static constants, and lists of
// descriptors or pointers local arrays in a block around the call.
//
//===----------------------------------------------------------------------===//

#include "lib/Target/Common/ScalarEmitter.h"
#include "lib/Target/Cpp/CppEmitter.h"

using namespace mlir;
using namespace shardc;
using namespace shardc::target;

static std::string cString(StringRef s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

LogicalResult CppEmitter::emitRuntimeCall(kern::RuntimeCallOpInterface call) {
  using Kind = kern::RuntimeArg::Kind;
  Operation *op = call;
  Type f32 = Float32Type::get(op->getContext());
  SmallVector<kern::RuntimeArg> list;
  call.getRuntimeArgs(list);
  std::string pre;
  SmallVector<std::string> args;
  for (const kern::RuntimeArg &a : list) {
    Value buffer = a.buffers.empty() ? Value() : a.buffers.front();
    switch (a.kind) {
    case Kind::Desc: {
      if (!buffer) {
        args.push_back("0");
        break;
      }
      FailureOr<std::string> d = desc(op, buffer);
      if (failed(d))
        return failure();
      args.push_back(*d);
      break;
    }
    case Kind::Ptr:
      args.push_back(buffer ? ptr(buffer) : std::string("0"));
      break;
    case Kind::DType: {
      Type elem = cast<MemRefType>(buffer.getType()).getElementType();
      int dtype = onnxDType(elem);
      if (dtype < 0)
        return op->emitError("the runtime has no dtype for ") << elem;
      args.push_back(std::to_string(dtype));
      break;
    }
    case Kind::DescList:
    case Kind::PtrList: {
      bool descs = a.kind == Kind::DescList;
      std::string items;
      for (auto [i, v] : llvm::enumerate(a.buffers)) {
        if (!descs) {
          items += (i ? ", " : "") + std::string("(const void *)") + ptr(v);
          continue;
        }
        FailureOr<std::string> d = desc(op, v);
        if (failed(d))
          return failure();
        items += (i ? ", " : "") + *d;
      }
      std::string name = descs ? "dl" : "pl";
      pre += std::string("    ") +
             (descs ? "const sc_desc *const " : "const void *const ") + name +
             "[] = {" + items + "};\n";
      args.push_back(name);
      break;
    }
    case Kind::I32:
      args.push_back(std::to_string(a.integer));
      break;
    case Kind::I64:
      args.push_back(std::to_string(a.integer) + "LL");
      break;
    case Kind::F32:
      args.push_back(floatLiteral(a.real, f32));
      break;
    case Kind::I64Array: {
      // A symbolic mirror (dynamic dims): a local array of this run's
      // values.
      SmallVector<sym::Expr> values;
      if (!a.text.empty() && op->hasAttr(kern::kSymAttr))
        values = kern::symArray(op, a.text);
      if (!kern::isSymbolic(values)) {
        args.push_back(i64Array(a.integers));
        break;
      }
      std::string name = "da" + std::to_string(args.size()), items;
      for (auto [k, v] : llvm::enumerate(values))
        items += (k ? ", " : "") + v.str();
      pre += "    const int64_t " + name + "[] = {" + items + "};\n";
      args.push_back(name);
      break;
    }
    case Kind::F32Array: {
      std::string items;
      for (auto [k, x] : llvm::enumerate(a.reals))
        items += (k ? ", " : "") + floatLiteral(x, f32);
      args.push_back(constArray("float", items));
      break;
    }
    case Kind::String:
      args.push_back(cString(a.text));
      break;
    }
  }
  ++artifacts.numLibraryCalls;
  std::string text = call.getRuntimeCallee().str() + "(" +
                     llvm::join(args, ", ") + ");\n";
  if (pre.empty())
    run += "  " + text;
  else
    run += "  {\n" + pre + "    " + text + "  }\n";
  return success();
}
