//===- EmitProgram.cpp - the programs, the rank table and the plan --------===//
//
// A planned kern module holds one program per distinct code: a func.func
// with `kern.ranks` (the ranks it serves), or only the global `@main`
// serving rank 0 of 1. Each program becomes its entry points (program ABI
// v3: a rank context, then the handles, the arena, the weights section and
// the I/O pointers); the rank table maps every rank to its program's
// entries, and the embedded plan holds one record per rank (its program's
// arena, handles and signature, its weights section's size and checksum).
// Ranks of one program share its code; a program merged from several rank
// programs (kern-merge-ranks) writes a weights section per rank, from each
// slot's weight data, and a statement whose slots differ as a switch on the
// rank (emitStatement). Otherwise its ranks share one section.
//
//===----------------------------------------------------------------------===//

#include "lib/Target/Common/ScalarEmitter.h"
#include "lib/Target/Cpp/CppEmitter.h"
#include "shardc/Target/Cuda.h"
#include "shardc/format.h"

#include "dialects/Dist/IR/DistOps.h"
#include "dialects/Graph/IR/ConstantEval.h"

#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Threading.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/Format.h"

#include <mutex>

using namespace mlir;
using namespace shardc;
using namespace shardc::target;

/// Adds a weight's bytes at its planned offset to the section: a view of
/// the attribute's data (no copy), or bytes made here for booleans and
/// splats.
static LogicalResult addWeight(kern::WeightOp op, WeightsSection &section) {
  auto type = op.getBuffer().getType();
  int64_t bytes = kern::bufferBytes(type);
  uint64_t offset = op.getOffset().value_or(0);
  auto view = [&](const char *data) {
    if (bytes)
      section.pieces.push_back({offset, data, static_cast<uint64_t>(bytes)});
    section.size = std::max<uint64_t>(section.size, offset + bytes);
    return success();
  };
  auto make = [&]() {
    auto owned = std::make_shared<std::vector<char>>(bytes, 0);
    section.owned.push_back(owned);
    return owned->data();
  };
  Attribute value = op.getValue();
  // A window of another weight's data (graph::Window: a column-parallel
  // slice, a padded vocabulary): a piece per run of its rows, viewing the
  // source; the rest of it is zeros, which the section's gaps are.
  if (op->hasAttr(graph::kSourceAttr)) {
    std::optional<graph::Window> w = graph::windowOf(op, op.getValue());
    if (!w || w->elemBytes * type.getNumElements() != bytes)
      return op.emitError("cannot read the data this weight is a window of");
    graph::forEachRun(*w, type.getShape(),
                      [&](int64_t at, const char *src, int64_t n) {
                        section.pieces.push_back(
                            {offset + at, src, static_cast<uint64_t>(n)});
                      });
    section.size = std::max<uint64_t>(section.size, offset + bytes);
    return success();
  }
  if (auto res = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob || static_cast<int64_t>(blob->getData().size()) != bytes)
      return op.emitError("weight blob '")
             << res.getRawHandle().getKey()
             << "' is missing or has the wrong size";
    return view(blob->getData().data());
  }
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense)
    return op.emitError("cannot serialize ") << value;
  if (type.getElementType().isInteger(1)) {
    char *dst = make();
    int64_t i = 0;
    for (bool b : dense.getValues<bool>())
      dst[i++] = b ? 1 : 0;
    return view(dst);
  }
  ArrayRef<char> raw = dense.getRawData();
  int64_t elemBytes = kern::elementBytes(type.getElementType());
  if (dense.isSplat()) {
    char *dst = make();
    for (int64_t i = 0; i < type.getNumElements(); ++i)
      memcpy(dst + i * elemBytes, raw.data(), elemBytes);
    return view(dst);
  }
  if (static_cast<int64_t>(raw.size()) != bytes)
    return op.emitError("weight data has ")
           << raw.size() << " bytes, expected " << bytes;
  return view(raw.data());
}

/// Orders the pieces, checks that none overlaps the next and pads the
/// section to 64 bytes.
static LogicalResult finishSection(func::FuncOp func, WeightsSection &section) {
  auto &pieces = section.pieces;
  llvm::stable_sort(pieces, [](const auto &a, const auto &b) {
    return a.offset < b.offset;
  });
  section.size = format::alignUp(section.size);
  uint64_t end = 0;
  for (const WeightsSection::Piece &p : pieces) {
    if (p.offset < end)
      return func.emitError("weights at offsets ")
             << p.offset << " and below " << end << " overlap";
    end = p.offset + p.size;
  }
  if (end > section.size)
    return func.emitError("weights end at ")
           << end << ", past the section's " << section.size << " bytes";
  return success();
}

