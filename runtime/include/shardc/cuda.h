/*===- shardc/cuda.h - the CUDA half of generated code -------------------===*
 *
 * Included (after shardc/cpu.h) by generated code compiled for
 * --target=cuda. The generated rank entry (sc_cuda_entry in cpu.h) calls
 * these runtime functions; they are implemented in runtime/src/cuda on top
 * of the driver API, cuBLASLt, cuDNN and NCCL, all reached through dlopen,
 * so the executable links no CUDA library.
 *
 * Every pointer argument is a device pointer (arena, weights or an I/O
 * staging buffer). All work goes to the model's one stream. Errors go
 * through sc_fail() (the first one wins); create() functions return NULL
 * after sc_fail() when the library cannot take the configuration, and the
 * generated init() then returns non-zero.
 *===----------------------------------------------------------------------===*/
#ifndef SHARDC_CUDA_H
#define SHARDC_CUDA_H

#include "shardc/cpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Launches kernel `kernel` (an index into shardc_program.cuda_kernels) with
 * a 1-D block of `block` threads, `shared_bytes` of dynamic shared memory
 * and the given grid. `args` points at each kernel parameter, as for
 * cuLaunchKernel. */
void sc_cu_launch(sc_cuda *cu, uint32_t kernel, uint32_t grid_x,
                  uint32_t grid_y, uint32_t grid_z, uint32_t block,
                  uint32_t shared_bytes, void **args);

/* Math modes for fp32 GEMMs and convolutions. */
#define SC_MATH_FP32 0
#define SC_MATH_TF32 1

/* cuBLASLt: y = epilogue(alpha * op(a) x op(b) + bias) + residual + beta * y,
 * the same shapes as sc_dnnl_matmul_create (a, b, y of one rank >= 2, batch
 * dims broadcast where 1; bias nullable, y's rank, dims 1 or equal;
 * residual nullable, y's shape, only with SC_EPILOGUE_NONE and beta 0: it
 * is cuBLASLt's C with beta 1). Epilogues (SC_EPILOGUE_* in shardc/cpu.h):
 * none, relu, gelu_tanh (cuBLASLt's GELU); SC_EPILOGUE_GELU (erf) has no
 * cuBLASLt form and fails create(). dtypes f32, f16 or bf16 (a, b, y alike);
 * f16 and bf16 accumulate in f32. */
void *sc_cu_matmul_create(sc_cuda *cu, const sc_desc *a, const sc_desc *b,
                          const sc_desc *bias, const sc_desc *residual,
                          const sc_desc *y, int32_t trans_a, int32_t trans_b,
                          float alpha, float beta, int32_t epilogue,
                          int32_t math);
void sc_cu_matmul_run(sc_cuda *cu, void *h, const void *a, const void *b,
                      const void *bias, const void *residual, void *y);

/* cuDNN (de)convolution: sc_dnnl_conv_create's arguments without the
 * residual, the epilogue and channels-last (NCHW only), plus the math
 * mode. f32, f16, bf16. */
void *sc_cu_conv_create(sc_cuda *cu, const sc_desc *x, const sc_desc *w,
                        const sc_desc *bias, const sc_desc *y,
                        const int64_t *strides, const int64_t *dilations,
                        const int64_t *pads, int64_t group,
                        int32_t transposed, int32_t math);
void sc_cu_conv_run(sc_cuda *cu, void *h, const void *x, const void *w,
                    const void *bias, void *y);

/* Device-to-device copy on the model's stream. */
void sc_cu_copy(sc_cuda *cu, void *dst, const void *src, uint64_t bytes);

/* Collectives (kern.all_reduce, ...): the arguments of sc_all_reduce and
 * its siblings (shardc/cpu.h) with device buffers, enqueued on the model's
 * stream, so that they are captured into the CUDA graph with the rest of
 * run(). `comm` is sc_ctx_comm(ctx, axis): on a GPU rank, the NCCL
 * communicator of the mesh axis. */
void sc_cu_all_reduce(sc_cuda *cu, sc_comm *comm, const void *in, void *out,
                      uint64_t count, int32_t dtype, int32_t kind);
void sc_cu_all_gather(sc_cuda *cu, sc_comm *comm, const void *in, void *out,
                      uint64_t count, int32_t dtype);
void sc_cu_reduce_scatter(sc_cuda *cu, sc_comm *comm, const void *in,
                          void *out, uint64_t count, int32_t dtype,
                          int32_t kind);
void sc_cu_all_to_all(sc_cuda *cu, sc_comm *comm, const void *in, void *out,
                      uint64_t count, int32_t dtype);
/* Point to point between pipeline stages: sc_send / sc_recv (shardc/cpu.h)
 * with device buffers, enqueued on the model's stream (ncclSend /
 * ncclRecv); the peer is this rank + `offset` in the group. */
void sc_cu_send(sc_cuda *cu, sc_comm *comm, const void *buf, uint64_t count,
                int32_t dtype, int32_t offset);
void sc_cu_recv(sc_cuda *cu, sc_comm *comm, void *buf, uint64_t count,
                int32_t dtype, int32_t offset);

/* Expert parallelism: sc_moe_dispatch / sc_moe_return (shardc/cpu.h)
 * with device buffers on the model's stream. The row counts are read back
 * to the host (a stream synchronization, polled under the NCCL
 * communicators' watch) to size the NCCL grouped send/recv, so a program
 * that calls these is not captured into a CUDA graph: the first call, in
 * the direct warm-up run, marks the model, and every later run enqueues
 * run() directly (runtime/src/cuda/CudaDevice.cpp). The arriving rows are
 * staged in a buffer of the device, grown on demand and freed with it. */
void sc_cu_moe_dispatch(sc_cuda *cu, sc_comm *comm, const void *rows,
                        const int32_t *offsets, void *recv,
                        int32_t *recv_offsets, int32_t *recv_counts,
                        uint64_t local_slots, uint64_t width,
                        uint64_t capacity, int32_t dtype);
void sc_cu_moe_return(sc_cuda *cu, sc_comm *comm, const void *recv,
                      const int32_t *recv_counts, const int32_t *offsets,
                      void *rows, uint64_t local_slots, uint64_t width,
                      uint64_t capacity, int32_t dtype);

#ifdef __cplusplus
}
#endif
#endif /* SHARDC_CUDA_H */
