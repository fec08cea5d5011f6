//===- ConvPlan.h - an ONNX (de)convolution as cuDNN descriptors -*- C++
//-*-===//
//
// sc_cu_conv_create takes sc_dnnl_conv_create's arguments but the residual,
// the epilogue and channels-last (the CPU's only): NCHW tensors
// with 1 to 3 spatial dims, ONNX weights (Conv: C_out x C_in/group x k...,
// ConvTranspose: C_in x C_out/group x k...), pads as begins then ends, and
// y giving the output shape. cuDNN's legacy API wants at least 4-D tensors
// (a 1-D convolution becomes a 2-D one of height 1) and pads both ends of a
// dim alike, and a transposed convolution is its backward-data pass, whose
// filter layout is exactly ConvTranspose's. Pure logic, tested without a
// GPU.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_CUDA_CONVPLAN_H
#define SHARDC_RUNTIME_CUDA_CONVPLAN_H

#include "shardc/cpu.h"

#include <string>

namespace shardc::rt::cuda {

struct ConvPlan {
  int nbDims = 0; // 4 or 5
  int x[5] = {}, w[5] = {}, y[5] = {};
  int pads[3] = {}, strides[3] = {}, dilations[3] = {}; // nbDims - 2 each
  int groups = 1;
  int outChannels = 0; // the bias length
  bool transposed = false;
  bool empty = false; // y has no elements: nothing to do
  // A transposed convolution whose pads differ at the two ends: cuDNN
  // computes `full` (each dim padded by the smaller pad at both ends) and y
  // is its window that starts at `crop` in each spatial dim.
  bool cropped = false;
  int full[5] = {};
  int crop[5] = {}; // per dim of `full`; 0 for batch and channels
};

/// False with a one-line reason when cuDNN cannot run the convolution:
/// shapes that do not agree, a bias that is not one value per output
/// channel, or a convolution's pads whose begin and end differ in a way
/// that changes the output (cuDNN pads both ends by the begin pad; a larger
/// end pad that only feeds what floor() drops is fine). A transposed one's
/// differing pads crop a larger output (`cropped`).
bool planConv(const sc_desc &x, const sc_desc &w, const sc_desc *bias,
              const sc_desc &y, const int64_t *strides,
              const int64_t *dilations, const int64_t *pads, int64_t group,
              bool transposed, ConvPlan &plan, std::string &error);

} // namespace shardc::rt::cuda

#endif // SHARDC_RUNTIME_CUDA_CONVPLAN_H
