/*===- shardc/runtime.h - the shardc runtime C API ----------------------===*
 *
 * Loads a compiled model (the program linked into the executable plus its
 * `.weights` file), binds inputs, runs, and reads outputs. Every call returns
 * a status; on failure `shardc_last_error()` gives a one-line message.
 *
 *   shardc_model *m;
 *   if (shardc_load(&shardc_model_program, "gpt2.weights", 0, &m) != SHARDC_OK)
 *     fprintf(stderr, "%s\n", shardc_last_error());
 *   else if (*shardc_fallback_reason(m))
 *     fprintf(stderr, "note: %s; running the CPU code\n",
 *             shardc_fallback_reason(m));
 *   shardc_bind_input(m, "ids", SHARDC_INT64, 2, dims, data, bytes);
 *   shardc_run(m);
 *   shardc_output(m, 0, &ptr, &bytes);
 *
 * A program carries CPU code, CUDA code or both. CUDA runs through the
 * driver API, cuBLASLt and cuDNN opened with dlopen: a program loads on a
 * machine without a GPU, and says what is missing when it needs one.
 * No MLIR, LLVM, protobuf or CUDA link dependency.
 *===----------------------------------------------------------------------===*/
#ifndef SHARDC_RUNTIME_H
#define SHARDC_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum shardc_status {
  SHARDC_OK = 0,
  SHARDC_ERROR_IO = 1,               /* a file cannot be opened, read or mapped */
  SHARDC_ERROR_FORMAT = 2,           /* a corrupt, truncated or mismatched plan or weights file */
  SHARDC_ERROR_INVALID_ARGUMENT = 3, /* wrong input name, dtype, shape or size */
  SHARDC_ERROR_RUNTIME = 4,          /* a kernel or library failed while running */
  SHARDC_ERROR_UNSUPPORTED = 5       /* a library cannot run this configuration */
} shardc_status;

/* Element types use ONNX's TensorProto.DataType codes. */
typedef enum shardc_dtype {
  SHARDC_FLOAT32 = 1, SHARDC_UINT8 = 2, SHARDC_INT8 = 3, SHARDC_UINT16 = 4,
  SHARDC_INT16 = 5, SHARDC_INT32 = 6, SHARDC_INT64 = 7, SHARDC_BOOL = 9,
  SHARDC_FLOAT16 = 10, SHARDC_FLOAT64 = 11, SHARDC_UINT32 = 12,
  SHARDC_UINT64 = 13, SHARDC_BFLOAT16 = 16
} shardc_dtype;

/* Where a model runs. AUTO: the GPU when the program has CUDA code and a
 * usable GPU, else the program's CPU code. */
typedef enum shardc_device {
  SHARDC_DEVICE_AUTO = 0,
  SHARDC_DEVICE_CPU = 1,
  SHARDC_DEVICE_CUDA = 2
} shardc_device;

typedef struct shardc_program shardc_program; /* defined by the generated code */
typedef struct shardc_model shardc_model;

typedef struct shardc_tensor_info {
  const char *name;
  int32_t dtype;       /* shardc_dtype */
  int32_t rank;
  const int64_t *dims; /* rank entries */
  size_t bytes;        /* product(dims) * element size */
} shardc_tensor_info;

/* The message of the last failed call on this thread ("" if none). */
const char *shardc_last_error(void);

/* Size in bytes of one element of `dtype`, or 0 if unknown. */
size_t shardc_dtype_size(int32_t dtype);
/* "float32", "int64", ... or "unknown". */
const char *shardc_dtype_name(int32_t dtype);

/* `rank` for shardc_load_on: the rank the launcher gave this process
 * (mpirun, for a multi-rank program; 0 for one rank). */
#define SHARDC_RANK_FROM_LAUNCHER (-1)

/* Validates the embedded plan, maps and checks `weights_path`, and prepares
 * rank `rank` (0 for world size 1, or SHARDC_RANK_FROM_LAUNCHER) on
 * `device`. From the launcher, a multi-rank program starts MPI and checks
 * that the job has the plan's world size; a rank named explicitly gets no
 * communicators. A device the program has no
 * code for, or an unusable GPU ("no usable GPU: cannot load libcuda.so.1
 * (...)"), is SHARDC_ERROR_UNSUPPORTED; with AUTO an unusable GPU is only an
 * error when the program has no CPU code. */
shardc_status shardc_load_on(const shardc_program *program,
                             const char *weights_path, int rank,
                             shardc_device device, shardc_model **out);
/* shardc_load_on with SHARDC_DEVICE_AUTO. */
shardc_status shardc_load(const shardc_program *program,
                          const char *weights_path, int rank,
                          shardc_model **out);
void shardc_free(shardc_model *model);

/* Where the model runs: "cpu", or "cuda: <GPU name> (sm_90, cubin sm_90)"
 * (the GPU's architecture, then the code loaded: a cubin, or PTX the driver
 * compiled). */
const char *shardc_device_description(const shardc_model *model);
/* Why AUTO ran the CPU code of a program that has CUDA code (the message
 * loading it on the GPU failed with), or "" if it did not. */
const char *shardc_fallback_reason(const shardc_model *model);

/* The rank the model runs as. */
int shardc_rank(const shardc_model *model);

/* The embedded plan's world size, or -1 if the program is invalid (see
 * shardc_last_error()). */
int shardc_world_size(const shardc_program *program);

int shardc_num_inputs(const shardc_model *model);
int shardc_num_outputs(const shardc_model *model);
/* An input's dims are its compiled ones, at their bounds where dynamic
 * (compiled with --max-shape); an output's are the last successful run's
 * (the bounds before the first run). */
