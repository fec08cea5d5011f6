//===- MpiTestUtil.h - helpers of the MPI gtests ----------------*- C++ -*-===//
//
// The MPI gtests (run under mpirun by test/Runtime/mpi.test) ask which rank
// of how many they are.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_TEST_MPI_MPITESTUTIL_H
#define SHARDC_RUNTIME_TEST_MPI_MPITESTUTIL_H

#include <mpi.h>

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

} // namespace shardc::test

#endif // SHARDC_RUNTIME_TEST_MPI_MPITESTUTIL_H
