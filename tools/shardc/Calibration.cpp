//===- Calibration.cpp - measurements on sample inputs --------------------===//

#include "Calibration.h"

#include "passes/Precision/Quantize.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <random>

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

using Sample = std::map<std::string, std::string>;

/// The samples of `dir`: DIR itself, or each subdirectory, in name order.
bool findSamples(StringRef dir, std::vector<Sample> &samples,
                 std::string &error) {
  if (!sys::fs::is_directory(dir)) {
    error = "--calibration " + dir.str() + ": not a directory";
    return false;
  }
  if (auto direct = inputsIn(dir); !direct.empty())
    samples.push_back(direct);
  std::error_code ec;
  std::vector<std::string> subdirs;
  for (sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    if (sys::fs::is_directory(it->path()))
      subdirs.push_back(it->path());
  std::sort(subdirs.begin(), subdirs.end());
  for (const std::string &d : subdirs)
    if (auto inputs = inputsIn(d); !inputs.empty())
      samples.push_back(inputs);
  if (samples.empty()) {
    error = "--calibration " + dir.str() +
            ": no sample inputs (NAME.npy or NAME.pb files, in the "
            "directory or one subdirectory per sample)";
    return false;
  }
  return true;
}

/// A new directory `work` with the one-rank program `work`/model compiled
/// from the request and `extra` flags.
bool compileProbe(const shardc::CalibrationRequest &request,
                  ArrayRef<std::string> extra, StringRef what,
                  std::string &work, std::string &error) {
  SmallString<128> dir;
  if (std::error_code e =
          sys::fs::createUniqueDirectory("shardc-calibration", dir)) {
    error = "cannot create a calibration directory: " + e.message();
    return false;
  }
  work = dir.str().str();
  std::vector<std::string> compile = {request.shardc, request.model,
                                      "--target=cpu", "-o", work + "/model"};
  compile.insert(compile.end(), request.flags.begin(), request.flags.end());
  compile.insert(compile.end(), extra.begin(), extra.end());
  if (request.verbose)
    errs() << "shardc: calibration: compiling one rank to measure " << what
           << "\n";
  return runLogged(compile, work + "/log", "compiling the calibration program",
                   error);
}

/// The arguments that run `exe` on `sample`.
std::vector<std::string> runArgs(const std::string &exe, const Sample &sample) {
  std::vector<std::string> args = {exe};
  for (auto &[name, path] : sample) {
    args.push_back("--input");
    args.push_back(name + "=" + path);
  }
  return args;
}

} // namespace

