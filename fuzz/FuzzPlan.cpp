//===- FuzzPlan.cpp - libFuzzer target: the plan decoder and loader -------===//
//
// The input is a plan (what generated code embeds). Each input is decoded
// twice: as is, and with its trailing checksum recomputed so that the fuzzer
// gets past it. A plan that decodes must encode back to the same bytes.
// A decoded plan of modest size (at most 64 ranks, 1 MiB of weights, 64 MiB
// of arena and inputs+outputs, 256 MiB copied per run, 4096 handles) is
// then loaded on the CPU with a matching weights file (zero sections; the
// plan's section checksums rewritten to match), and bound, run and read
// through the C API.
//
//===----------------------------------------------------------------------===//
#include "FuzzLoader.h"

using namespace shardc;
namespace fmt = shardc::format;

namespace {

bool modest(const fmt::Plan &plan) {
  if (plan.ranks.size() > 64)
    return false;
  uint64_t weights = 0;
  for (const fmt::RankPlan &r : plan.ranks) {
    weights += r.weightsBytes;
    if (r.weightsBytes > (1u << 20) || weights > (1u << 20) ||
        r.arenaBytes > (64u << 20) || r.numHandles > 4096)
      return false;
    // The device's buffers of one micro-batch, and the user's of all; and
    // what a run copies, one micro-batch's buffers per micro-batch (a plan
    // of more micro-batches than items, which the compiler never writes,
    // copies padding items for each).
    uint64_t io = 0, block = 0;
    for (const auto *sigs : {&r.inputs, &r.outputs})
      for (const fmt::TensorSig &s : *sigs) {
        uint64_t user = s.userSig(plan.microbatches, plan.batchItems).bytes();
        io += s.bytes() + (plan.microbatches > 1 && s.batched ? user : 0);
        block += s.batched ? s.bytes() : 0;
        if (user > (64u << 20) || io > (64u << 20) ||
            block * plan.microbatches > (256u << 20))
          return false;
      }
  }
  return true;
}

void decodeOne(const uint8_t *data, size_t size, bool load) {
  fmt::Plan plan;
  std::string error;
  if (!fmt::decodePlan(data, size, plan, error)) {
    FUZZ_CHECK(fuzz::oneLine(error), "decodePlan error '%s'", error.c_str());
    return;
  }
  FUZZ_CHECK(plan.worldSize == plan.ranks.size(), "world size");
  std::vector<uint8_t> again = fmt::encodePlan(plan);
  FUZZ_CHECK(again.size() == size && std::memcmp(again.data(), data, size) == 0,
             "decodePlan accepted a plan that encodes differently "
             "(%zu bytes -> %zu)",
             size, again.size());
  if (!load || !modest(plan))
    return;

  // A weights file for the plan: zero sections, checksums made to match.
  std::vector<uint64_t> sizes, sums;
  for (fmt::RankPlan &r : plan.ranks) {
    std::vector<uint8_t> zeros(r.weightsBytes, 0);
    r.weightsChecksum = fmt::sectionChecksum(zeros.data(), zeros.size());
    sizes.push_back(r.weightsBytes);
    sums.push_back(r.weightsChecksum);
  }
  fmt::WeightsLayout layout;
  std::vector<uint8_t> file =
      fmt::encodeWeightsHeader(plan.modelHash, sizes, sums, layout);
  file.resize(layout.fileSize, 0);
  std::vector<uint8_t> planBytes = fmt::encodePlan(plan);
  FUZZ_CHECK(fmt::validateWeights(file.data(), file.size(), plan, error),
             "validateWeights refused the writer's file: %s", error.c_str());

  const std::string path = fuzz::privateDir() + "/plan.weights";
  fuzz::writeBytes(path, file.data(), file.size());
  fuzz::ProgramShell shell(planBytes, plan.worldSize);
  shardc_status s = fuzz::loadAndRun(shell, path, 0);
  // Everything the CPU loader checks is consistent here; only a target mask
  // other than "cpu" (the shell has no CUDA code) or an output that is not
  // batched in a plan of several micro-batches may refuse.
  bool unbatched = false;
  for (const fmt::TensorSig &o : plan.ranks[0].outputs)
    unbatched |= plan.microbatches > 1 && !o.batched;
  FUZZ_CHECK(s == SHARDC_OK || plan.target != fmt::kTargetCpu || unbatched,
             "a consistent plan did not load: %s", shardc_last_error());
  if (plan.worldSize > 1)
    fuzz::loadAndRun(shell, path, static_cast<int>(plan.worldSize - 1));
  // Rank out of range.
  FUZZ_CHECK(fuzz::loadAndRun(shell, path, static_cast<int>(plan.worldSize)) !=
                 SHARDC_OK,
             "rank out of range loaded");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  decodeOne(data, size, /*load=*/false);
  if (size >= 16) {
    std::vector<uint8_t> fixed(data, data + size);
    fmt::detail::storeU64(fixed.data() + size - 8,
                          fmt::checksum64(fixed.data(), size - 8));
    decodeOne(fixed.data(), size, /*load=*/true);
  }
  return 0;
}