/// Folds the bytes [at, stop) of `section` (its pieces, zeros between them)
/// into `sum`.
static void sumBytes(const WeightsSection &section, uint64_t at, uint64_t stop,
                     format::Checksum64 &sum) {
  static const char zeros[4096] = {};
  auto pad = [&](uint64_t to) {
    for (; at < to;) {
      uint64_t n = std::min<uint64_t>(to - at, sizeof(zeros));
      sum.update(zeros, n);
      at += n;
    }
  };
  // Pieces are ordered and disjoint, so their ends are ordered too.
  const auto &pieces = section.pieces;
  auto it = llvm::partition_point(
      pieces, [&](const auto &p) { return p.offset + p.size <= at; });
  for (; it != pieces.end() && it->offset < stop; ++it) {
    uint64_t from = std::max(it->offset, at),
             to = std::min(it->offset + it->size, stop);
    // A window's rows are short pieces at a stride the hardware prefetcher
    // does not follow: fetch the next piece's start while this one is
    // summed (1.7x on 1.5 KB rows).
    if (std::next(it) != pieces.end()) {
      const WeightsSection::Piece &next = *std::next(it);
      for (uint64_t o = 0; o < std::min<uint64_t>(next.size, 4096); o += 64)
        __builtin_prefetch(next.data + o);
    }
    pad(from);
    sum.update(it->data + (from - it->offset), to - from);
    at = to;
  }
  pad(stop);
}

/// Computes the checksums of a program's sections (format::chunkedChecksum
/// of each) with one pool of jobs: the shared head's whole chunks once for
/// all of them, the chunk the head ends in from the head's part of it
/// summed once, and every other chunk of every section. The jobs run on the
/// context's threads.
static void checksumSections(MLIRContext *ctx,
                             MutableArrayRef<WeightsSection> sections) {
  if (sections.empty())
    return;
  constexpr uint64_t kChunk = format::kChecksumChunk;
  // Every section has the same head (kern-plan-weights).
  uint64_t shared = sections.front().sharedBytes;
  uint64_t wholeHead = shared / kChunk;
  bool straddles = shared % kChunk != 0;
  format::Checksum64 headPart;
  std::once_flag headPartOnce;
  std::vector<uint64_t> headSums(wholeHead);
  std::vector<std::vector<uint64_t>> sums;
  // (section, chunk); section -1: a head chunk.
  std::vector<std::pair<int64_t, uint64_t>> jobs;
  for (uint64_t i = 0; i < wholeHead; ++i)
    jobs.push_back({-1, i});
  for (auto [s, section] : llvm::enumerate(sections)) {
    uint64_t chunks = (section.size + kChunk - 1) / kChunk;
    sums.emplace_back(chunks);
    for (uint64_t i = wholeHead; i < chunks; ++i)
      jobs.push_back({static_cast<int64_t>(s), i});
  }
  parallelFor(ctx, 0, jobs.size(), [&](size_t j) {
    auto [s, i] = jobs[j];
    uint64_t begin = i * kChunk;
    if (s < 0) {
      format::Checksum64 sum;
      sumBytes(sections.front(), begin, begin + kChunk, sum);
      headSums[i] = sum.finish();
      return;
    }
    const WeightsSection &section = sections[s];
    uint64_t stop = std::min(section.size, begin + kChunk);
    format::Checksum64 sum;
    if (i == wholeHead && straddles) {
      std::call_once(headPartOnce, [&] {
        sumBytes(sections.front(), begin, shared, headPart);
      });
      sum = headPart;
      begin = shared;
    }
    sumBytes(section, begin, stop, sum);
    sums[s][i] = sum.finish();
  });
  for (auto [s, section] : llvm::enumerate(sections)) {
    llvm::copy(headSums, sums[s].begin());
    section.checksum = format::combineChunkSums(sums[s]);
  }
}

