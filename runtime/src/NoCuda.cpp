//===- NoCuda.cpp - the cuda device of a runtime built without it ---------===//
//
// Built instead of runtime/src/cuda/*Device*, *Driver*, *Libraries* and the
// library wrappers when the CUDA headers were missing at configure time.
// Programs with CUDA code still link (shardc/cuda.h's functions exist) and
// load their CPU code; their CUDA code is never called.
//
//===----------------------------------------------------------------------===//
#include "Device.h"

#include "shardc/cuda.h"

namespace shardc::rt {

Status openCudaDevice(const RankCode &, std::unique_ptr<Device> &) {
  return {SHARDC_ERROR_UNSUPPORTED,
          "no usable GPU: this runtime was built without the CUDA headers"};
}

} // namespace shardc::rt

namespace {
void *unavailable() {
  sc_fail("this runtime was built without CUDA support");
  return nullptr;
}
} // namespace

extern "C" {
void sc_cu_launch(sc_cuda *, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t,
                  uint32_t, void **) {
  unavailable();
}
void *sc_cu_matmul_create(sc_cuda *, const sc_desc *, const sc_desc *,
                          const sc_desc *, const sc_desc *, const sc_desc *,
                          int32_t, int32_t, float, float, int32_t, int32_t) {
  return unavailable();
}
void sc_cu_matmul_run(sc_cuda *, void *, const void *, const void *,
                      const void *, const void *, void *) {
  unavailable();
}
void *sc_cu_conv_create(sc_cuda *, const sc_desc *, const sc_desc *,
                        const sc_desc *, const sc_desc *, const int64_t *,
                        const int64_t *, const int64_t *, int64_t, int32_t,
                        int32_t) {
  return unavailable();
}
void sc_cu_conv_run(sc_cuda *, void *, const void *, const void *, const void *,
                    void *) {
  unavailable();
}
void sc_cu_copy(sc_cuda *, void *, const void *, uint64_t) { unavailable(); }
void sc_cu_all_reduce(sc_cuda *, sc_comm *, const void *, void *, uint64_t,
                      int32_t, int32_t) {
  unavailable();
}
void sc_cu_all_gather(sc_cuda *, sc_comm *, const void *, void *, uint64_t,
                      int32_t) {
  unavailable();
}
void sc_cu_reduce_scatter(sc_cuda *, sc_comm *, const void *, void *,
                          uint64_t, int32_t, int32_t) {
  unavailable();
}
void sc_cu_all_to_all(sc_cuda *, sc_comm *, const void *, void *, uint64_t,
                      int32_t) {
  unavailable();
}
void sc_cu_moe_dispatch(sc_cuda *, sc_comm *, const void *, const int32_t *,
                        void *, int32_t *, int32_t *, uint64_t, uint64_t,
                        uint64_t, int32_t) {
  unavailable();
}
void sc_cu_moe_return(sc_cuda *, sc_comm *, const void *, const int32_t *,
                      const int32_t *, void *, uint64_t, uint64_t, uint64_t,
                      int32_t) {
  unavailable();
}
}