std::vector<std::vector<int64_t>>
shardc::calibrateRouting(const CalibrationRequest &request,
                         std::string &error) {
  std::vector<std::vector<int64_t>> layers;
  std::vector<Sample> samples;
  if (!findSamples(request.dir, samples, error))
    return {};
  std::string work;
  auto cleanup = [&] {
    if (!work.empty())
      sys::fs::remove_directories(work);
  };
  if (!compileProbe(request, {}, "routing", work, error)) {
    cleanup();
    return {};
  }
  std::string exe = work + "/model", log = work + "/log";
  for (size_t i = 0; i < samples.size(); ++i) {
    std::string stats = work + "/routing" + std::to_string(i) + ".json";
    std::vector<std::string> args = runArgs(exe, samples[i]);
    args.push_back("--routing-stats");
    args.push_back(stats);
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

namespace {

/// A float32 .npy file as the executables write it (C order, '<f4'):
/// its shape and data; false on anything else.
bool readFloatNpy(StringRef path, std::vector<int64_t> &shape,
                  std::vector<float> &data) {
  auto buf = MemoryBuffer::getFile(path, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  if (!buf)
    return false;
  StringRef bytes = (*buf)->getBuffer();
  if (bytes.size() < 10 || !bytes.starts_with("\x93NUMPY"))
    return false;
  size_t headerLen, offset;
  if (bytes[6] == 1) {
    headerLen = uint8_t(bytes[8]) | uint8_t(bytes[9]) << 8;
    offset = 10;
  } else {
    if (bytes.size() < 12)
      return false;
    headerLen = uint8_t(bytes[8]) | uint8_t(bytes[9]) << 8 |
                uint32_t(uint8_t(bytes[10])) << 16 |
                uint32_t(uint8_t(bytes[11])) << 24;
    offset = 12;
  }
  if (offset + headerLen > bytes.size())
    return false;
  StringRef header = bytes.substr(offset, headerLen);
  if (!header.contains("'<f4'") || header.contains("'fortran_order': True"))
    return false;
  size_t open = header.find("'shape': ("), close;
  if (open == StringRef::npos ||
      (close = header.find(')', open)) == StringRef::npos)
    return false;
  SmallVector<StringRef> dims;
  header.slice(open + 10, close).split(dims, ',', -1, /*KeepEmpty=*/false);
  int64_t n = 1;
  shape.clear();
  for (StringRef d : dims) {
    int64_t v;
    if (d.trim().getAsInteger(10, v) || v < 0)
      return false;
    shape.push_back(v);
    n *= v;
  }
  StringRef payload = bytes.substr(offset + headerLen);
  if (payload.size() != static_cast<size_t>(n) * sizeof(float))
    return false;
  data.resize(n);
  std::memcpy(data.data(), payload.data(), payload.size());
  return true;
}

/// One activation's running statistics.
struct Running {
  int64_t channels = -1, rows = 0;
  std::vector<float> amax;
  std::vector<double> sum, sumSquares;
  std::vector<float> sample; // reservoir of rows
  int64_t sampleRows = 0;
};

constexpr int64_t kSampleRows = 1024;

} // namespace

std::string shardc::calibrateActivations(const CalibrationRequest &request,
                                         std::string &workDir,
                                         std::string &error) {
  std::vector<Sample> samples;
  if (!findSamples(request.dir, samples, error))
    return {};
  if (!compileProbe(request, {"--quantize=int8-observe"}, "activation ranges",
                    workDir, error))
    return {};
  std::string exe = workDir + "/model", log = workDir + "/log";
  std::vector<Running> acts;
  std::mt19937_64 rng(1);
  const std::string prefix = shardc::quant::kCalibrationOutput.str();
  for (size_t i = 0; i < samples.size(); ++i) {
    std::string out = workDir + "/out";
    std::vector<std::string> args = runArgs(exe, samples[i]);
    args.push_back("--output");
    args.push_back(out);
    if (!runLogged(args, log, "calibration sample " + std::to_string(i + 1),
                   error))
      return {};
    for (size_t a = 0;; ++a) {
      std::string path = out + "/" + prefix + std::to_string(a) + ".npy";
      if (!sys::fs::exists(path)) {
        if (i == 0 && a == 0) {
          error = "--calibration: the model has no linear layer that "
                  "--quantize=int8 quantizes";
          return {};
        }
        if (a != acts.size()) {
          error = "calibration sample " + std::to_string(i + 1) + " gave " +
                  std::to_string(a) + " activations, not " +
                  std::to_string(acts.size());
          return {};
        }
        break;
      }
      std::vector<int64_t> shape;
      std::vector<float> data;
      if (!readFloatNpy(path, shape, data) || shape.empty()) {
        error = "calibration sample " + std::to_string(i + 1) +
                ": unreadable activation " + path;
        return {};
      }
      if (a >= acts.size())
        acts.resize(a + 1);
      Running &r = acts[a];
      int64_t k = shape.back();
      if (r.channels < 0) {
        r.channels = k;
        r.amax.assign(k, 0.0f);
        r.sum.assign(k, 0.0);
        r.sumSquares.assign(k, 0.0);
      } else if (r.channels != k) {
        error = "calibration sample " + std::to_string(i + 1) +
                ": activation " + std::to_string(a) + " has " +
                std::to_string(k) + " channels, not " +
                std::to_string(r.channels);
        return {};
      }
      int64_t rows = k ? static_cast<int64_t>(data.size()) / k : 0;
      for (int64_t row = 0; row < rows; ++row) {
        const float *x = data.data() + row * k;
        for (int64_t j = 0; j < k; ++j) {
          float v = std::fabs(x[j]);
          if (!std::isfinite(v))
            continue;
          r.amax[j] = std::max(r.amax[j], v);
          r.sum[j] += x[j];
          r.sumSquares[j] += double(v) * v;
        }
        // Reservoir sampling: each row seen so far is kept with equal odds.
        int64_t slot = r.rows < kSampleRows
                           ? r.rows
                           : static_cast<int64_t>(rng() % (r.rows + 1));
        if (slot < kSampleRows) {
          if (slot >= r.sampleRows) {
            r.sample.resize((slot + 1) * k);
            r.sampleRows = slot + 1;
          }
          std::copy(x, x + k, r.sample.begin() + slot * k);
        }
        ++r.rows;
      }
      sys::fs::remove(path);
    }
    // What is left are the model's own outputs: the fp32 references of
    // the accuracy guard.
    std::string ref = workDir + "/ref" + std::to_string(i);
    if (std::error_code e = sys::fs::rename(out, ref)) {
      error = "cannot keep the calibration outputs: " + e.message();
      return {};
    }
  }
  json::Array list;
  for (size_t a = 0; a < acts.size(); ++a) {
    const Running &r = acts[a];
    std::string file = workDir + "/act" + std::to_string(a) + ".f32";
    std::error_code ec;
    raw_fd_ostream os(file, ec);
    if (ec) {
      error = "cannot write " + file + ": " + ec.message();
      return {};
    }
    os.write(reinterpret_cast<const char *>(r.sample.data()),
             r.sample.size() * sizeof(float));
    json::Array amax, mean, meansq;
    for (int64_t j = 0; j < r.channels; ++j) {
      amax.push_back(double(r.amax[j]));
      mean.push_back(r.rows ? r.sum[j] / r.rows : 0.0);
      meansq.push_back(r.rows ? r.sumSquares[j] / r.rows : 0.0);
    }
    list.push_back(json::Object{{"channels", r.channels},
                                {"rows", r.rows},
                                {"amax", std::move(amax)},
                                {"mean", std::move(mean)},
                                {"meansq", std::move(meansq)},
                                {"sample", file}});
  }
  std::string path = workDir + "/stats.json";
  std::error_code ec;
  raw_fd_ostream os(path, ec);
  if (ec) {
    error = "cannot write " + path + ": " + ec.message();
    return {};
  }
  os << json::Value(json::Object{{"samples", int64_t(samples.size())},
                                 {"activations", std::move(list)}});
  if (request.verbose)
    errs() << "shardc: calibration: " << samples.size() << " samples, "
           << acts.size() << " activations measured\n";
  return path;
}

namespace {

/// Mean cosine, over the rows (last axis) of every float32 output of every
/// sample, of `dir<i>` against `ref<i>` in `work`; -1 when an output is
/// missing or of another shape.
double meanCosine(StringRef work, StringRef dir, size_t samples,
                  ArrayRef<std::string> outputs, shardc::TrialMetric metric) {
  double sum = 0;
  int64_t count = 0;
  for (size_t i = 0; i < samples; ++i) {
    std::string ref = (work + "/ref" + Twine(i)).str();
    std::string got = (work + "/" + dir + Twine(i)).str();
    std::error_code ec;
    for (sys::fs::directory_iterator it(ref, ec), end; it != end && !ec;
         it.increment(ec)) {
      std::vector<int64_t> rs, gs;
      std::vector<float> r, g;
      std::string name = sys::path::stem(it->path()).str();
      if (!outputs.empty() && !llvm::is_contained(outputs, name))
        continue;
      if (!readFloatNpy(it->path(), rs, r))
        continue; // not float32: not compared
      std::string other = got + "/" + sys::path::filename(it->path()).str();
      if (!readFloatNpy(other, gs, g) || gs != rs)
        return -1;
      int64_t width = rs.empty() ? 1 : std::max<int64_t>(rs.back(), 1);
      for (size_t row = 0; row + width <= r.size(); row += width) {
        if (metric == shardc::TrialMetric::Top1) {
          // The first largest element (a NaN never is), as argmax.
          auto top = [&](const std::vector<float> &v) {
            size_t best = row;
            for (size_t j = row; j < row + width; ++j)
              if (v[j] > v[best] || std::isnan(v[best]))
                best = j;
            return best;
          };
          sum += top(r) == top(g) ? 1.0 : 0.0;
          ++count;
          continue;
        }
        double dot = 0, nr = 0, ng = 0;
        for (int64_t j = 0; j < width; ++j) {
          dot += double(r[row + j]) * g[row + j];
          nr += double(r[row + j]) * r[row + j];
          ng += double(g[row + j]) * g[row + j];
        }
        sum += nr == 0 && ng == 0 ? 1.0
               : nr == 0 || ng == 0 ? 0.0
                                    : dot / std::sqrt(nr * ng);
        ++count;
      }
    }
  }
  return count ? sum / count : -2;
}

} // namespace

double shardc::trialCosine(const CalibrationRequest &request,
                           ArrayRef<std::string> flags, StringRef workDir,
                           ArrayRef<std::string> outputs, StringRef what,
                           std::string &error, TrialMetric metric,
                           double *p50Ms) {
  std::vector<Sample> samples;
  if (!findSamples(request.dir, samples, error))
    return -2;
  std::string exe = (workDir + "/trial").str();
  std::string log = (workDir + "/trial.log").str();
  std::vector<std::string> compile = {request.shardc, request.model,
                                      "--target=cpu", "-o", exe};
  compile.insert(compile.end(), request.flags.begin(), request.flags.end());
  compile.insert(compile.end(), flags.begin(), flags.end());
  if (!runLogged(compile, log, "compiling " + what.str() + " trial", error))
    return -2;
  for (size_t i = 0; i < samples.size(); ++i) {
    std::string out = (workDir + "/trial" + Twine(i)).str();
    sys::fs::remove_directories(out);
    std::vector<std::string> args = runArgs(exe, samples[i]);
    args.push_back("--output");
    args.push_back(out);
    if (!runLogged(args, log, what.str() + " sample " + std::to_string(i + 1),
                   error))
      return -2;
  }
  if (p50Ms) {
    std::vector<std::string> args = runArgs(exe, samples[0]);
    for (const char *a : {"--benchmark", "--warmup", "3", "--iterations"})
      args.push_back(a);
    args.push_back(std::to_string(kTrialBenchmarkRuns));
    if (!runLogged(args, log, what.str() + " benchmark", error))
      return -2;
    *p50Ms = NAN;
    if (auto buf = MemoryBuffer::getFile(log)) {
      StringRef text = (*buf)->getBuffer();
      size_t at = text.find("p50=");
      double v;
      if (at != StringRef::npos &&
          !text.substr(at + 4)
               .take_while([](char c) { return llvm::isDigit(c) || c == '.'; })
               .getAsDouble(v))
        *p50Ms = v;
    }
  }
  double cosine = meanCosine(workDir, "trial", samples.size(), outputs, metric);
  if (cosine < -1.5) {
    error = what.str() + ": the model has no float32 output" +
            std::string(outputs.empty() ? "" : " of those named") +
            " to compare";
    return -2;
  }
  return cosine;
}

std::vector<int64_t> shardc::guardAccuracy(const CalibrationRequest &request,
                                           ArrayRef<std::string> flags,
                                           StringRef workDir,
                                           ArrayRef<int64_t> order,
                                           double target,
                                           ArrayRef<std::string> outputs,
                                           double &reached,
                                           std::string &error) {
  // The mean cosine with the `kept` most sensitive activations in f32.
  std::map<size_t, double> tried;
  auto trial = [&](size_t kept) -> double {
    if (auto it = tried.find(kept); it != tried.end())
      return it->second;
    std::vector<std::string> compile(flags.begin(), flags.end());
    if (kept) {
      std::string list;
      for (size_t i = 0; i < kept; ++i)
        list += (i ? "," : "") + std::to_string(order[i]);
      compile.push_back("--quantize-keep=" + list);
    }
    double cosine = trialCosine(request, compile, workDir, outputs,
                                "--quantize-accuracy", error);
    if (cosine == -2)
      return tried[kept] = -2;
    if (request.verbose)
      errs() << "shardc: accuracy guard: " << kept << " of " << order.size()
             << " activations in f32: mean cosine "
             << format("%.5f", cosine) << " on the calibration samples\n";
    return tried[kept] = cosine;
  };
  // Fewest kept activations that reach the target: none, then doubling,
  // then bisection (the cosine grows, roughly, with what is kept).
  size_t lo = 0, hi = 0;
  double c = trial(0);
  if (c == -2)
    return {};
  if (c < target) {
    hi = 1;
    while (hi < order.size() && (c = trial(hi)) < target) {
      if (c == -2)
        return {};
      lo = hi;
      hi = std::min(order.size(), hi * 2);
    }
    if (hi >= order.size())
      hi = order.size();
    while (hi - lo > 1) {
      size_t mid = (lo + hi) / 2;
      double m = trial(mid);
      if (m == -2)
        return {};
      (m >= target ? hi : lo) = mid;
    }
  }
  reached = hi == order.size() && !tried.count(hi) ? 1.0 : tried[hi];
  return std::vector<int64_t>(order.begin(), order.begin() + hi);
}
