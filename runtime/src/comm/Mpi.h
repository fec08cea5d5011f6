//===- Mpi.h - communicators over MPI (CPU ranks) ---------------*- C++ -*-===//
//
// The MPI side of the communicator seam (Comm.h), in its own library
// (libshardc_rt_mpi.a, linked only into multi-rank executables, so a
// single-rank executable needs no MPI at run time). Ranks come from
// `mpirun` (Open MPI; multi-host runs are mpirun over hosts). Collectives
// map to MPI's: MPI_Allreduce, MPI_Allgather, MPI_Reduce_scatter_block,
// MPI_Alltoall; point to point is MPI_Isend from a staging copy (the
// sender goes on at once; flush() waits, MPI_Test reclaims finished sends'
// buffers) and a blocking MPI_Recv, on one tag so that messages keep their
// order; fp16 and bf16 reduce through user-defined ops that compute in
// float. Errors return (MPI_ERRORS_RETURN)
// as a Status with MPI's message; a rank that dies ends the job through
// Open MPI's error manager, so no rank waits forever.
//
// This header does not include mpi.h.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_COMM_MPI_H
#define SHARDC_RUNTIME_COMM_MPI_H

#include "runtime/src/comm/Comm.h"

#include <memory>
#include <vector>

namespace shardc::rt {

/// Initializes MPI once per process (MPI_Init_thread, funneled; finalized
/// at exit) and returns a communicator over every rank of the job.
Status createMpiWorld(std::unique_ptr<Communicator> &out);

} // namespace shardc::rt

#endif // SHARDC_RUNTIME_COMM_MPI_H
