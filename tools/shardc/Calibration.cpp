//===- Calibration.cpp - routing counts from sample inputs ----------------===//

#include "Calibration.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>

using namespace llvm;

namespace {

/// Input files (NAME.npy, NAME.pb) directly in `dir`, by name.
std::map<std::string, std::string> inputsIn(StringRef dir) {
  std::map<std::string, std::string> inputs;
  std::error_code ec;
  for (sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    StringRef path = it->path();
    StringRef ext = sys::path::extension(path);
    if ((ext == ".npy" || ext == ".pb") &&
        it->type() != sys::fs::file_type::directory_file)
      inputs[sys::path::stem(path).str()] = path.str();
  }
  return inputs;
}

/// Runs `args` (args[0] the program), its output in `log`; false with the
/// log's last line (or the exit) in `error`.
bool runLogged(ArrayRef<std::string> args, StringRef log, StringRef what,
               std::string &error) {
  SmallVector<StringRef> argv(args.begin(), args.end());
  std::optional<StringRef> redirects[] = {std::nullopt, log, log};
  std::string message;
  int rc = sys::ExecuteAndWait(argv[0], argv, std::nullopt, redirects, 0, 0,
                               &message);
  if (rc == 0)
    return true;
  std::string last;
  if (auto buf = MemoryBuffer::getFile(log)) {
    StringRef text = (*buf)->getBuffer().rtrim();
    last = text.substr(text.rfind('\n') + 1).str();
  }
  error = what.str() + " failed: " +
          (!last.empty() ? last
           : !message.empty()
               ? message
               : "exit " + std::to_string(rc));
  return false;
}

} // namespace

std::vector<std::vector<int64_t>>
shardc::calibrateRouting(const CalibrationRequest &request,
                         std::string &error) {
  std::vector<std::vector<int64_t>> layers;
  if (!sys::fs::is_directory(request.dir)) {
    error = "--calibration " + request.dir + ": not a directory";
    return {};
  }
  // The samples: DIR itself, or each subdirectory.
  std::vector<std::map<std::string, std::string>> samples;
  if (auto direct = inputsIn(request.dir); !direct.empty())
    samples.push_back(direct);
  std::error_code ec;
  std::vector<std::string> subdirs;
  for (sys::fs::directory_iterator it(request.dir, ec), end; it != end && !ec;
       it.increment(ec))
    if (sys::fs::is_directory(it->path()))
      subdirs.push_back(it->path());
  std::sort(subdirs.begin(), subdirs.end());
  for (const std::string &d : subdirs)
    if (auto inputs = inputsIn(d); !inputs.empty())
      samples.push_back(inputs);
  if (samples.empty()) {
    error = "--calibration " + request.dir +
            ": no sample inputs (NAME.npy or NAME.pb files, in the "
            "directory or one subdirectory per sample)";
    return {};
  }

  SmallString<128> work;
  if (std::error_code e =
          sys::fs::createUniqueDirectory("shardc-calibration", work)) {
    error = "cannot create a calibration directory: " + e.message();
    return {};
  }
  auto cleanup = [&] { sys::fs::remove_directories(work); };
  std::string exe = (work + "/model").str(), log = (work + "/log").str();
  std::vector<std::string> compile = {request.shardc, request.model,
                                      "--target=cpu", "-o", exe};
  compile.insert(compile.end(), request.flags.begin(), request.flags.end());
  if (request.verbose)
    errs() << "shardc: calibration: compiling one rank to measure routing\n";
  if (!runLogged(compile, log, "compiling the calibration program", error)) {
    cleanup();
    return {};
  }
  for (size_t i = 0; i < samples.size(); ++i) {
    std::string stats = (work + "/routing" + Twine(i) + ".json").str();
    std::vector<std::string> args = {exe, "--routing-stats", stats};
    for (auto &[name, path] : samples[i]) {
      args.push_back("--input");
      args.push_back(name + "=" + path);
    }
    if (!runLogged(args, log, "calibration sample " + std::to_string(i + 1),
                   error)) {
      cleanup();
      return {};
    }
    auto buf = MemoryBuffer::getFile(stats);
    Expected<json::Value> parsed =
        buf ? json::parse((*buf)->getBuffer())
            : Expected<json::Value>(createStringError("unreadable"));
    const json::Array *rows =
        parsed && parsed->getAsObject()
            ? parsed->getAsObject()->getArray("layers")
            : nullptr;
    if (!rows) {
      if (!parsed)
        consumeError(parsed.takeError());
      error = "calibration sample " + std::to_string(i + 1) +
              ": unreadable routing statistics";
      cleanup();
      return {};
    }
    if (layers.empty())
      layers.resize(rows->size());
    for (size_t l = 0; l < rows->size() && l < layers.size(); ++l) {
      const json::Array *counts = (*rows)[l].getAsArray();
      if (!counts)
        continue;
      layers[l].resize(std::max(layers[l].size(), counts->size()), 0);
      for (size_t e = 0; e < counts->size(); ++e)
        layers[l][e] += (*counts)[e].getAsInteger().value_or(0);
    }
  }
  if (request.verbose)
    errs() << "shardc: calibration: " << samples.size() << " samples, "
           << layers.size() << " expert layers\n";
  cleanup();
  return layers;
}
