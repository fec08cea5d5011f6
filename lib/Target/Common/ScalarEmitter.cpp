//===- ScalarEmitter.cpp - C expressions for kernel bodies -----------------===//

#include "lib/Target/Common/ScalarEmitter.h"

#include "dialects/Kern/IR/KernOps.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"

#include <cmath>

using namespace mlir;
using namespace shardc;

static bool isHalf(Type t) { return t.isF16() || t.isBF16(); }

std::string target::scalarCType(Type t) {
  if (t.isF32() || isHalf(t))
    return "float";
  if (t.isF64())
    return "double";
  if (t.isInteger(1))
    return "bool";
  return "int" + std::to_string(t.getIntOrFloatBitWidth()) + "_t";
}

std::string target::storageCType(Type elem) {
  if (elem.isF32())
    return "float";
  if (elem.isF64())
    return "double";
  if (isHalf(elem))
    return "uint16_t";
  auto it = cast<IntegerType>(elem);
  if (it.getWidth() == 1)
    return "uint8_t";
  return std::string(it.isUnsigned() ? "uint" : "int") +
         std::to_string(it.getWidth()) + "_t";
}

int target::onnxDType(Type elem) {
  if (elem.isF32()) return 1;
  if (elem.isF64()) return 11;
  if (elem.isF16()) return 10;
  if (elem.isBF16()) return 16;
  auto it = dyn_cast<IntegerType>(elem);
  if (!it)
    return -1;
  bool u = it.isUnsigned();
  switch (it.getWidth()) {
  case 1: return 9;
  case 8: return u ? 2 : 3;
  case 16: return u ? 4 : 5;
  case 32: return u ? 12 : 6;
  case 64: return u ? 13 : 7;
  default: return -1;
  }
}

std::string target::loadExpr(Type elem, const std::string &ref) {
  if (elem.isF16())
    return "sc_h2f(" + ref + ")";
  if (elem.isBF16())
    return "sc_bf2f(" + ref + ")";
  if (elem.isInteger(1))
    return "(" + ref + " != 0)";
  if (auto it = dyn_cast<IntegerType>(elem); it && it.isUnsigned())
    return "(" + scalarCType(kern::bodyType(elem)) + ")" + ref;
  return ref;
}

std::string target::storeExpr(Type elem, const std::string &value) {
  if (elem.isF16())
    return "sc_f2h(" + value + ")";
  if (elem.isBF16())
    return "sc_f2bf(" + value + ")";
  if (isa<IntegerType>(elem))
    return "(" + storageCType(elem) + ")(" + value + ")";
  return value;
}

std::string target::floatLiteral(double v, Type t) {
  bool isDouble = t.isF64();
  if (std::isnan(v))
    return isDouble ? "(double)NAN" : "NAN";
  if (std::isinf(v))
    return std::string(v < 0 ? "-" : "") + (isDouble ? "(double)INFINITY" : "INFINITY");
  std::string s;
  llvm::raw_string_ostream os(s);
  if (isDouble)
    os << llvm::format("%.17g", v);
  else
    os << llvm::format("%.9g", v);
  os.flush();
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return isDouble ? s : s + "f";
}

target::ReduceForm target::reduceForm(StringRef kind, Type elem) {
  Type bodyT = kern::bodyType(elem);
  std::string acc = scalarCType(bodyT);
  bool isUnsigned = isa<IntegerType>(elem) && cast<IntegerType>(elem).isUnsigned();
  unsigned width = bodyT.getIntOrFloatBitWidth();
  std::string init;
  if (kind == "sum" || kind == "mean")
    init = "0";
  else if (kind == "prod")
    init = "1";
  else if (elem.isInteger(1))
    init = kind == "max" ? "false" : "true";
  else if (isa<FloatType>(bodyT))
    init = kind == "max" ? "-INFINITY" : "INFINITY";
  else if (isUnsigned)
    init = kind == "max" ? "0" : "(" + acc + ")-1";
  else if (kind == "max") // the most negative value
    init = "(" + acc + ")(1ULL << " + std::to_string(width - 1) + ")";
  else
    init = "(" + acc + ")((1ULL << " + std::to_string(width - 1) + ") - 1)";
  return {acc, init};
}