/// The OpenMP wait (docs/performance.md, "Long steps"): libgomp's default
/// spins an idle thread about 3 ms (300,000 iterations) before it sleeps,
/// which saves the wake-up of every region where steps are microseconds
/// apart. Where the steps are long, a thread spinning at a region's end
/// holds a core that a busy neighbour, or the team's own slower thread,
/// could use, and the wake-ups it saves are few: one per step, 50-100 us
/// each on the machines measured, against a step of 2 ms or more at the
/// ~100 GFLOP/s of two cores, so a quiet run pays at most about 5%. A
/// one-rank CPU program (no CUDA code, whose GPU runs would not use the
/// team) whose estimated FLOPs per step (kernels and library calls) reach
/// this starts with GOMP_SPINCOUNT=kLongStepSpin
/// (runtime/tools/main.cpp reads shardc_model_spin_count).
static constexpr double kLongStepFlops = 2e8;
static constexpr unsigned kLongStepSpin = 100;

/// More ranks than any plan we write sensibly holds (the plan stores one
/// record per rank).
static constexpr int64_t kMaxRanks = 1 << 16;

FailureOr<SmallVector<RankProgram>>
shardc::target::collectPrograms(ModuleOp module) {
  SmallVector<RankProgram> programs;
  SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
  bool ranked = llvm::any_of(
      funcs, [](func::FuncOp f) { return f->hasAttr(kern::kRanksAttr); });
  if (!ranked) {
    auto main = module.lookupSymbol<func::FuncOp>("main");
    if (!main) {
      module.emitError("no program to emit: a func.func @main, or functions "
                       "with '")
          << kern::kRanksAttr << "'";
      return failure();
    }
    programs.push_back({main, {0}});
    return programs;
  }
  // rank -> the program serving it
  std::map<int64_t, func::FuncOp> owners;
  for (func::FuncOp f : funcs) {
    auto ranks = f->getAttrOfType<DenseI64ArrayAttr>(kern::kRanksAttr);
    if (!ranks) {
      f.emitError("function @")
          << f.getName() << " has no '" << kern::kRanksAttr
          << "' in a module of rank programs";
      return failure();
    }
    if (ranks.empty()) {
      f.emitError("program @") << f.getName() << " serves no rank";
      return failure();
    }
    for (int64_t r : ranks.asArrayRef()) {
      if (r < 0 || r >= kMaxRanks) {
        f.emitError("rank ") << r << " of program @" << f.getName()
                             << " is outside [0, " << kMaxRanks << ")";
        return failure();
      }
      auto [it, inserted] = owners.try_emplace(r, f);
      if (!inserted) {
        f.emitError("rank ") << r << " is served by both @"
                             << it->second.getName() << " and @"
                             << f.getName();
        return failure();
      }
    }
    programs.push_back({f, SmallVector<int64_t>(ranks.asArrayRef())});
  }
  int64_t world = owners.empty() ? 0 : owners.rbegin()->first + 1;
  for (int64_t r = 0; r < world; ++r)
    if (!owners.count(r)) {
      module.emitError("rank ") << r << " of " << world
                                << " has no program";
      return failure();
    }
  return programs;
}

