//===- MpiTestUtil.h - helpers of the MPI gtests ----------------*- C++ -*-===//
//
// The MPI gtests (run under mpirun by test/Runtime/mpi.test) ask which rank
// of how many they are.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_TEST_MPI_MPITESTUTIL_H
#define SHARDC_RUNTIME_TEST_MPI_MPITESTUTIL_H

#include "shardc/cpu.h"

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace shardc::test {

inline int worldRank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

inline int worldSize() {
  int n = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

/// Fills `program` as a generated multi-rank program: `plan` embedded, one
/// entry per rank, a one-axis mesh of `mesh[0]` ranks, MPI for the world.
inline void mpiProgram(shardc_program &program,
                       const std::vector<uint8_t> &plan,
                       const std::vector<sc_rank_entry> &entries,
                       const int64_t *mesh) {
  program.abi_version = SC_ABI_VERSION;
  program.num_ranks = static_cast<uint32_t>(entries.size());
  program.plan = plan.data();
  program.plan_size = plan.size();
  program.ranks = entries.data();
  program.num_mesh_axes = 1;
  program.mesh_shape = mesh;
  program.world = sc_mpi_world;
}

} // namespace shardc::test

#endif // SHARDC_RUNTIME_TEST_MPI_MPITESTUTIL_H