shardc_status shardc_input_info(const shardc_model *model, int index,
                                shardc_tensor_info *info);
shardc_status shardc_output_info(const shardc_model *model, int index,
                                 shardc_tensor_info *info);

/* Copies `data` into the input slot `name`. The dtype, shape and byte count
 * must equal the compiled ones, except that a dynamic dim takes any value
 * from 1 to its bound (the inputs that share it must agree by the next
 * shardc_run); the error names the expected ones. */
shardc_status shardc_bind_input(shardc_model *model, const char *name,
                                int32_t dtype, int32_t rank,
                                const int64_t *dims, const void *data,
                                size_t bytes);

/* A decoder's KV cache (compiled from a with-past export: inputs
 * past_key_values.N.key/value, outputs present.N.key/value = the past with
 * the step's entries appended). Each present output's buffer holds its
 * layer's cache, laid out for the bounds, and the program appends to it in
 * place. shardc_bind_input of a past input copies the given past into that
 * buffer; shardc_keep_cache instead binds every past input as the first
 * `past` entries of what its present output holds from the last run (no
 * copy), 0 <= past <= that run's length: a decode step passes the length so
 * far, a new sequence 0. The batch must stay that of the last run while
 * past > 0. */
shardc_status shardc_keep_cache(shardc_model *model, int64_t past);
/* Whether input `index` is a KV cache's past: the output that holds it and
 * the axis it grows along, or -1 and -1. */
shardc_status shardc_input_cache(const shardc_model *model, int index,
                                 int64_t *output, int64_t *axis);

/* Runs the program once and waits for it. All inputs must have been bound.
 * On a GPU each run copies the inputs in and the outputs back. A pipelined
 * program (compiled with micro-batches) runs the rank's code once per
 * micro-batch; the signatures above are then those of all micro-batches
 * together (a batched tensor's first dim is the micro-batch's times their
 * number). */
shardc_status shardc_run(shardc_model *model);

/* Waits until every rank of the job has called it (the world
 * communicator); returns at once on one rank. A benchmark brackets each
 * run with it, so that a pipeline's run ends when its last stage does. */
shardc_status shardc_barrier(shardc_model *model);

/* Every rank of the job gets the `bytes` at `data` of rank `root` (the
 * world communicator; a no-op on one rank): --generate's sampled tokens,
 * picked on the rank that has the logits. Every rank calls it with the same
 * root and size. */
shardc_status shardc_broadcast(shardc_model *model, int root, void *data,
                               size_t bytes);

/* Generation with a decoder compiled from a with-past export (its past
 * inputs a KV cache): a prefill run over `prompt` ([batch, length] int64,
 * with an optional `mask` of the same shape, 1 = attend), then one run per
 * new token, greedy (temperature 0) or sampled; writes `ids` ([batch,
 * length + tokens] int64). Under mpirun every rank calls it alike; rank
 * `sampler` (the one with the logits) picks the tokens. What
 * `./model --generate` runs. */
typedef struct shardc_generate_options {
  int64_t tokens;     /* new tokens per row, at least 1 */
  double temperature; /* 0: greedy */
  int64_t top_k;      /* 0: every token */
  double top_p;       /* 1: every token */
  uint64_t seed;
  int32_t has_eos_id; /* a row that produced eos_id repeats it */
  int64_t eos_id;
  const int64_t *prompt_lengths; /* ragged prompts: batch lengths, or NULL */
  int32_t sampler;
} shardc_generate_options;
shardc_status shardc_generate(shardc_model *model,
                              const shardc_generate_options *options,
                              const int64_t *prompt, int64_t batch,
                              int64_t length, const int64_t *mask,
                              int64_t *ids);

/* Output `index` of the last run; valid until the next run or free. */
shardc_status shardc_output(const shardc_model *model, int index,
                            const void **data, size_t *bytes);

/* Tracing. With `enable` non-zero, the following runs record, in memory,
 * one event per micro-batch and one per communicator operation (recv,
 * send, flush and the collectives, with their bytes and peer); enabling
 * again starts afresh, 0 stops recording and keeps what was recorded. */
shardc_status shardc_set_trace(shardc_model *model, int enable);
/* Writes the recorded events of every rank as one Chrome trace-event JSON
 * file (chrome://tracing, Perfetto; one track per rank, "rank R (stage
 * S)", microseconds from the earliest event of any rank). Collective: every
 * rank of a multi-rank job calls it, the events are gathered over the
 * world and world rank 0 writes `path`. */
shardc_status shardc_write_trace(shardc_model *model, const char *path);

/* Expert routing counts, the calibration of `shardc --calibration`: with
 * enable != 0 (which starts afresh), every mixture-of-experts route of the
 * later runs on the CPU adds its choices per expert to one row per route,
 * in program order (process-wide). shardc_write_routing_stats writes them
 * as JSON: {"runs": N, "layers": [[choices of expert 0, ...], ...]}. */
shardc_status shardc_set_routing_stats(int enable);
shardc_status shardc_write_routing_stats(const char *path);

/* OpenMP (and oneDNN) thread count of the CPU code; 0 keeps the default. */
void shardc_set_threads(int threads);
/* The thread count an executable runs with when neither --threads nor
 * OMP_NUM_THREADS is given: this process's CPUs (its affinity mask), at
 * most its cgroup's CPU quota. Under mpirun, a rank that shares an unbound
 * node with others first pins itself to its share of the CPUs. */
int shardc_default_threads(void);

#ifdef __cplusplus
}
#endif
#endif /* SHARDC_RUNTIME_H */