LogicalResult CppEmitter::emitProgram(const RankProgram &program,
                                      unsigned index, bool forceSplit) {
  func = program.func;
  init.clear();
  run.clear();
  cudaInit.clear();
  cudaRun.clear();
  numHandles = numCudaHandles = 0;
  numInputs.reset();
  localDescs.clear();
  std::string n = std::to_string(index);
  // Dynamic dims: symbol k is this run's ctx->dims[k].
  FailureOr<SmallVector<sym::Symbol>> syms = kern::readSymbols(func);
  if (failed(syms))
    return failure();
  symbols.clear();
  for (unsigned k = 0; k < syms->size(); ++k)
    symbols += "  const int64_t s" + std::to_string(k) + " = ctx->dims[" +
               std::to_string(k) + "]; (void)s" + std::to_string(k) + ";\n";

  // The weights sections first: the plan records their sizes and
  // checksums. One per distinct weight data among the slots (dp replicas
  // of a tp rank hold the same): `sectionOf` maps a slot to its section.
  SmallVector<kern::WeightOp> weights;
  func.walk([&](kern::WeightOp op) { weights.push_back(op); });
  auto dataOf = [&](unsigned slot) {
    SmallVector<Attribute> key;
    for (kern::WeightOp op : weights)
      if (auto perRank = op->getAttrOfType<DictionaryAttr>(kern::kPerRankAttr))
        for (NamedAttribute entry : perRank)
          key.push_back(cast<ArrayAttr>(entry.getValue())[slot]);
    return key;
  };
  SmallVector<SmallVector<Attribute>> keys;
  SmallVector<unsigned> sectionOf;
  for (unsigned slot = 0; slot < program.ranks.size(); ++slot) {
    SmallVector<Attribute> key = dataOf(slot);
    auto *same = llvm::find(keys, key);
    sectionOf.push_back(same - keys.begin());
    if (same == keys.end())
      keys.push_back(std::move(key));
  }
  // The weights every slot reads alike come first (kern-plan-weights): the
  // file holds them once for all the program's sections.
  SmallVector<WeightsSection> sections(keys.size());
  uint64_t sharedKey = ++artifacts.numWeightsKeys;
  for (auto [i, section] : llvm::enumerate(sections)) {
    // The first slot with this data writes it.
    unsigned slot = llvm::find(sectionOf, i) - sectionOf.begin();
    if (auto bytes = func->getAttrOfType<IntegerAttr>("kern.weights_bytes"))
      section.size = bytes.getInt();
    if (auto shared =
            func->getAttrOfType<IntegerAttr>(kern::kWeightsSharedBytesAttr)) {
      section.sharedBytes = shared.getInt();
      section.sharedKey = sharedKey;
      if (section.sharedBytes % format::kShareAlign != 0 ||
          section.sharedBytes > section.size)
        return func.emitError("shared weights of ")
               << section.sharedBytes << " bytes in a section of "
               << section.size << " (not a multiple of " << format::kShareAlign
               << ")";
    }
    section.key = ++artifacts.numWeightsKeys;
    for (kern::WeightOp op : weights) {
      kern::RankSlot at(op, slot);
      if (failed(addWeight(op, section)))
        return failure();
    }
    if (failed(finishSection(func, section)))
      return failure();
  }
  checksumSections(func->getContext(), sections);

  // Large programs (and every program of a module with several, or whose
  // ranks differ) are split into parts (see CppEmitter.h): the kernels then
  // take their operands' offsets, which may be a rank's, at the call.
  unsigned cost = 0;
  for (Operation &op : func.getBody().front())
    cost += statementCost(&op);
  split = forceSplit || kern::RankSlot::varies(func) || cost > kSplitCost;
  unsigned kernels0 = artifacts.numKernels,
           calls0 = artifacts.numLibraryCalls,
           cudaKernels0 = artifacts.numCudaKernels;
  unsigned firstPart = numParts;
  unsigned partCost = 0;
  for (Operation &op : func.getBody().front()) {
    if (split && partCost >= kPartCost) {
      flushPart();
      partCost = 0;
    }
    partCost += statementCost(&op);
    if (failed(emitStatement(op, program.ranks)))
      return failure();
  }
  if (split) {
    flushPart();
    // The entry points call the parts in order.
    for (unsigned p = firstPart; p < numParts; ++p) {
      std::string pn = std::to_string(p);
      if (options.cpu) {
        partDecls += "int shardc_gen_init" + pn +
                     "(const sc_rank_ctx *ctx, void **h);\n"
                     "void shardc_gen_run" + pn +
                     "(const sc_rank_ctx *ctx, void **h, char *arena, "
                     "const char *weights, void *const *in, "
                     "void *const *out);\n";
        init += "  if (shardc_gen_init" + pn + "(ctx, h)) return 1;\n";
        run += "  shardc_gen_run" + pn + "(ctx, h, arena, weights, in, out);\n";
      }
      if (options.cuda) {
        partDecls += "int shardc_gen_cuda_init" + pn +
                     "(const sc_rank_ctx *ctx, sc_cuda *cu, void **h);\n"
                     "void shardc_gen_cuda_run" + pn +
                     "(const sc_rank_ctx *ctx, sc_cuda *cu, void **h, "
                     "char *arena, const char *weights, void *const *in, "
                     "void *const *out);\n";
        cudaInit += "  if (shardc_gen_cuda_init" + pn +
                    "(ctx, cu, h)) return 1;\n";
        cudaRun += "  shardc_gen_cuda_run" + pn +
                   "(ctx, cu, h, arena, weights, in, out);\n";
      }
    }
  }

  // The entry points of the program.
  std::string ranksText;
  for (auto [i, r] : llvm::enumerate(program.ranks))
    ranksText += (i ? ", " : "") + std::to_string(r);
  entries += "// Program " + n + " (@" + func.getName().str() + "), ranks " +
             ranksText + ".\n";
  if (options.cpu)
    entries += "SC_ENTRY static int prog" + n +
               "_init(const sc_rank_ctx *ctx, void **h) {\n" + init +
               "  (void)ctx; (void)h;\n  return 0;\n}\n\n"
               "SC_ENTRY static void prog" +
               n +
               "_run(const sc_rank_ctx *ctx, void **h, char *arena, "
               "const char *weights, void *const *in, void *const *out) {\n"
               "  (void)ctx; (void)h; (void)arena; (void)weights; (void)in; "
               "(void)out;\n" +
               (split ? "" : symbols) + run + "}\n\n";
  if (options.cuda)
    entries += "SC_ENTRY static int cuda_prog" + n +
               "_init(const sc_rank_ctx *ctx, sc_cuda *cu, void **h) {\n" +
               cudaInit +
               "  (void)ctx; (void)cu; (void)h;\n  return 0;\n}\n\n"
               "SC_ENTRY static void cuda_prog" +
               n +
               "_run(const sc_rank_ctx *ctx, sc_cuda *cu, void **h, "
               "char *arena, const char *weights, void *const *in, "
               "void *const *out) {\n"
               "  (void)ctx; (void)h; (void)arena; (void)weights; (void)in; "
               "(void)out;\n" +
               cudaRun + "}\n\n";

  // The program's rank record (the same for every rank it serves, but for
  // the weights section).
  const WeightsSection &section = sections.front();
  format::RankPlan rank;
  auto arena = func->getAttrOfType<IntegerAttr>("kern.arena_bytes");
  rank.arenaBytes = arena ? arena.getInt() : 0;
  artifacts.arenaBytes = std::max(artifacts.arenaBytes, rank.arenaBytes);
  rank.weightsBytes = section.size;
  rank.weightsChecksum = section.checksum;
  rank.numHandles = std::max(numHandles, numCudaHandles);
  rank.numKernels =
      options.cpu
          ? artifacts.numKernels - kernels0 + artifacts.numLibraryCalls - calls0
          : artifacts.numCudaKernels - cudaKernels0 + numCudaHandles;
  if (auto stage = func->getAttrOfType<IntegerAttr>("dist.stage"))
    rank.stage = static_cast<uint32_t>(stage.getInt());
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
    sig.batched = static_cast<bool>(func.getArgAttr(i, "dist.batched"));
    // Dynamic dims: each dim of an input or output is static, one symbol
    // or a sum of symbols (the runtime binds symbols from input dims and
    // reports output dims).
    if (kern::isSymbolic(func.getArgument(i))) {
      size_t numSymbols = kern::symbolNames(func).size();
      for (auto [d, e] : llvm::enumerate(kern::symShape(func.getArgument(i)))) {
        int32_t k = -1;
        if (!e.isConstant()) {
          std::vector<uint32_t> parts;
          for (const auto &[m, c] : e.terms())
            if (m.size() == 1 && c == 1)
              parts.push_back(m.front());
          if (parts.size() != e.terms().size())
            return func.emitError()
                   << (isInput ? "input '" : "output '") << sig.name
                   << "': dim " << d << " is " << e.str(kern::symbolNames(func))
                   << "; an input or output dim must be static, one dynamic "
                      "dim or a sum of them";
          if (parts.size() == 1) {
            k = static_cast<int32_t>(parts.front());
          } else {
            auto at = llvm::find(sumDims, parts);
            if (at == sumDims.end())
              at = sumDims.insert(sumDims.end(), parts);
            k = static_cast<int32_t>(numSymbols + (at - sumDims.begin()));
          }
          signature += "s" + std::to_string(k) + ":" + std::to_string(d) + ",";
        }
        sig.syms.push_back(k);
      }
    }
    if (auto cache =
            func.getArgAttrOfType<DictionaryAttr>(i, kern::kCacheAttr)) {
      auto output = cache.getAs<IntegerAttr>("output");
      auto axis = cache.getAs<IntegerAttr>("axis");
      if (!isInput || !output || !axis)
        return func.emitError()
               << "malformed " << kern::kCacheAttr << " on argument " << i;
      sig.cacheOf = static_cast<int32_t>(output.getInt());
      sig.cacheAxis = static_cast<uint32_t>(axis.getInt());
      signature += "cache" + std::to_string(sig.cacheOf) + ":" +
                   std::to_string(sig.cacheAxis) + ",";
    }
    signature += sig.name + ":" + std::to_string(sig.dtype) +
                 (sig.batched ? ":b;" : ";");
    (isInput ? rank.inputs : rank.outputs).push_back(std::move(sig));
  }
  identity += signature;
  for (unsigned s : sectionOf)
    identity += std::to_string(sections[s].checksum) + ":" +
                std::to_string(sections[s].size);
  for (kern::WeightOp op : weights)
    identity += ";" + std::to_string(op.getOffset().value_or(0));
  for (auto [slot, r] : llvm::enumerate(program.ranks)) {
    if (rankRecords.size() <= static_cast<size_t>(r)) {
      rankRecords.resize(r + 1);
      rankPrograms.resize(r + 1);
      artifacts.sections.resize(r + 1);
    }
    const WeightsSection &own = sections[sectionOf[slot]];
    rank.weightsChecksum = own.checksum;
    rankRecords[r] = rank;
    rankPrograms[r] = index;
    artifacts.sections[r] = own;
  }
  return success();
}

