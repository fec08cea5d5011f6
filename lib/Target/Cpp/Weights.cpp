//===- Weights.cpp - the weights file writer -------------------------------===//

#include "shardc/Target/Cpp.h"

#include "shardc/format.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

using namespace shardc;

bool shardc::writeWeightsFile(const std::string &path, uint64_t modelHash,
                              const std::vector<const std::vector<char> *> &sections,
                              std::string &error) {
  std::vector<uint64_t> sizes, checksums;
  for (const std::vector<char> *s : sections) {
    sizes.push_back(s->size());
    checksums.push_back(format::checksum64(s->data(), s->size()));
  }
  format::WeightsLayout layout;
  std::vector<uint8_t> header =
      format::encodeWeightsHeader(modelHash, sizes, checksums, layout);
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  bool ok = std::fwrite(header.data(), 1, header.size(), f) == header.size();
  uint64_t at = header.size();
  static const char zeros[format::kAlign] = {};
  for (size_t i = 0; ok && i < sections.size(); ++i) {
    while (ok && at < layout.offsets[i]) {
      size_t n = std::min<uint64_t>(layout.offsets[i] - at, sizeof(zeros));
      ok = std::fwrite(zeros, 1, n, f) == n;
      at += n;
    }
    const std::vector<char> &s = *sections[i];
    ok = ok && std::fwrite(s.data(), 1, s.size(), f) == s.size();
    at += s.size();
  }
  while (ok && at < layout.fileSize) {
    size_t n = std::min<uint64_t>(layout.fileSize - at, sizeof(zeros));
    ok = std::fwrite(zeros, 1, n, f) == n;
    at += n;
  }
  ok = (std::fclose(f) == 0) && ok;
  if (!ok)
    error = "cannot write '" + path + "': " + std::strerror(errno);
  return ok;
}