std::string target::reduceCombine(StringRef kind, Type elem,
                                  const std::string &acc,
                                  const std::string &v) {
  if (kind == "sum" || kind == "mean")
    return "(" + acc + " + " + v + ")";
  if (kind == "prod")
    return "(" + acc + " * " + v + ")";
  Type bodyT = kern::bodyType(elem);
  std::string cmp = kind == "max" ? ">" : "<";
  std::string lhs = v, rhs = acc;
  if (isa<IntegerType>(elem) && cast<IntegerType>(elem).isUnsigned()) {
    std::string u = "uint" + std::to_string(bodyT.getIntOrFloatBitWidth()) + "_t";
    lhs = "(" + u + ")" + v;
    rhs = "(" + u + ")" + acc;
  }
  return "((" + lhs + " " + cmp + " " + rhs +
         (isa<FloatType>(bodyT) ? " || " + v + " != " + v : std::string()) +
         ") ? " + v + " : " + acc + ")";
}

namespace {

/// Prints one op; returns the C expression of its result ("" if none).
class Printer {
public:
  Printer(DenseMap<Value, std::string> &names,
          const std::function<std::string(int64_t)> &indexName)
      : names(names), indexName(indexName) {}

  FailureOr<std::string> expr(Operation *op);

private:
  std::string v(Value x) { return names.lookup(x); }
  static std::string ctype(Value x) { return target::scalarCType(x.getType()); }
  static std::string utype(Value x) {
    return "uint" + std::to_string(x.getType().getIntOrFloatBitWidth()) + "_t";
  }
  static bool isF64(Value x) { return x.getType().isF64(); }
  /// A call of the float or double libm function.
  std::string libm(StringRef name, Operation *op) {
    std::string s = name.str() + (isF64(op->getResult(0)) ? "(" : "f(");
    for (auto [i, operand] : llvm::enumerate(op->getOperands()))
      s += (i ? ", " : "") + v(operand);
    return s + ")";
  }
  std::string nanToZero(Value x) {
    return "(" + v(x) + " == " + v(x) + " ? " + v(x) + " : 0)";
  }
  std::string binary(Operation *op, StringRef sym) {
    return "(" + v(op->getOperand(0)) + " " + sym.str() + " " +
           v(op->getOperand(1)) + ")";
  }
  /// Wrapping integer arithmetic through the unsigned type.
  std::string wrapping(Operation *op, StringRef sym) {
    Value r = op->getResult(0);
    if (r.getType().isInteger(1))
      return binary(op, sym);
    return "(" + ctype(r) + ")((" + utype(r) + ")" + v(op->getOperand(0)) +
           " " + sym.str() + " (" + utype(r) + ")" + v(op->getOperand(1)) + ")";
  }
  std::string unsignedBinary(Operation *op, StringRef sym) {
    Value a = op->getOperand(0);
    return "((" + utype(a) + ")" + v(a) + " " + sym.str() + " (" + utype(a) +
           ")" + v(op->getOperand(1)) + ")";
  }
  /// Integer division and remainder that cannot trap: a zero divisor gives
  /// 0 and INT_MIN / -1 wraps to INT_MIN (remainder 0), where C++ (and the
  /// CPU) would raise SIGFPE. ONNX leaves both undefined; ONNX Runtime dies
  /// of the signal. With a constant divisor (index arithmetic) the checks
  /// fold away.
  std::string safeDivision(Operation *op, StringRef sym, bool isSigned) {
    Value r = op->getResult(0);
    std::string a = v(op->getOperand(0)), b = v(op->getOperand(1));
    std::string t = ctype(r);
    std::string quotient =
        isSigned ? "(" + t + ")(" + a + " " + sym.str() + " " + b + ")"
                 : "(" + t + ")" + unsignedBinary(op, sym);
    std::string minusOne =
        !isSigned ? ""
        : sym == "/"
            ? b + " == (" + t + ")-1 ? (" + t + ")(0 - (" + utype(r) + ")" +
                  a + ") : "
            : b + " == (" + t + ")-1 ? (" + t + ")0 : ";
    return "(" + b + " == 0 ? (" + t + ")0 : " + minusOne + quotient + ")";
  }
  /// Rounds a float expression to the precision of `t` (fp16, bf16).
  static std::string roundTo(Type t, const std::string &e) {
    if (t.isF16())
      return "sc_h2f(sc_f2h(" + e + "))";
    if (t.isBF16())
      return "sc_bf2f(sc_f2bf(" + e + "))";
    return e;
  }