LogicalResult CppEmitter::emitStatement(Operation &op,
                                        ArrayRef<int64_t> ranks) {
  auto emitOne = [&]() -> LogicalResult {
    if (options.cuda && failed(emitCudaOp(&op)))
      return failure();
    if (options.cpu && failed(emitCpuOp(op)))
      return failure();
    return success();
  };
  if (!kern::RankSlot::varies(&op))
    return emitOne();
  // Each slot's statements, written from its attributes. Kernels of the
  // same text stay shared (declared once in `decls`); the counts count the
  // op once.
  struct Code {
    std::string init, run, cudaInit, cudaRun;
  };
  SmallVector<Code> codes;
  Code before{std::move(init), std::move(run), std::move(cudaInit),
              std::move(cudaRun)};
  unsigned kernels = 0, calls = 0, cudaKernels = 0;
  // The run's local descriptors (dynamic dims) go before the switch: the
  // same for every rank, and in scope for the statements after it.
  std::string descs;
  localDescSink = &descs;
  auto restoreSink = llvm::make_scope_exit([&] { localDescSink = nullptr; });
  for (unsigned slot = 0; slot < ranks.size(); ++slot) {
    init.clear();
    run.clear();
    cudaInit.clear();
    cudaRun.clear();
    {
      kern::RankSlot at(&op, slot);
      if (failed(emitOne()))
        return failure();
    }
    codes.push_back({std::move(init), std::move(run), std::move(cudaInit),
                     std::move(cudaRun)});
    if (slot == 0) {
      kernels = artifacts.numKernels;
      calls = artifacts.numLibraryCalls;
      cudaKernels = artifacts.numCudaKernels;
    }
  }
  artifacts.numKernels = kernels;
  artifacts.numLibraryCalls = calls;
  artifacts.numCudaKernels = cudaKernels;
  init = std::move(before.init);
  run = std::move(before.run) + descs;
  cudaInit = std::move(before.cudaInit);
  cudaRun = std::move(before.cudaRun);
  // The same text for every rank once; else a case per rank.
  auto join = [&](std::string Code::*field, std::string &into) {
    if (llvm::all_of(codes, [&](const Code &c) {
          return c.*field == codes.front().*field;
        })) {
      into += codes.front().*field;
      return;
    }
    // Ranks with the same text share a case (dp replicas of a tp rank).
    into += "  switch (ctx->rank) {\n";
    SmallVector<bool> done(ranks.size(), false);
    for (unsigned slot = 0; slot < ranks.size(); ++slot) {
      if (done[slot])
        continue;
      std::string labels;
      for (unsigned other = slot; other < ranks.size(); ++other)
        if (!done[other] && codes[other].*field == codes[slot].*field) {
          done[other] = true;
          labels += (labels.empty() ? "" : ":\n") + std::string("  case ") +
                    std::to_string(ranks[other]);
        }
      into += labels + ": {\n" + codes[slot].*field + "  } break;\n";
    }
    into += "  }\n";
  };
  join(&Code::init, init);
  join(&Code::run, run);
  join(&Code::cudaInit, cudaInit);
  join(&Code::cudaRun, cudaRun);
  return success();
}

