//===- Calibration.h - routing counts from sample inputs --------*- C++ -*-===//
//
// `shardc --calibration DIR`: the tokens each mixture-of-experts layer
// routes to each expert, measured by compiling the model for one CPU rank
// (this shardc, run again with the model's shape flags) and running it on
// every sample in DIR with --routing-stats. DIR holds one sample (its
// inputs as NAME.npy or NAME.pb files) or one subdirectory per sample.
// Expert load balancing (dist-seed-experts) places the experts by them.
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

} // namespace shardc

#endif // SHARDC_TOOLS_SHARDC_CALIBRATION_H
