//===- FuzzWeights.cpp - libFuzzer target: the weights file loader --------===//
//
// The input is a weights file. It is checked twice:
//   - as is, against a fixed plan (one rank, 24 bytes of weights);
//   - against a plan made from its own header (world size up to 64, model
//     hash, section sizes), with the section checksums and then the header
//     checksum recomputed, so that the fuzzer gets past the checksums to the
//     layout checks (alignment, overlap, padding, bounds, trailing bytes).
// A file validateWeights accepts for rank 0 must load through
// shardc_load_on (mapped from a file in a private folder); a refused one
// gives a one-line error.
//
//===----------------------------------------------------------------------===//
#include "FuzzLoader.h"

using namespace shardc;
namespace fmt = shardc::format;

namespace {

fmt::Plan fixedPlan() {
  fmt::Plan plan;
  plan.modelHash = 0x5eedc0de12345678ull;
  fmt::RankPlan r;
  r.arenaBytes = 64;
  r.weightsBytes = 24;
  std::vector<uint8_t> section(24);
  for (size_t i = 0; i < section.size(); ++i)
    section[i] = static_cast<uint8_t>(i + 1);
  r.weightsChecksum = fmt::sectionChecksum(section.data(), section.size());
  plan.ranks.push_back(r);
  return plan;
}

void check(const uint8_t *p, size_t size, const fmt::Plan &plan) {
  std::string error;
  bool all = fmt::validateWeights(p, size, plan, error, -1);
  FUZZ_CHECK(all || fuzz::oneLine(error), "error '%s'", error.c_str());
  bool rank0 = fmt::validateWeights(p, size, plan, error, 0);
  FUZZ_CHECK(rank0 || fuzz::oneLine(error), "error '%s'", error.c_str());
  FUZZ_CHECK(!all || rank0, "valid for all ranks but not for rank 0");
  if (!rank0)
    return;
  fmt::SectionEntry s = fmt::weightsSection(p, 0);
  FUZZ_CHECK(s.offset % fmt::kAlign == 0 && s.sharedBytes <= s.size &&
                 s.offset <= size && s.tailBytes() <= size - s.offset &&
                 s.sharedOffset <= size &&
                 s.sharedBytes <= size - s.sharedOffset &&
                 s.size == plan.ranks[0].weightsBytes,
             "section 0 at %llu (head at %llu) is out of the file",
             static_cast<unsigned long long>(s.offset),
             static_cast<unsigned long long>(s.sharedOffset));

  const std::string path = fuzz::privateDir() + "/model.weights";
  fuzz::writeBytes(path, p, size);
  fuzz::ProgramShell shell(fmt::encodePlan(plan), plan.worldSize);
  FUZZ_CHECK(fuzz::loadAndRun(shell, path, 0) == SHARDC_OK,
             "validateWeights accepted the file, shardc_load refused it: %s",
             shardc_last_error());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const fmt::Plan fixed = fixedPlan();
  check(data, size, fixed);

  if (size < fmt::kWeightsHeaderBytes)
    return 0;
  uint32_t world = fmt::detail::loadU32(data + 12);
  uint64_t tableEnd =
      fmt::kWeightsHeaderBytes + uint64_t(world) * fmt::kSectionEntryBytes;
  if (world == 0 || world > 64 || tableEnd > size)
    return 0;
  std::vector<uint8_t> file(data, data + size);
  fmt::Plan plan;
  plan.worldSize = world;
  plan.modelHash = fmt::detail::loadU64(data + 16);
  plan.ranks.resize(world);
  for (uint32_t i = 0; i < world; ++i) {
    uint8_t *e =
        file.data() + fmt::kWeightsHeaderBytes + i * fmt::kSectionEntryBytes;
    // The checksum fixed up where the head and the tail lie in the file.
    fmt::SectionEntry s = fmt::weightsSection(file.data(), i);
    if (s.sharedBytes <= s.size && s.offset <= size &&
        s.tailBytes() <= size - s.offset && s.sharedOffset <= size &&
        s.sharedBytes <= size - s.sharedOffset)
      fmt::detail::storeU64(e + 16, fmt::sectionChecksum(file.data(), s));
    plan.ranks[i].arenaBytes = 64;
    plan.ranks[i].weightsBytes = s.size;
    plan.ranks[i].weightsChecksum = fmt::detail::loadU64(e + 16);
  }
  std::vector<uint8_t> summed(file.begin(), file.begin() + 40);
  summed.insert(summed.end(), file.begin() + fmt::kWeightsHeaderBytes,
                file.begin() + tableEnd);
  fmt::detail::storeU64(file.data() + 40,
                        fmt::checksum64(summed.data(), summed.size()));
  check(file.data(), file.size(), plan);
  return 0;
}