LogicalResult CppEmitter::emit(ModuleOp module, raw_ostream &out) {
  FailureOr<SmallVector<RankProgram>> programs = collectPrograms(module);
  if (failed(programs))
    return failure();
  if (options.cuda)
    artifacts.cudaSource = cuda::programPrologue();
  bool several = programs->size() > 1;
  for (auto [i, program] : llvm::enumerate(*programs))
    if (failed(emitProgram(program, i, /*forceSplit=*/several)))
      return failure();
  artifacts.numPrograms = programs->size();

  format::Plan plan;
  plan.ranks = rankRecords;
  // The dynamic dims' names and bounds (symbol k is ctx->dims[k]).
  if (!programs->empty()) {
    FailureOr<SmallVector<sym::Symbol>> syms =
        kern::readSymbols(programs->front().func);
    if (failed(syms))
      return failure();
    for (const sym::Symbol &s : *syms) {
      plan.dims.push_back({s.name, s.max, s.min, {}});
      identity += ";dim " + s.name + "<=" + std::to_string(s.max) +
                  (s.min == 0 ? ">=0" : "");
    }
    // Sums of them (a KV cache's past + sequence).
    for (const std::vector<uint32_t> &parts : sumDims) {
      format::PlanDim sum{"", 0, 0, parts};
      for (uint32_t k : parts) {
        const format::PlanDim &part = plan.dims[k];
        sum.name += (sum.name.empty() ? "" : " + ") + part.name;
        sum.max += part.max;
        sum.min += part.min;
      }
      sum.min = std::min<int64_t>(sum.min, 1);
      identity += ";dim " + sum.name;
      plan.dims.push_back(std::move(sum));
    }
  }
  // The micro-batch loop the runtime drives (dist-microbatch).
  if (auto m = module->getAttrOfType<IntegerAttr>("dist.microbatches"))
    plan.microbatches = static_cast<uint32_t>(m.getInt());
  if (plan.microbatches > 1)
    identity += ";mb" + std::to_string(plan.microbatches);
  // A batch the micro-batches split unevenly (dist-pad-batch).
  if (auto items = module->getAttrOfType<IntegerAttr>("dist.batch_items")) {
    plan.batchItems = static_cast<uint32_t>(items.getInt());
    identity += ";items" + std::to_string(plan.batchItems);
  }
  artifacts.modelHash = format::checksum64(identity.data(), identity.size());
  plan.modelHash = artifacts.modelHash;
  plan.target = (options.cpu ? format::kTargetCpu : 0) |
                (options.cuda ? format::kTargetCuda : 0);
  std::vector<uint8_t> planBytes = format::encodePlan(plan);
  size_t world = rankRecords.size();

  out << "// Generated by shardc. Target: "
      << (options.cuda && options.cpu ? "cuda with a cpu fallback"
          : options.cuda              ? "cuda"
                                      : "cpu")
      << "; " << programs->size()
      << (programs->size() == 1 ? " program" : " programs") << " for "
      << world << (world == 1 ? " rank" : " ranks") << ".\n"
      << (options.cuda ? "#include \"shardc/cuda.h\"\n"
                       : "#include \"shardc/cpu.h\"\n");
  // The plan in words (the bytes are plan_data, at the end).
  for (size_t r = 0; r < world; ++r)
    out << "// rank " << r << ": program " << rankPrograms[r] << ", arena "
        << rankRecords[r].arenaBytes << " B, weights "
        << rankRecords[r].weightsBytes << " B (checksum "
        << llvm::format_hex(rankRecords[r].weightsChecksum, 18) << ")\n";
  out << "\n";
  // The entry points, the tables and the plan: a unit of their own after
  // several parts, in the one part's unit otherwise (one host compiler
  // process less: it parses the runtime's headers again).
  if (!parts.empty()) {
    out << parts;
    if (numParts > 1 || !decls.empty())
      out << kUnitMarker << "\n";
  }
  out << partDecls << decls << "\n" << entries;
  auto table = [&](StringRef prefix) {
    std::string t;
    for (size_t r = 0; r < world; ++r)
      t += (r ? ", " : "") + ("{" + prefix + "prog" +
                              std::to_string(rankPrograms[r]) + "_init, " +
                              prefix + "prog" +
                              std::to_string(rankPrograms[r]) + "_run}")
                                 .str();
    return t;
  };
  if (options.cpu)
    out << "static const sc_rank_entry ranks[] = {" << table("") << "};\n";
  if (options.cuda) {
    out << "static const sc_cuda_entry cuda_ranks[] = {" << table("cuda_")
        << "};\n";
    writeCudaTables(out);
  }
  // The mesh (the module's dist.mesh; none for one rank or no mesh) and,
  // for several ranks, the MPI world.
  SmallVector<int64_t> meshShape;
  if (world > 1) {
    SmallVector<dist::MeshOp> meshes(module.getOps<dist::MeshOp>());
    if (meshes.size() > 1)
      return module.emitError("the program has ") << meshes.size()
             << " dist.mesh ops; the runtime takes one";
    if (!meshes.empty()) {
      if (meshes.front().numDevices() != static_cast<int64_t>(world))
        return meshes.front().emitError("the mesh has ")
               << meshes.front().numDevices() << " devices but the module has "
               << world << " ranks";
      llvm::append_range(meshShape, meshes.front().getShape());
    }
  }
  if (!meshShape.empty()) {
    out << "static const int64_t mesh_shape[] = {";
    for (auto [i, d] : llvm::enumerate(meshShape))
      out << (i ? ", " : "") << d;
    out << "};\n";
  }
  unsigned steps = artifacts.numKernels + artifacts.numLibraryCalls;
  if (world == 1 && options.cpu && !options.cuda && options.flops > 0 &&
      steps) {
    artifacts.flopsPerStep = options.flops / steps;
    if (artifacts.flopsPerStep >= kLongStepFlops)
      artifacts.spinCount = kLongStepSpin;
  }
  if (artifacts.spinCount)
    out << "extern \"C\" const unsigned shardc_model_spin_count;\n"
        << "const unsigned shardc_model_spin_count = " << artifacts.spinCount
        << ";\n";
  out << "static const unsigned char plan_data[] = {";
  for (size_t i = 0; i < planBytes.size(); ++i)
    out << (i % 24 ? "" : "\n  ") << static_cast<unsigned>(planBytes[i])
        << ",";
  out << "\n};\n"
      << "extern \"C\" const shardc_program shardc_model_program;\n"
      << "const shardc_program shardc_model_program = {SC_ABI_VERSION, "
      << world << ", plan_data, sizeof(plan_data), "
      << (options.cpu ? "ranks" : "0") << ", "
      << (options.cuda ? "cuda_ranks, " +
                             std::to_string(options.cudaImages.size()) +
                             ", cuda_images, " +
                             std::to_string(cudaKernels.size()) +
                             ", cuda_kernels"
                       : std::string("0, 0, 0, 0, 0"));
  if (world > 1)
    out << ", " << meshShape.size() << ", "
        << (meshShape.empty() ? "0" : "mesh_shape") << ", sc_mpi_world";
  out << "};\n";
  return success();
}

