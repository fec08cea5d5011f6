//===- EmitCollectives.cpp - kern collectives as runtime calls ------------===//
//
// Each kern collective is one call on the communicator of its mesh axis:
//   sc_all_reduce(sc_ctx_comm(ctx, 0), in, out, 4096, 1, SC_REDUCE_SUM);
// (shardc/cpu.h; MPI on CPU ranks), and in CUDA code the same call on the
// model's stream with device buffers:
//   sc_cu_all_reduce(cu, sc_ctx_comm(ctx, 0), in, out, 4096, 1, SC_REDUCE_SUM);
// (shardc/cuda.h; NCCL on GPU ranks). Pipeline sends and receives name the
// peer by its offset along the axis:
//   sc_send(sc_ctx_comm(ctx, 0), buf, 4096ULL, 1, 1);
// With dynamic dims the count is the run's, over the symbols:
//   sc_all_reduce(sc_ctx_comm(ctx, 0), in, out, (unsigned long long)(s0*s1*32),
//                 1, SC_REDUCE_SUM);
// Expert parallelism's exchanges give the slots per rank, the row width,
// the room for arriving rows and the dtype:
//   sc_moe_dispatch(sc_ctx_comm(ctx, 0), rows, offsets, recv, recv_offsets,
//                   recv_counts, 2ULL, 32ULL, 64ULL, 1);
//
//===----------------------------------------------------------------------===//

#include "lib/Target/Common/ScalarEmitter.h"
#include "lib/Target/Cpp/CppEmitter.h"

using namespace mlir;
using namespace shardc;
using namespace shardc::target;

/// The element count of `buffer`, divided by `parts`: a literal, or with
/// dynamic dims the run's count over the symbols (`s0*s1*32`).
static std::string countOf(Value buffer, int64_t parts = 1) {
  if (!kern::isSymbolic(buffer))
    return std::to_string(cast<MemRefType>(buffer.getType()).getNumElements() /
                          parts) +
           "ULL";
  sym::Expr count = sym::product(kern::symShape(buffer));
  // The verifier checked that the division is exact (all_to_all).
  if (std::optional<sym::Expr> q = count.divExact(sym::Expr(parts)))
    count = *q;
  return "(unsigned long long)(" + count.str() + ")";
}

static std::string reduceKind(StringRef kind) {
  return kind == "max"    ? "SC_REDUCE_MAX"
         : kind == "min"  ? "SC_REDUCE_MIN"
         : kind == "prod" ? "SC_REDUCE_PROD"
                          : "SC_REDUCE_SUM";
}

LogicalResult CppEmitter::emitCollective(Operation *op, bool cuda) {
  // One call on the axis' communicator: the buffers, the element count and
  // dtype (of the first buffer's elements), then `extra` arguments.
  auto call = [&](StringRef fn, ArrayRef<Value> buffers, int64_t axis,
                  const std::string &count,
                  const std::string &extra) -> LogicalResult {
    auto type = cast<MemRefType>(buffers.front().getType());
    int dtype = onnxDType(type.getElementType());
    if (dtype < 0)
      return op->emitError("no runtime dtype for ") << type;
    std::string args;
    for (Value b : buffers)
      args += ptr(b) + ", ";
    (cuda ? cudaRun : run) +=
        std::string("  ") + (cuda ? "sc_cu_" : "sc_") + fn.str() + "(" +
        (cuda ? "cu, " : "") + "sc_ctx_comm(ctx, " + std::to_string(axis) +
        "), " + args + count + ", " + std::to_string(dtype) + extra + ");\n";
    if (!cuda)
      ++artifacts.numLibraryCalls;
    return success();
  };
  auto kind = [](StringRef k) { return ", " + reduceKind(k); };
  if (auto ar = dyn_cast<kern::AllReduceOp>(op))
    return call("all_reduce", {ar.getInput(), ar.getOutput()}, ar.getAxis(),
                countOf(ar.getInput()), kind(ar.getKind()));
  if (auto ag = dyn_cast<kern::AllGatherOp>(op))
    return call("all_gather", {ag.getInput(), ag.getOutput()}, ag.getAxis(),
                countOf(ag.getInput()), "");
  if (auto rs = dyn_cast<kern::ReduceScatterOp>(op))
    return call("reduce_scatter", {rs.getInput(), rs.getOutput()}, rs.getAxis(),
                countOf(rs.getOutput()), kind(rs.getKind()));
  if (auto a2a = dyn_cast<kern::AllToAllOp>(op))
    return call("all_to_all", {a2a.getInput(), a2a.getOutput()}, a2a.getAxis(),
                countOf(a2a.getInput(), a2a.getGroupSize()), "");
  // Point to point (pipeline stages): the peer `offset` steps along the
  // axis.
  if (auto send = dyn_cast<kern::SendOp>(op))
    return call("send", {send.getInput()}, send.getAxis(),
                countOf(send.getInput()),
                ", " + std::to_string(send.getOffset()));
  if (auto recv = dyn_cast<kern::RecvOp>(op))
    return call("recv", {recv.getOutput()}, recv.getAxis(),
                countOf(recv.getOutput()),
                ", " + std::to_string(recv.getOffset()));
  // Expert parallelism: the exchanges of dist.moe (sc_moe_dispatch,
  // sc_moe_return), arguments by position rather than element count.
  auto exchange = [&](StringRef fn, ArrayRef<Value> buffers, int64_t axis,
                      int64_t slots, MemRefType arrived) -> LogicalResult {
    int dtype = onnxDType(arrived.getElementType());
    if (dtype < 0)
      return op->emitError("no runtime dtype for ") << arrived;
    std::string args;
    for (Value b : buffers)
      args += ", " + ptr(b);
    (cuda ? cudaRun : run) +=
        std::string("  ") + (cuda ? "sc_cu_" : "sc_") + fn.str() + "(" +
        (cuda ? "cu, " : "") + "sc_ctx_comm(ctx, " + std::to_string(axis) +
        ")" + args + ", " + std::to_string(slots) + "ULL, " +
        std::to_string(arrived.getDimSize(1)) + "ULL, " +
        std::to_string(arrived.getDimSize(0)) + "ULL, " +
        std::to_string(dtype) + ");\n";
    if (!cuda)
      ++artifacts.numLibraryCalls;
    return success();
  };
  if (auto d = dyn_cast<kern::MoeDispatchOp>(op))
    return exchange("moe_dispatch",
                    {d.getRows(), d.getOffsets(), d.getRecv(),
                     d.getRecvOffsets(), d.getRecvCounts()},
                    d.getAxis(), d.getLocalSlots(), d.getRecv().getType());
  if (auto r = dyn_cast<kern::MoeReturnOp>(op))
    return exchange("moe_return",
                    {r.getRecv(), r.getRecvCounts(), r.getOffsets(),
                     r.getRows()},
                    r.getAxis(),
                    r.getRecvCounts().getType().getDimSize(0) /
                        static_cast<int64_t>(r.getGroupSize()),
                    r.getRecv().getType());
  return op->emitError("not a collective");
}
