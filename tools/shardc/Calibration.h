//===- Calibration.h - measurements on sample inputs ------------*- C++ -*-===//
//
// `shardc --calibration DIR`: the model compiled for one CPU rank (this
// shardc, run again with the model's shape flags) and run on every sample
// in DIR. DIR holds one sample (its inputs as NAME.npy or NAME.pb files)
// or one subdirectory per sample.
// - Routing: the tokens each mixture-of-experts layer routes to each
//   expert (--routing-stats); expert load balancing (dist-seed-experts)
//   places the experts by them.
// - Activations: the ranges of the activations static int8 quantization
//   scales (the graph-quantize-observe program's extra results), reduced
//   to the statistics graph-quantize-static reads.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TOOLS_SHARDC_CALIBRATION_H
#define SHARDC_TOOLS_SHARDC_CALIBRATION_H

#include <cstdint>
#include <string>
#include <vector>

namespace shardc {

struct CalibrationRequest {
  std::string shardc;             ///< this executable
  std::string model;              ///< the ONNX file
  std::vector<std::string> flags; ///< --input-shape, --const-input, ...
  std::string dir;                ///< the samples
  bool verbose = false;
};

/// Per layer (program order), tokens per expert summed over the samples;
/// on failure, empty with `error` set to one line.
std::vector<std::vector<int64_t>>
calibrateRouting(const CalibrationRequest &request, std::string &error);

/// Statistics of the activations graph-quantize-static scales, over all
/// samples: per activation its channel count, each channel's largest
/// magnitude and mean square, and a sample of up to 1024 rows (reservoir
/// sampling, fixed seed). Written into a new directory `workDir` (the
/// caller removes it) as stats.json and one .f32 file per activation;
/// returns the JSON's path, or empty with `error` set to one line.
std::string calibrateActivations(const CalibrationRequest &request,
                                 std::string &workDir, std::string &error);

} // namespace shardc

#endif // SHARDC_TOOLS_SHARDC_CALIBRATION_H