void CppEmitter::flushPart() {
  std::string n = std::to_string(numParts++);
  parts += std::string(kUnitMarker) + "\n" + decls;
  if (options.cpu)
    parts += "SC_ENTRY int shardc_gen_init" + n +
             "(const sc_rank_ctx *ctx, void **h) {\n" + init +
             "  (void)ctx; (void)h;\n  return 0;\n}\n"
             "SC_ENTRY void shardc_gen_run" +
             n +
             "(const sc_rank_ctx *ctx, void **h, char *arena, "
             "const char *weights, void *const *in, void *const *out) {\n"
             "  (void)ctx; (void)h; (void)arena; (void)weights; (void)in; "
             "(void)out;\n" +
             symbols + run + "}\n";
  if (options.cuda)
    parts += "SC_ENTRY int shardc_gen_cuda_init" + n +
             "(const sc_rank_ctx *ctx, sc_cuda *cu, void **h) {\n" + cudaInit +
             "  (void)ctx; (void)cu; (void)h;\n  return 0;\n}\n"
             "SC_ENTRY void shardc_gen_cuda_run" +
             n +
             "(const sc_rank_ctx *ctx, sc_cuda *cu, void **h, "
             "char *arena, const char *weights, void *const *in, "
             "void *const *out) {\n"
             "  (void)ctx; (void)h; (void)arena; (void)weights; (void)in; "
             "(void)out;\n" +
             cudaRun + "}\n";
  decls.clear();
  init.clear();
  run.clear();
  localDescs.clear();
  cudaInit.clear();
  cudaRun.clear();
  // Each part declares what it uses.
  descNames.clear();
  arrayNames.clear();
  declaredKernels.clear();
}

LogicalResult shardc::emitCpp(ModuleOp module, raw_ostream &os,
                              CppArtifacts &artifacts,
                              const ProgramOptions &options) {
  artifacts = CppArtifacts();
  CppEmitter emitter(artifacts, options);
  return emitter.emit(module, os);
}