  DenseMap<Value, std::string> &names;
  const std::function<std::string(int64_t)> &indexName;
};

FailureOr<std::string> Printer::expr(Operation *op) {
  using llvm::TypeSwitch;
  return TypeSwitch<Operation *, FailureOr<std::string>>(op)
      .Case([&](arith::ConstantOp c) -> FailureOr<std::string> {
        Attribute a = c.getValue();
        if (auto f = dyn_cast<FloatAttr>(a))
          return target::floatLiteral(f.getValueAsDouble(), f.getType());
        if (auto i = dyn_cast<IntegerAttr>(a)) {
          if (i.getType().isInteger(1))
            return std::string(i.getValue().isZero() ? "false" : "true");
          int64_t x = i.getValue().getSExtValue();
          if (x == INT64_MIN)
            return std::string("(" + ctype(c) + ")INT64_MIN");
          return "(" + ctype(c) + ")" + std::to_string(x) + "LL";
        }
        return failure();
      })
      .Case([&](arith::AddFOp o) { return roundTo(o.getType(), binary(o, "+")); })
      .Case([&](arith::SubFOp o) { return roundTo(o.getType(), binary(o, "-")); })
      .Case([&](arith::MulFOp o) { return roundTo(o.getType(), binary(o, "*")); })
      .Case([&](arith::DivFOp o) { return roundTo(o.getType(), binary(o, "/")); })
      .Case([&](arith::NegFOp o) { return "(-" + v(o.getOperand()) + ")"; })
      .Case([&](arith::AddIOp o) { return wrapping(o, "+"); })
      .Case([&](arith::SubIOp o) { return wrapping(o, "-"); })
      .Case([&](arith::MulIOp o) { return wrapping(o, "*"); })
      .Case([&](arith::DivSIOp o) { return safeDivision(o, "/", true); })
      .Case([&](arith::RemSIOp o) { return safeDivision(o, "%", true); })
      .Case([&](arith::DivUIOp o) { return safeDivision(o, "/", false); })
      .Case([&](arith::AndIOp o) { return "(" + ctype(o) + ")" + binary(o, "&"); })
      .Case([&](arith::OrIOp o) { return "(" + ctype(o) + ")" + binary(o, "|"); })
      .Case([&](arith::XOrIOp o) { return "(" + ctype(o) + ")" + binary(o, "^"); })
      .Case([&](arith::MaximumFOp o) {
        std::string a = v(o.getLhs()), b = v(o.getRhs());
        return "((" + a + " > " + b + " || " + a + " != " + a + ") ? " + a +
               " : " + b + ")";
      })
      .Case([&](arith::MinimumFOp o) {
        std::string a = v(o.getLhs()), b = v(o.getRhs());
        return "((" + a + " < " + b + " || " + a + " != " + a + ") ? " + a +
               " : " + b + ")";
      })
      .Case([&](arith::MaxSIOp o) {
        std::string a = v(o.getLhs()), b = v(o.getRhs());
        return "(" + a + " > " + b + " ? " + a + " : " + b + ")";
      })
      .Case([&](arith::MinSIOp o) {
        std::string a = v(o.getLhs()), b = v(o.getRhs());
        return "(" + a + " < " + b + " ? " + a + " : " + b + ")";
      })
      .Case([&](arith::MaxUIOp o) {
        std::string a = v(o.getLhs()), b = v(o.getRhs());
        return "(" + unsignedBinary(o, ">") + " ? " + a + " : " + b + ")";
      })
      .Case([&](arith::MinUIOp o) {
        std::string a = v(o.getLhs()), b = v(o.getRhs());
        return "(" + unsignedBinary(o, "<") + " ? " + a + " : " + b + ")";
      })
      .Case([&](arith::CmpFOp o) -> FailureOr<std::string> {
        using P = arith::CmpFPredicate;
        switch (o.getPredicate()) {
        case P::OEQ: return binary(o, "==");
        case P::OLT: return binary(o, "<");
        case P::OGT: return binary(o, ">");
        case P::OLE: return binary(o, "<=");
        case P::OGE: return binary(o, ">=");
        case P::UNE: return binary(o, "!=");
        default: return failure();
        }
      })
      .Case([&](arith::CmpIOp o) -> FailureOr<std::string> {
        using P = arith::CmpIPredicate;
        switch (o.getPredicate()) {
        case P::eq: return binary(o, "==");
        case P::ne: return binary(o, "!=");
        case P::slt: return binary(o, "<");
        case P::sle: return binary(o, "<=");
        case P::sgt: return binary(o, ">");
        case P::sge: return binary(o, ">=");
        case P::ult: return unsignedBinary(o, "<");
        case P::ule: return unsignedBinary(o, "<=");
        case P::ugt: return unsignedBinary(o, ">");
        case P::uge: return unsignedBinary(o, ">=");
        }
        return failure();
      })
      .Case([&](arith::SelectOp o) {
        return "(" + v(o.getCondition()) + " ? " + v(o.getTrueValue()) +
               " : " + v(o.getFalseValue()) + ")";
      })
      .Case([&](arith::ExtFOp o) {
        return "(" + ctype(o) + ")" + v(o.getIn());
      })
      .Case([&](arith::TruncFOp o) {
        return roundTo(o.getType(), "(" + ctype(o) + ")" + v(o.getIn()));
      })
      .Case([&](arith::SIToFPOp o) {
        return roundTo(o.getType(), "(" + ctype(o) + ")" + v(o.getIn()));
      })
      .Case([&](arith::UIToFPOp o) {
        Value in = o.getIn();
        std::string src = in.getType().isInteger(1)
                              ? v(in)
                              : "(" + utype(in) + ")" + v(in);
        return roundTo(o.getType(), "(" + ctype(o) + ")" + src);
      })
      // NaN converts to 0 (what x86's scalar conversion leaves in the low
      // bits, and what ONNX Runtime gives). C++ leaves it undefined, and
      // GCC, without trapping math, folds a float -> int -> float round
      // trip into trunc(), which would let the NaN through.
      .Case([&](arith::FPToSIOp o) {
        return "(" + ctype(o) + ")" + nanToZero(o.getIn());
      })
      .Case([&](arith::FPToUIOp o) {
        return "(" + ctype(o) + ")(" + utype(o) + ")" + nanToZero(o.getIn());
      })
      .Case([&](arith::ExtSIOp o) { return "(" + ctype(o) + ")" + v(o.getIn()); })
      .Case([&](arith::ExtUIOp o) {
        Value in = o.getIn();
        if (in.getType().isInteger(1))
          return "(" + ctype(o) + ")" + v(in);
        return "(" + ctype(o) + ")(" + utype(in) + ")" + v(in);
      })
      .Case([&](arith::TruncIOp o) {
        if (o.getType().isInteger(1))
          return "((" + v(o.getIn()) + " & 1) != 0)";
        return "(" + ctype(o) + ")" + v(o.getIn());
      })
      .Case([&](math::ExpOp o) { return roundTo(o.getType(), libm("exp", o)); })
      .Case([&](math::LogOp o) { return roundTo(o.getType(), libm("log", o)); })
      .Case([&](math::SqrtOp o) { return roundTo(o.getType(), libm("sqrt", o)); })
      .Case([&](math::TanhOp o) { return roundTo(o.getType(), libm("tanh", o)); })
      .Case([&](math::ErfOp o) { return roundTo(o.getType(), libm("erf", o)); })
      .Case([&](math::CosOp o) { return roundTo(o.getType(), libm("cos", o)); })
      .Case([&](math::SinOp o) { return roundTo(o.getType(), libm("sin", o)); })
      .Case([&](math::PowFOp o) { return roundTo(o.getType(), libm("pow", o)); })
      .Case([&](math::AbsFOp o) { return libm("fabs", o); })
      .Case([&](math::RoundEvenOp o) { return libm("nearbyint", o); })
      .Case([&](math::FloorOp o) { return libm("floor", o); })
      .Case([&](math::CeilOp o) { return libm("ceil", o); })
      .Case([&](math::AbsIOp o) {
        std::string a = v(o.getOperand());
        return "(" + ctype(o) + ")(" + a + " < 0 ? -" + a + " : " + a + ")";
      })
      .Case([&](kern::IndexOp o) {
        return "(int64_t)" + indexName(o.getDim());
      })
      .Default([](Operation *) { return failure(); });
}

} // namespace

LogicalResult target::emitScalarOps(
    Block &body, DenseMap<Value, std::string> &names, raw_ostream &os,
    StringRef indent, const std::function<std::string(int64_t)> &indexName,
    unsigned &counter) {
  Printer printer(names, indexName);
  for (Operation &op : body.without_terminator()) {
    FailureOr<std::string> e = printer.expr(&op);
    if (failed(e) || op.getNumResults() != 1)
      return op.emitError("the C++ target cannot print '")
             << op.getName() << "' in a kernel body";
    std::string name = "v" + std::to_string(counter++);
    os << indent << "const " << scalarCType(op.getResult(0).getType()) << " "
       << name << " = " << *e << ";\n";
    names[op.getResult(0)] = name;
  }
  return success();
}
